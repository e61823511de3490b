/* Fuzzes throughput traffic-matrix files (tl_tm_load: "src dst demand"
 * lines) on the throughput graph of a k=4 fat tree (20 switch nodes), as
 * `tailor throughput --tm FILE` reads them. */
#include <stdlib.h>

#include "fz.h"
#include "tailor/throughput.h"

int fz_tm(const uint8_t *data, size_t n, tl_err *err)
{
    static tl_tgraph g;
    static int is_built;
    if (!is_built) {
        tl_err e;
        tl_err_clear(&e);
        if (tl_tgraph_from_topo(&g, fz_topo(), 0, &e) != 0)
            abort();
        is_built = 1;
    }
    tl_tm tm;
    int rc = tl_tm_load(&g, fz_temp_file(data, n, ".tm"), &tm, err);
    if (rc == 0)
        tl_tm_fini(&tm);
    return rc;
}

FZ_ENTRY(fz_tm)
