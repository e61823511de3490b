/* ECMP routing over all shortest paths (hosts are never transit nodes).
 * Stored as next-hop sets per (destination attachment, switch), never as an
 * all-pairs list of paths: a single-homed host is reached through its one
 * switch, so the 6,144-host fabric needs tables for its 384 ToRs only.
 * The next hop of a flow at a node is a hash of (flow id, node, seed), so the
 * choices at different tiers are independent draws (Parsimon's code reuses one
 * hash at every hop; see ../shared/notes/parsimon.md). */
#ifndef TAILOR_ROUTING_H
#define TAILOR_ROUTING_H

#include <stdint.h>

#include "tailor/err.h"
#include "tailor/topo.h"

typedef struct tl_routes tl_routes;

/* Longest path a route may have (hops = links). */
#define TL_MAX_HOPS 64

/* Computes routes over the non-failed links of t. Borrows t: it must outlive
 * the routes. Cost: one BFS per destination attachment, O(keys x links). */
tl_routes *tl_routes_create(const tl_topo *t, uint64_t seed, tl_err *err);
/* The same, with extra links down (link_down: n_links flags, copied) without
 * touching the topology: a simulation's view after its own link failures. */
tl_routes *tl_routes_create_masked(const tl_topo *t, uint64_t seed, const uint8_t *link_down,
                                   tl_err *err);
void tl_routes_destroy(tl_routes *r);

/* Recomputes after tl_topo_set_failed changed links. */
int tl_routes_rebuild(tl_routes *r, tl_err *err);

/* The directed channels (2*link + direction) of flow_id's path from host src
 * to host dst, into chans[0..max). Returns the hop count, or a negative TL_E*
 * when src or dst is not a host, src == dst, dst is unreachable, or max is too
 * small. Deterministic in (seed, flow_id, src, dst). O(hops). */
int tl_routes_path(const tl_routes *r, uint64_t flow_id, uint32_t src, uint32_t dst,
                   uint32_t *chans, int max, tl_err *err);

/* The ECMP next-hop set (channels) at node toward host dst; *n = 0 when node
 * is dst or cannot reach it. Borrowed: valid until the next rebuild. For a
 * host, the set is written into buf (room for its degree) and buf is returned. */
const uint32_t *tl_routes_next(const tl_routes *r, uint32_t node, uint32_t dst, uint32_t *buf,
                               uint32_t buf_cap, uint32_t *n);

/* Shortest-path hop count from node to host dst; UINT32_MAX if unreachable. */
uint32_t tl_routes_dist(const tl_routes *r, uint32_t node, uint32_t dst);

const tl_topo *tl_routes_topo(const tl_routes *r);

#endif
