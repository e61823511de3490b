/* Internal layout of tl_topo, shared by the builder, generators and loaders. */
#ifndef TAILOR_TOPO_INT_H
#define TAILOR_TOPO_INT_H

#include <stddef.h>

#include "tailor/topo.h"

struct tl_topo {
    tl_node *nodes; /* (n_nodes) */
    tl_link *links; /* (n_links) */
    uint32_t n_nodes, n_links, cap_nodes, cap_links;
    int is_finished;

    /* Built by tl_topo_finish. */
    uint32_t *out_off, *out_chan; /* CSR: channels leaving node i are out_chan[out_off[i]..out_off[i+1]) */
    uint32_t *hosts, n_hosts;
    uint32_t *rack_off, *rack_hosts, n_racks; /* CSR of hosts per rack */
    uint32_t *pod_off, *pod_racks, n_pods;    /* CSR of racks per pod */
    uint32_t n_dcs;
};

/* Most nodes or links a generator builds or a loader accepts: 2^22 (4,194,304), far
 * beyond the data centers of the papers (10^4 hosts) yet a topology of a few hundred
 * MB built in seconds; counts from input beyond it (a spec "dcell:n=3,k=4" asks for
 * 6*10^8 servers) are refused before anything is allocated. ids are uint32_t, racks
 * and pods int32_t: both hold far more. */
#define TL_TOPO_MAX_COUNT (1u << 22)

/* Saturating arithmetic for the size checks of generators, whose counts are
 * products of caller-given parameters (STYLE.md: check products input can overflow). */
static inline uint64_t tl_sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
static inline uint64_t tl_sat_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* TL_ERANGE unless both counts are at most TL_TOPO_MAX_COUNT. */
static inline int tl_topo_check_count(uint64_t n_nodes, uint64_t n_links, tl_err *err)
{
    if (n_nodes <= TL_TOPO_MAX_COUNT && n_links <= TL_TOPO_MAX_COUNT)
        return 0;
    return tl_err_at(err, TL_ERANGE, NULL, 0, 0, NULL,
                     "expected at most %u nodes and %u links, the parameters give %llu nodes "
                     "and %llu links",
                     TL_TOPO_MAX_COUNT, TL_TOPO_MAX_COUNT, (unsigned long long)n_nodes,
                     (unsigned long long)n_links);
}

/* Parameter checks of generators; name is the parameter, reported as the error's path. */
static inline int tl_topo_require_count(const char *name, uint32_t v, tl_err *err)
{
    return v ? 0 : tl_err_at(err, TL_ERANGE, NULL, 0, 0, name, "expected >= 1, found 0");
}
static inline int tl_topo_require_delay(const char *name, int64_t delay_ps, tl_err *err)
{
    if (delay_ps >= 0)
        return 0;
    return tl_err_at(err, TL_ERANGE, NULL, 0, 0, name, "expected a delay >= 0 ps, found %lld",
                     (long long)delay_ps);
}

/* Adds one k-ary fat tree to an unfinished t (gen_fattree.c): its hosts, edge,
 * aggregation and core switches in that order, pods numbered from pod_base and
 * racks (= edge switches) from rack_base, every node in data center dc. p must have
 * hosts_per_edge, rates and delay resolved (no zero defaults left). Its (k/2)^2 core
 * switches get consecutive ids from *first_core_id. Returns 0 or a TL_E* code. */
int tl_topo_add_fattree(tl_topo *t, const tl_fattree_params *p, int pod_base, int rack_base, int dc,
                        uint32_t *first_core_id, tl_err *err);

#endif
