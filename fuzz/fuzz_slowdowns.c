/* Fuzzes the per-flow result CSV as `tailor compare` reads it for its CDF
 * plot (tl_slowdowns_load_csv: the fct.csv header, sizes and slowdowns). */
#include "fz.h"
#include "tailor/compare.h"

int fz_slowdowns(const uint8_t *data, size_t n, tl_err *err)
{
    tl_slowdowns s;
    int rc = tl_slowdowns_load_csv(&s, fz_temp_file(data, n, ".csv"), err);
    if (rc == 0)
        tl_slowdowns_fini(&s);
    return rc;
}

FZ_ENTRY(fz_slowdowns)
