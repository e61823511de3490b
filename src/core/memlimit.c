/* Memory estimates against the machine (see tailor/memlimit.h). */
#include "tailor/memlimit.h"

#include <stdlib.h>
#include <unistd.h>

#include "tailor/units.h"

uint64_t tl_mem_limit_bytes(void)
{
    const char *env = getenv("TAILOR_MAX_MEMORY");
    uint64_t b;
    if (env && env[0] && tl_units_parse_bytes(env, &b) == 0 && b > 0)
        return b;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
}

int tl_mem_check(double est_bytes, const char *what, tl_err *err)
{
    uint64_t lim = tl_mem_limit_bytes();
    if (est_bytes <= (double)lim)
        return 0;
    const char *env = getenv("TAILOR_MAX_MEMORY");
    return tl_err_set(err, TL_ERANGE,
                      "%s: about %.3g GB needed, more than the %.3g GB %s; shrink the input, or "
                      "raise the limit with --max-memory SIZE (TAILOR_MAX_MEMORY) if the "
                      "machine has swap",
                      what, est_bytes / 1e9, (double)lim / 1e9,
                      env && env[0] ? "set by --max-memory (TAILOR_MAX_MEMORY)"
                                    : "of this machine's memory");
}
