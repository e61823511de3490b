/* Fuzzes tailor's flow CSV (tl_flows_load_csv, "id,src,dst,size,start_ns,class")
 * against a k=4 fat tree, so host ids are checked as `tailor run --flows` does. */
#include "fz.h"
#include "tailor/workload.h"

int fz_flow_csv(const uint8_t *data, size_t n, tl_err *err)
{
    tl_flows f;
    int rc = tl_flows_load_csv(&f, fz_temp_file(data, n, ".csv"), fz_topo(), err);
    if (rc == 0)
        tl_flows_fini(&f);
    return rc;
}

FZ_ENTRY(fz_flow_csv)
