/* Fuzzes one-line topology specs of the throughput commands
 * (tl_topo_from_spec, "family:key=value,..."), each built by its generator. */
#include <stdlib.h>

#include "fz.h"

int fz_topo_spec(const uint8_t *data, size_t n, tl_err *err)
{
    char *text = fz_text(data, n);
    tl_topo *t = tl_topo_from_spec(text, 1, err);
    free(text);
    tl_topo_destroy(t);
    return t ? 0 : err->code;
}

FZ_ENTRY(fz_topo_spec)
