/* Fuzzes rack-to-rack traffic matrix files (tl_matrix_load on a path:
 * "racks N", "pods P", pod ranges, N rows of N weights). */
#include "fz.h"
#include "tailor/workload.h"

int fz_matrix(const uint8_t *data, size_t n, tl_err *err)
{
    tl_matrix m;
    int rc = tl_matrix_load(&m, fz_temp_file(data, n, ".txt"), err);
    if (rc == 0)
        tl_matrix_fini(&m);
    return rc;
}

FZ_ENTRY(fz_matrix)
