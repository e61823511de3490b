/* Network topology: hosts, switches and full-duplex links with a rate (bit/s)
 * and a propagation delay (ps). Link i carries two directed channels: 2i (a->b)
 * and 2i+1 (b->a); engines index ports, queues and loads by channel.
 * Built with tl_topo_create/add_node/add_link/finish, or by a generator
 * (fabric, fat tree, leaf-spine, parking lot, two data centers) or a loader
 * (Parsimon JSON, ns-3 HPCC topology.txt).
 *
 * Invariants after tl_topo_finish:
 *   1. node ids are 0..n_nodes-1; hosts have kind TL_NODE_HOST;
 *   2. no self-links; every link endpoint exists; rate_bps > 0, delay_ps >= 0;
 *   3. every host has at least one link; every host has a rack (its first
 *      neighbour switch when the builder gave none); racks are numbered 0..n_racks-1,
 *      every rack has a pod in 0..n_pods-1 (pod 0 when the builder gave none);
 *   4. tier is 0 for hosts and >= 1 for switches (the builder's value, or the hop
 *      distance to the nearest host). */
#ifndef TAILOR_TOPO_H
#define TAILOR_TOPO_H

#include <stdint.h>

#include "tailor/err.h"

typedef enum { TL_NODE_HOST = 0, TL_NODE_SWITCH = 1 } tl_node_kind;

typedef struct tl_node {
    uint8_t kind;  /* tl_node_kind */
    uint8_t tier;  /* 0 host, 1 ToR/edge/leaf, 2 aggregation/fabric, 3 spine/core, 4 border */
    int32_t pod;   /* pod index, -1 if none (spines, borders) */
    int32_t rack;  /* rack index of a host or a ToR, -1 otherwise */
    int32_t dc;    /* data-center index, 0 unless the topology has several */
} tl_node;

typedef struct tl_link {
    uint32_t a, b;
    uint64_t rate_bps;
    int64_t delay_ps;
    double error_rate; /* per-packet loss probability (ns-3 topology.txt column 5) */
    uint8_t is_failed; /* set by tl_topo_set_failed; routing avoids failed links */
} tl_link;

typedef struct tl_topo tl_topo;

#define TL_TIER_AUTO 255 /* add_node: derive the tier from the distance to hosts */

tl_topo *tl_topo_create(tl_err *err);
void tl_topo_destroy(tl_topo *t); /* accepts NULL */

/* Builder. pod/rack/dc may be -1 (unknown); tier may be TL_TIER_AUTO. Return the
 * new id, or -1 with err set (allocation failure; for links also an unknown
 * endpoint, a self-link, rate 0 or negative delay). */
int64_t tl_topo_add_node(tl_topo *t, tl_node_kind kind, int tier, int pod, int rack, int dc,
                         tl_err *err);
int64_t tl_topo_add_link(tl_topo *t, uint32_t a, uint32_t b, uint64_t rate_bps, int64_t delay_ps,
                         tl_err *err);
/* Validates the invariants above and builds adjacency, host and rack indices.
 * Call once after the last add; no add after it. */
int tl_topo_finish(tl_topo *t, tl_err *err);
/* TL_EINVAL unless every host can reach every other over links that are not
 * failed; the message names two hosts in different parts. O(nodes + links). */
int tl_topo_check_connected(const tl_topo *t, tl_err *err);

uint32_t tl_topo_n_nodes(const tl_topo *t);
uint32_t tl_topo_n_links(const tl_topo *t);
uint32_t tl_topo_n_hosts(const tl_topo *t);
uint32_t tl_topo_n_racks(const tl_topo *t);
uint32_t tl_topo_n_pods(const tl_topo *t);
uint32_t tl_topo_n_dcs(const tl_topo *t);
const tl_node *tl_topo_node(const tl_topo *t, uint32_t id);
const tl_link *tl_topo_link(const tl_topo *t, uint32_t id);
/* Node ids of all hosts, in id order (n_hosts). */
const uint32_t *tl_topo_hosts(const tl_topo *t);
/* Host ids of one rack, in id order; *n receives the count. */
const uint32_t *tl_topo_rack_hosts(const tl_topo *t, uint32_t rack, uint32_t *n);
/* Racks of one pod, in rack order. */
const uint32_t *tl_topo_pod_racks(const tl_topo *t, uint32_t pod, uint32_t *n);
/* Directed channels leaving node (chan ids: 2*link + direction). */
const uint32_t *tl_topo_out_chans(const tl_topo *t, uint32_t node, uint32_t *n);

