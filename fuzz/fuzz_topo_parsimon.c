/* Fuzzes Parsimon's topology JSON (tl_topo_load_parsimon: "nodes" and
 * "links" arrays), through tl_topo_finish. */
#include "fz.h"

int fz_topo_parsimon(const uint8_t *data, size_t n, tl_err *err)
{
    tl_topo *t = tl_topo_load_parsimon(fz_temp_file(data, n, ".json"), err);
    tl_topo_destroy(t);
    return t ? 0 : err->code;
}

FZ_ENTRY(fz_topo_parsimon)
