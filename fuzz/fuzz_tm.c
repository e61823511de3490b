/* Fuzzes throughput traffic-matrix files (tl_tm_load: "src dst demand"
 * lines) as `tailor throughput --tm FILE` reads them: first checked alone
 * (no graph, before the topology is built), then on the throughput graph of
 * a k=4 fat tree (20 switch nodes). */
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
    const char *path = fz_temp_file(data, n, ".tm");
    tl_tm tm;
    int rc = tl_tm_load(NULL, path, &tm, err);
    if (rc != 0)
        return rc;
    tl_tm_fini(&tm);
    rc = tl_tm_load(&g, path, &tm, err);
    if (rc == 0)
        tl_tm_fini(&tm);
    return rc;
}

FZ_ENTRY(fz_tm)
