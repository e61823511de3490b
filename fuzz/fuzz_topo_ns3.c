/* Fuzzes the ns-3 HPCC topology.txt reader (tl_topo_load_ns3: counts, switch
 * ids, "a b rate delay error_rate" links), through tl_topo_finish. */
#include "fz.h"

int fz_topo_ns3(const uint8_t *data, size_t n, tl_err *err)
{
    tl_topo *t = tl_topo_load_ns3(fz_temp_file(data, n, ".txt"), err);
    tl_topo_destroy(t);
    return t ? 0 : err->code;
}

FZ_ENTRY(fz_topo_ns3)
