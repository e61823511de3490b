/* Fuzzes one-line topology specs of the throughput commands
 * (tl_topo_from_spec, "family:key=value,..."), each built by its generator. */
#include <stdlib.h>

#include "fz.h"

#ifndef FZ_NO_ENTRY
/* A spec may ask for any size; what it may build is bounded by the memory
 * limit every builder checks (tailor/memlimit.h). 4 MB keeps one input well
 * under the harness's 10 s: a random graph of 2^16 links, about 3 s under
 * ASan, while 2*10^6 links ("jellyfish:switches=400000,degree=10") ran for
 * minutes. Larger inputs are users' to run; their errors are the same code. */
__attribute__((constructor)) static void bound_memory(void) { setenv("TAILOR_MAX_MEMORY", "4MB", 1); }
#endif

int fz_topo_spec(const uint8_t *data, size_t n, tl_err *err)
{
    char *text = fz_text(data, n);
    tl_topo *t = tl_topo_from_spec(text, 1, err);
    free(text);
    tl_topo_destroy(t);
    return t ? 0 : err->code;
}

FZ_ENTRY(fz_topo_spec)
