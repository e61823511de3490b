/* PARALEON's ternary flow states at one ToR (paraleon.txt §III-A, Fig. 3):
 * every interval the ToR reports the bytes each flow sent in it (its sketch's
 * heavy part); a flow is an elephant (E) once its bytes since first seen,
 * Phi, reach tau; a potential elephant (PE) while Phi < tau and it has sent
 * in each of the last delta intervals; a mouse (M) otherwise. E is final. A
 * PE counts as an elephant with likelihood w = Phi / tau (docs/paraleon.md
 * says why). A flow not reported for idle_intervals intervals is forgotten.
 * Pure: no simulator, so Fig. 4 is a unit test. */
#ifndef TAILOR_TUNE_FLOWSTATE_H
#define TAILOR_TUNE_FLOWSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"

enum { TL_FS_M = 0, TL_FS_PE, TL_FS_E };

typedef struct tl_fs_entry {
    uint32_t flow;
    uint8_t state, run, idle, is_seen; /* run: consecutive intervals with data */
    uint64_t phi;                      /* bytes since first seen */
} tl_fs_entry;

/* One interval's distribution at this ToR (flows reported in it). */
typedef struct tl_fs_counts {
    uint64_t n_e, n_pe, n_m;
    double sum_w; /* the PEs' likelihoods */
} tl_fs_counts;

typedef struct tl_flowstate {
    double tau;
    int delta, idle_intervals;
    tl_fs_entry *tab; /* open addressing, flow == TL_FS_FREE when free */
    size_t cap, n;
} tl_flowstate;

#define TL_FS_FREE UINT32_MAX

int tl_flowstate_init(tl_flowstate *fs, double tau, int delta, int idle_intervals, tl_err *err);
void tl_flowstate_fini(tl_flowstate *fs);
/* Reports bytes > 0 of flow in the current interval (adds if reported twice). */
int tl_flowstate_add(tl_flowstate *fs, uint32_t flow, uint64_t bytes, tl_err *err);
/* Ends the interval: updates every state, counts the reported flows into
 * *c, forgets idle ones. */
int tl_flowstate_close(tl_flowstate *fs, tl_fs_counts *c, tl_err *err);
/* The entry of flow, NULL if not tracked. */
const tl_fs_entry *tl_flowstate_get(const tl_flowstate *fs, uint32_t flow);

#endif
