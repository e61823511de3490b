/* Fuzzes the ns-3 HPCC flow.txt reader (tl_flows_load_ns3: a count, then
 * "src dst pg dport size start_s" lines) against a k=4 fat tree. */
#include "fz.h"
#include "tailor/workload.h"

int fz_flow_ns3(const uint8_t *data, size_t n, tl_err *err)
{
    tl_flows f;
    int rc = tl_flows_load_ns3(&f, fz_temp_file(data, n, ".txt"), fz_topo(), err);
    if (rc == 0)
        tl_flows_fini(&f);
    return rc;
}

FZ_ENTRY(fz_flow_ns3)