static inline uint32_t tl_chan_link(uint32_t chan) { return chan >> 1; }
uint32_t tl_topo_chan_from(const tl_topo *t, uint32_t chan);
uint32_t tl_topo_chan_to(const tl_topo *t, uint32_t chan);
/* A host's first access channel: the one it sends on, or (is_in) the one
 * that reaches it (the same link's other direction); UINT32_MAX if none. */
uint32_t tl_topo_host_chan(const tl_topo *t, uint32_t host, int is_in);

/* Marks a link failed (or repaired). Routes computed earlier are stale:
 * call tl_routes_rebuild. */
int tl_topo_set_failed(tl_topo *t, uint32_t link, int is_failed, tl_err *err);

/* Per-tier capacity, for oversubscription reports: down = links to a lower
 * tier, up = links to a higher tier, summed over the tier's switches. */
#define TL_MAX_TIERS 8
typedef struct tl_topo_summary {
    uint32_t n_nodes, n_hosts, n_switches, n_links, n_racks, n_pods, n_dcs, n_failed;
    uint32_t n_tiers; /* highest switch tier + 1 */
    uint32_t tier_switches[TL_MAX_TIERS];
    double tier_down_bps[TL_MAX_TIERS], tier_up_bps[TL_MAX_TIERS];
} tl_topo_summary;
void tl_topo_summarize(const tl_topo *t, tl_topo_summary *s);

/* ---- generators (each returns a finished topology, or NULL with err set) ---- */

/* Meta's data-center fabric as Parsimon and m3 evaluate it (parsimon.txt §5.1):
 * racks of hosts under a ToR; every ToR links to each of the pod's `planes`
 * fabric switches; fabric switch i of every pod links to all spines of plane i.
 * Node order: hosts, ToRs, fabric switches, spines (parsimon-eval's order). */
typedef struct tl_fabric_params {
    uint32_t pods, racks_per_pod, hosts_per_rack, planes, spines_per_plane;
    uint64_t host_bps, fabric_bps; /* defaults 10 Gb/s and 40 Gb/s */
    int64_t delay_ps;              /* per link; default 1 us */
} tl_fabric_params;
tl_topo *tl_topo_fabric(const tl_fabric_params *p, tl_err *err);

/* k-ary fat tree (Al-Fares et al.): k pods of k/2 edge and k/2 aggregation
 * switches, (k/2)^2 cores. hosts_per_edge > k/2 oversubscribes the edge
 * (0 means k/2). */
typedef struct tl_fattree_params {
    uint32_t k, hosts_per_edge;
    uint64_t host_bps, fabric_bps;
    int64_t delay_ps;
} tl_fattree_params;
tl_topo *tl_topo_fattree(const tl_fattree_params *p, tl_err *err);

/* Two-tier leaf-spine: every leaf links to every spine. */
typedef struct tl_leafspine_params {
    uint32_t leaves, spines, hosts_per_leaf;
    uint64_t host_bps, fabric_bps;
    int64_t delay_ps;
} tl_leafspine_params;
tl_topo *tl_topo_leafspine(const tl_leafspine_params *p, tl_err *err);

/* n-hop parking lot (the path topology of m3 §3.2): switches S0..Sn in a chain
 * of n links at chain_bps, each switch with hosts_per_switch hosts at host_bps,
 * so a flow from a host of S0 to a host of Sn crosses all n chain links while
 * cross traffic joins and leaves at every switch. */
typedef struct tl_parking_params {
    uint32_t hops, hosts_per_switch;
    uint64_t host_bps, chain_bps;
    int64_t delay_ps;
} tl_parking_params;
tl_topo *tl_topo_parking_lot(const tl_parking_params *p, tl_err *err);

/* Two data centers (uno.txt §5.1): two k-ary fat trees, one border switch per
 * DC linked to every core switch of its DC by core_border_links links, and the
 * two border switches joined by inter_dc_links WAN links of wan_delay_ps. */
typedef struct tl_twodc_params {
    uint32_t k, core_border_links, inter_dc_links;
    uint64_t host_bps, fabric_bps, wan_bps;
    int64_t delay_ps, wan_delay_ps;
} tl_twodc_params;
tl_topo *tl_topo_two_dc(const tl_twodc_params *p, tl_err *err);

/* ---- throughput families (topology-throughput.txt) ---- */

