/* LD_PRELOAD shim: csg-htsim's HPCCSrc seeds the C RNG with time(NULL) when each
   source is built, which makes its path entropy (and so the ECMP paths) change
   from run to run.  Pinning time() makes htsim_hpcc runs reproducible. */
#include <time.h>
time_t time(time_t *t) { if (t) *t = 1700000000; return 1700000000; }
