/* Fuzzes summary.json as `tailor compare` reads it (tl_summary_load_json),
 * then compares the summary with itself (tl_compare_build), as compare does
 * with two runs. */
#include "fz.h"
#include "tailor/compare.h"
#include "tailor/result.h"

int fz_summary(const uint8_t *data, size_t n, tl_err *err)
{
    tl_summary s;
    int rc = tl_summary_load_json(&s, fz_temp_file(data, n, ".json"), err);
    if (rc == 0) {
        tl_compare c;
        rc = tl_compare_build(&s, &s, &c, err);
        tl_compare_fini(&c);
    }
    tl_summary_fini(&s);
    return rc;
}

FZ_ENTRY(fz_summary)
