/* Fuzzes scenario JSON (tl_scenario_parse, the text entry point of
 * tl_scenario_load): syntax, shapes, ranges and the files a scenario names
 * (built-in CDFs and matrices from data/; relative paths resolve in the cwd). */
#include <stdlib.h>

#include "fz.h"
#include "tailor/spec.h"

int fz_scenario(const uint8_t *data, size_t n, tl_err *err)
{
    char *text = fz_text(data, n);
    tl_scenario sc;
    int rc = tl_scenario_parse(&sc, text, "fuzz.json", NULL, err);
    tl_scenario_fini(&sc);
    free(text);
    return rc;
}

FZ_ENTRY(fz_scenario)