/* The ten families of topology-throughput.txt §III-A.3 besides the fat tree, and
 * the same-equipment random graph of §IV that normalises their throughput. Every
 * link (switch-switch, host-switch and, in server-centric networks, host-host)
 * runs at link_bps (10 Gb/s when 0) with a 1 us delay. In the direct networks
 * (all but BCube and DCell) each switch has servers_per_switch hosts; node ids are
 * hosts first (host i of switch s is s*servers_per_switch + i), then switches in
 * the family's own order; host links come first, then switch links. Each returns a
 * finished topology, or NULL with err naming the bad parameter (TL_ERANGE for a
 * value out of range, TL_EINVAL for an impossible combination). Costs are linear
 * in the number of links unless stated. */

/* Jellyfish (Singla et al., NSDI'12): a random degree-regular graph of n_switches
 * switches with `degree` network ports each, simple and connected, drawn from
 * (seed, "jellyfish") by random pairing, edge-swap repair and 10 edge switches per
 * link (near-uniform; gen_random.c). The same seed gives the same link list. Needs
 * 1 <= degree < n_switches, n_switches*degree even, and degree >= 2 unless
 * n_switches == 2. Cost: linear in links, a few microseconds each. */
tl_topo *tl_topo_jellyfish(uint32_t n_switches, uint32_t degree, uint32_t servers_per_switch,
                           uint64_t seed, uint64_t link_bps, tl_err *err);

/* Hypercube: 2^dim switches, switch u linked to u ^ (1 << i) for i < dim (dim >= 1). */
tl_topo *tl_topo_hypercube(uint32_t dim, uint32_t servers_per_switch, uint64_t link_bps,
                           tl_err *err);

/* Flattened butterfly (Kim, Dally, Abts, ISCA'07): k^n_dims switches, each a
 * base-k vector of n_dims digits, linked to every switch that differs in exactly
 * one digit (network degree n_dims*(k-1)). Kim et al.'s k-ary n-flat has
 * n_dims = n - 1: the paper's "5-ary 3-stage" example, 25 switches and 125
 * servers, is tl_topo_flattened_butterfly(5, 2, 5, ...). k >= 2, n_dims >= 1. */
tl_topo *tl_topo_flattened_butterfly(uint32_t k, uint32_t n_dims, uint32_t servers_per_switch,
                                     uint64_t link_bps, tl_err *err);

/* HyperX (Ahn et al., SC'09): the Hamming graph K_sizes[0] x ... x
 * K_sizes[n_dims-1], each pair of switches differing in one coordinate joined by
 * `multiplicity` parallel links. Coordinate 0 varies fastest in switch ids.
 * sizes[i] >= 2, n_dims >= 1, multiplicity >= 1. */
tl_topo *tl_topo_hyperx(const uint32_t *sizes, uint32_t n_dims, uint32_t multiplicity,
                        uint32_t servers_per_switch, uint64_t link_bps, tl_err *err);

/* Dragonfly (Kim, Dally, Scott, Abts, ISCA'08): g = a*h + 1 groups of `a`
 * switches, fully meshed inside a group; p servers and h global links per switch;
 * every pair of groups joined by exactly one global link, the links of a group
 * handed to its switches round-robin (gen_families.c gives the exact rule).
 * Switch r of group i has id n_hosts + i*a + r, and group i is pod i. */
tl_topo *tl_topo_dragonfly(uint32_t a, uint32_t p, uint32_t h, uint64_t link_bps, tl_err *err);

/* Slim Fly (Besta and Hoefler, SC'14): the McKay-Miller-Siran graph for a prime
 * q = 4w + delta, delta in {-1, 0, 1}: 2q^2 switches of network degree
 * (3q - delta)/2, diameter 2. Switch (0,x,y) has index x*q + y, (1,m,c) has
 * q^2 + m*q + c. Prime powers (which need GF(p^n)) are refused. */
tl_topo *tl_topo_slimfly(uint32_t q, uint32_t servers_per_switch, uint64_t link_bps, tl_err *err);

/* BCube_k (Guo et al., SIGCOMM'09) of n-port switches: n^(k+1) servers, hosts
 * with k+1 links each, and k+1 levels of n^k switches; the level-l switch of a
 * server joins the n servers whose base-n addresses differ only in digit l.
 * Hosts are ids 0..n^(k+1)-1 (their address), then switches level by level; a
 * host's first link is to its level-0 switch, its rack. n >= 2. */
tl_topo *tl_topo_bcube(uint32_t n, uint32_t k, uint64_t link_bps, tl_err *err);

