/* Declarations shared inside the workload module. */
#ifndef TAILOR_WORKLOAD_INT_H
#define TAILOR_WORKLOAD_INT_H

#include "tailor/rng.h"
#include "tailor/workload.h"

/* A spatial pattern compiled against one topology: draws (src, dst) host pairs. */
typedef struct spatial_sampler {
    tl_spatial_kind kind;
    const tl_topo *topo;         /* borrowed */
    const uint32_t *hosts;       /* borrowed from topo */
    uint32_t n_hosts;
    double *cum;                 /* matrix: (n_cells) cumulative weights */
    uint32_t *cell_src, *cell_dst; /* matrix: (n_cells) topology rack of each cell */
    size_t n_cells;
    uint32_t *perm;              /* permutation: (n_hosts) destination host index of host i */
    uint32_t *senders, n_senders, incast_dst; /* incast */
    uint32_t **dc_hosts, *dc_n, n_dcs; /* dc mix: hosts of each DC */
    double intra_frac;
} spatial_sampler;

/* Compiles spec for t. Matrix pods map onto topology pods in order, and each
 * pod's racks onto a seeded shuffle of the topology pod's racks (as
 * parsimon-eval's map_to). stream names the seed stream (class index). */
/* The memory limit (tailor/memlimit.h) for n flows of who ("" or "class 'a': "):
 * the array and, about three times it, an engine's state for each flow. */
int flows_check_memory(size_t n, const char *who, tl_err *err);

int spatial_init(spatial_sampler *s, const tl_spatial_spec *spec, const tl_topo *t, uint64_t seed,
                 uint64_t stream, tl_err *err);
void spatial_fini(spatial_sampler *s);
/* The seq-th pair of the class (seq matters for the cyclic patterns). */
void spatial_pair(const spatial_sampler *s, tl_rng *r, uint64_t seq, uint32_t *src, uint32_t *dst);

/* Flow ids name flows in every result: two flows of one id are an error
 * naming both lines of path; lines[i] is flow i's line. O(n log n). */
int tl_flows_check_unique_ids(const tl_flows *f, const size_t *lines, const char *path, tl_err *err);

#endif
