/* Fuzzes flow-size CDF files (tl_sizedist_load on a path: "size_bytes
 * cumulative_percent" lines, data/README.md) and, when one loads, its
 * inverse CDF at the ends and the middle. */
#include "fz.h"
#include "tailor/sizedist.h"

int fz_cdf(const uint8_t *data, size_t n, tl_err *err)
{
    tl_sizedist d;
    int rc = tl_sizedist_load(&d, fz_temp_file(data, n, ".txt"), err);
    if (rc == 0) {
        volatile double sink = tl_sizedist_icdf(&d, 0) + tl_sizedist_icdf(&d, 0.5) +
                               tl_sizedist_icdf(&d, 1);
        (void)sink;
        tl_sizedist_fini(&d);
    }
    return rc;
}

FZ_ENTRY(fz_cdf)