/* DCell_k (Guo et al., SIGCOMM'08) built from DCell_0 = n servers on one switch:
 * DCell_l joins t_{l-1} + 1 copies of DCell_{l-1} (t_l servers), copies i < j by
 * the server link [i, j-1] - [j, i]. Servers are hosts with k+1 links (their
 * DCell_0 switch first, then one per level); hosts are ids 0..t_k-1, switch s
 * (serving hosts s*n .. s*n+n-1) is t_k + s. n >= 2. */
tl_topo *tl_topo_dcell(uint32_t n, uint32_t k, uint64_t link_bps, tl_err *err);

/* Long Hop (Tomic, ANCS'13): a Cayley graph of Z_2^dim on 2^dim switches whose
 * generators are the unit vectors and the parity columns of a shortened
 * [dim + r, dim, 3] Hamming code, r the least with 2^r - r - 1 >= dim, so the
 * network degree is dim + r (gen_families.c states the rule and its source).
 * Connected, simple and regular; dim in 3..30. */
tl_topo *tl_topo_longhop(uint32_t dim, uint32_t servers_per_switch, uint64_t link_bps,
                         tl_err *err);

/* Same-equipment random graph (topology-throughput.txt §IV): a random graph with
 * t's switches, each with the same number of switch-to-switch links (parallel
 * links counted) of the same (rate, delay) as in t, and the same single-homed
 * hosts with their own link rate and delay. Links of different (rate, delay) are
 * paired separately, so each switch keeps its mix. Connected, and simple unless
 * parallel links are unavoidable: the degree sequence, or that of one (rate, delay)
 * class, fails Erdos-Gallai (a HyperX whose multiplicity exceeds what distinct
 * neighbours can carry; tl_topo_two_dc's WAN links, all between its two border
 * switches), or, with several classes, 16 draws found no simple graph.
 * Server-centric inputs (hosts with several links, BCube and DCell) are handled by
 * treating each such host as a switch carrying one server, whose host link takes
 * the rate and delay of the host's first link; the result then has more nodes than
 * t. Failed links of t count as equipment; the result has none. Drawn like
 * Jellyfish, from (seed, "same_equipment"); the same seed gives the same link
 * list. Node ids: hosts first, grouped by switch, then switches in t's id order
 * (t's switches and multi-homed hosts). TL_EINVAL when no connected graph exists
 * (a switch without switch links, fewer than n-1 links, two hosts linked with no
 * switch). */
tl_topo *tl_topo_same_equipment(const tl_topo *t, uint64_t seed, tl_err *err);
/* The same with the servers of t's switches spread over all switches in
 * proportion to their ports (switch links + servers; largest remainders, ties
 * to the lower id), each switch keeping its port count: Jellyfish's "same
 * equipment" and TopoBench's baseline for fat trees (a random regular graph of
 * the fat tree's switches with its servers spread evenly). Server-centric
 * nodes keep their server. Needs switch-to-switch links of one (rate, delay);
 * a graph-drawing stream of its own ("same_equipment_spread"). */
tl_topo *tl_topo_same_equipment_spread(const tl_topo *t, uint64_t seed, tl_err *err);

/* A topology named in one line: "family:key=value,...". Families and keys:
 * fat_tree (k, servers), leaf_spine (leaves, spines, servers), fabric (pods,
 * racks, servers, planes, spines), jellyfish (switches, degree, servers,
 * seed), hypercube (dim, servers), flattened_butterfly (k, n, servers), hyperx
 * (sizes=AxBx..., multiplicity, servers), dragonfly (a, p, h), slimfly (q,
 * servers), bcube (n, k), dcell (n, k), longhop (dim, servers); every family
 * also takes link_bps (default 10 Gb/s; fat_tree and leaf_spine 100 Gb/s).
 * seed is used where the spec gives none. */
tl_topo *tl_topo_from_spec(const char *spec, uint64_t seed, tl_err *err);

/* ---- files ---- */

/* Parsimon JSON: {"nodes":[{"id":0,"kind":"Host"|"Switch"}],
 * "links":[{"a":0,"b":4,"bandwidth":bps,"delay":ns}]}. Errors name the file,
 * line:column and JSON path. */
tl_topo *tl_topo_load_parsimon(const char *path, tl_err *err);
int tl_topo_save_parsimon(const tl_topo *t, const char *path, tl_err *err);

/* ns-3 HPCC topology.txt: "nodes switches links", the switch ids, then
 * "a b rate delay error_rate" per link (rate like 100Gbps, delay like 1000ns). */
tl_topo *tl_topo_load_ns3(const char *path, tl_err *err);
int tl_topo_save_ns3(const tl_topo *t, const char *path, tl_err *err);

#endif
