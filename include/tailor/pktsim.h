/* pktsim: the packet-level discrete-event simulator, the ground truth every
 * estimator is judged against (the role ns-3 and htsim play in parsimon.txt
 * §5.1 and m3.txt §5.1). One simulation is one self-contained object: no
 * globals, so many can run in parallel threads (Parsimon's link simulations).
 *
 * Model (docs/pktsim.md): output-queued switches over a shared buffer with a
 * dynamic threshold, drop-tail; ECN marking per port (step or RED, at enqueue
 * or dequeue); a strict high-priority queue for ACKs; links serialize at their
 * rate then delay by their propagation time; hosts serve their active flows
 * round-robin at line rate, each flow limited by its window and/or pacing
 * rate, both owned by a congestion-control plug-in; the transport (go-back-N
 * by default), load balancer, queue policies and monitors are plug-ins too
 * (tl_pktsim_opts, tl_pktsim_add_tap). */
#ifndef TAILOR_PKTSIM_H
#define TAILOR_PKTSIM_H

#include <stdint.h>

#include "tailor/err.h"
#include "tailor/params.h"
#include "tailor/progress.h"
#include "tailor/result.h"
#include "tailor/routing.h"
#include "tailor/topo.h"
#include "tailor/workload.h"

/* Bumped whenever a change alters pktsim's results for the same input, so
 * that stored ground truth (tailor demo's out/cache/) is not reused across
 * it. 2: a NIC re-arms its transmit-done earlier than a paced flow's wake.
 * 3: the retransmission timer stops when all is acknowledged, lossless
 * fabrics time out after nic.rto_lossless_ps, and PFC switches keep
 * headroom. 4: fabric-wide HPCC T and dctcp-rate window, TIMELY's
 * rate-scaled steps, a switch buffer that scales with the host links.
 * 5: a rate change moves a paced flow's pending send. */
#define TL_PKTSIM_RESULTS_REV 5

typedef struct tl_pktsim tl_pktsim;

/* Builds a simulation of flows f on topology t with routes r, transport knobs
 * p and congestion control cc ("dctcp", "dctcp-rate"). Borrows t, r, f and p:
 * they must outlive the simulation (p is copied). Each flow follows its ECMP
 * path from r. */
tl_pktsim *tl_pktsim_create(const tl_topo *t, const tl_routes *r, const tl_flows *f,
                            const tl_params *p, const char *cc, uint64_t seed, tl_err *err);
void tl_pktsim_destroy(tl_pktsim *s);

/* The classes of ports, each with its own queue policy. */
typedef enum tl_port_class {
    TL_PORT_HOST = 0, /* a host's NIC */
    TL_PORT_DC,       /* a switch port inside a data center */
    TL_PORT_WAN,      /* a port of a link between two data centers (tl_node.dc differs) */
    TL_PORT_N_CLASSES
} tl_port_class;

/* Fabric-wide references, as the ns-3 HPCC fork's third.cc computes them
 * (maxRtt, maxBdp): the largest, over all pairs of hosts, of the shortest-hop
 * path's round trip (twice its propagation delay plus one MTU payload's
 * serialization per hop) and of that round trip times the path's slowest
 * link; and the fastest host link. HPCC's T, dctcp-rate's window and the
 * automatic switch buffer (switch.buffer_bytes 0) come from them. */
typedef struct tl_fabric_ref {
    int64_t rtt_ps;
    uint64_t bdp_bytes;
    uint64_t nic_bps;
    /* The same over the pairs of hosts in one data center (tl_node.dc):
     * Uno's intra-DC RTT and BDP (uno.txt Table 2). Equal to rtt_ps and
     * bdp_bytes in a one-DC network. */
    int64_t intra_rtt_ps;
    uint64_t intra_bdp_bytes;
} tl_fabric_ref;
int tl_fabric_ref_of(const tl_topo *t, uint32_t mtu_bytes, tl_fabric_ref *out, tl_err *err);
/* Bytes of shared buffer per switch: switch.buffer_bytes, or when that is 0,
 * floor(16 x nic_bps / 50 Gb/s) MiB (at least 1 MiB), as the HPCC fork's
 * run.py sizes BUFFER_SIZE from the NIC rate. */
uint64_t tl_pktsim_buffer_bytes(const tl_params *p, uint64_t nic_bps);

/* The plug-ins of one simulation, by registry name; NULL picks the default
 * (cc "dctcp", transport "gbn", lb "ecmp", qpolicy "red" on every class).
 * fabric: the references of the whole network when the simulation is a
 * piece of it (Parsimon's link simulations, m3's path simulations); NULL
 * computes them from the simulated topology. */
typedef struct tl_pktsim_opts {
    const char *cc;
    const char *transport;
    const char *lb;
    const char *qpolicy[TL_PORT_N_CLASSES];
    const tl_fabric_ref *fabric;
} tl_pktsim_opts;

/* Whether pktsim has a plug-in of kind ("lb", "qpolicy" or "transport")
 * called name; when it has not, known gets the names it has ("a, b"). */
int tl_pktsim_has_plugin(const char *kind, const char *name, char *known, size_t n);

/* tl_pktsim_create with plug-ins chosen by o. An unknown name is EINVAL,
 * naming what is available. */
tl_pktsim *tl_pktsim_create_opts(const tl_topo *t, const tl_routes *r, const tl_flows *f,
                                 const tl_params *p, const tl_pktsim_opts *o, uint64_t seed,
                                 tl_err *err);

/* Attaches a monitor (tap registry name, e.g. "count") to the n channels
 * chans: it sees every packet enqueued there, and, when interval_ps > 0, is
 * called back every interval_ps of simulated time. Returns its id (>= 0),
 * or a negative TL_E*. Before the run. */
int tl_pktsim_add_tap(tl_pktsim *s, const char *name, const uint32_t *chans, size_t n,
                      int64_t interval_ps, tl_err *err);
/* The state of tap id (its plug-in's state struct), NULL if none. */
void *tl_pktsim_tap_state(const tl_pktsim *s, int id);

/* Asserts the invariants of pktsim_int.h (O(ports + flows + packets); for
 * tests and debug builds). */
void tl_pktsim_check_invariants(const tl_pktsim *s);

/* Runs until every flow has completed or simulated time reaches until_ps
 * (0 = no limit; negative = until no event is left, i.e. the last ACKs and
 * timers have drained too). A failed run stays failed: later calls return the
 * same error. */
int tl_pktsim_run(tl_pktsim *s, int64_t until_ps, tl_progress *prog, tl_err *err);

/* ---- run-time control (paraleon.txt §III: a controller reads network
 * metrics and changes congestion-control parameters while traffic runs) ---- */

/* Called every interval of simulated time; it may read metrics
 * (tl_pktsim_get_stats, tl_pktsim_port_stats) and change knobs
 * (tl_pktsim_set_param). A non-zero return stops the run with that code.
 * Up to TL_PKTSIM_MAX_CONTROLS controls (a queue trace, a monitor, a tuner)
 * each keep their own interval; at the same instant they run in the order
 * they were set. Calls stop once every flow is done. */
#define TL_PKTSIM_MAX_CONTROLS 4
typedef int (*tl_pktsim_control_fn)(void *ctx, tl_pktsim *s, int64_t now_ps);
int tl_pktsim_set_control(tl_pktsim *s, int64_t interval_ps, tl_pktsim_control_fn fn, void *ctx,
                          tl_err *err);

/* Called with every RTT sample a sender takes (an ACK of flow, rtt_ps after
 * its data was sent), before its congestion control sees it: per-flow RTTs
 * for a monitor (paraleon.txt Eq. 1's O_RTT). NULL removes it. */
typedef void (*tl_pktsim_rtt_fn)(void *ctx, uint32_t flow, int64_t rtt_ps, int64_t now_ps);
void tl_pktsim_set_rtt_observer(tl_pktsim *s, tl_pktsim_rtt_fn fn, void *ctx);

/* The rules between knobs that their ranges cannot say (Kmax >= Kmin,
 * PFC's xon below xoff), as tl_pktsim_create and tl_pktsim_set_param apply
 * them; TL_ERANGE naming the knobs. */
int tl_pktsim_check_params(const tl_params *p, tl_err *err);

/* Sets a registered knob from now on, on every NIC and switch: switch knobs
 * take effect at once on every port, CC knobs on every running flow (through
 * the CC's reconfigure), NIC knobs on the next packet. */
int tl_pktsim_set_param(tl_pktsim *s, const char *name, double value, tl_err *err);

/* Takes a link down (both directions) at at_ps: packets queued for it or on
 * the wire are dropped and counted, and every unfinished flow is re-routed
 * around it (packets already sent keep their path). A flow left without a
 * route is reported unfinished. */
int tl_pktsim_fail_link(tl_pktsim *s, uint32_t link, int64_t at_ps, tl_err *err);

/* Blackholes channel chan from at_ps (uno.txt §5.3): every packet sent into
 * it is lost, and routing does not know: flows keep their paths unless
 * their load balancer moves them. Switch channels only (EINVAL for a host's
 * NIC). The knobs fault.* place blackholes at create. */
int tl_pktsim_blackhole(tl_pktsim *s, uint32_t chan, int64_t at_ps, tl_err *err);

/* Direct ACKs (an option for Parsimon's link-level simulations, whose reverse
 * links carry nothing but these ACKs): from now on ACKs, NACKs and CNPs are
 * not simulated as packets but reach their sender as one timed event after
 * the reverse path's serialization and propagation delays, without queueing.
 * About halves the events of a link-level run. Off by default. */
void tl_pktsim_set_direct_acks(tl_pktsim *s, int is_on);

/* Direct delivery on a switch-to-host channel (an option for Parsimon's
 * link-level simulations, whose downstream links are a FIFO each): while
 * direct ACKs are on, a data packet that reaches the switch is not queued on
 * chan but handed to the host at once, timed as a FIFO at chan's rate would
 * send it (after chan's earlier packets) plus chan's propagation delay. The
 * packet is ECN-marked by chan's queue policy against the backlog ahead of it
 * (dequeue marking: it stands for the queue the packet would leave behind,
 * which later packets make; enqueue marking: with the packet itself). No
 * event, drop, PFC or INT record happens on chan. Saves one event per packet.
 * EINVAL if chan is not a switch-to-host channel. */
int tl_pktsim_set_direct_port(tl_pktsim *s, uint32_t chan, tl_err *err);
/* 0 if tl_pktsim_set_direct_port would take chan, else its error (EINVAL),
 * without setting anything. */
int tl_pktsim_can_direct_port(const tl_pktsim *s, uint32_t chan, tl_err *err);
/* As tl_pktsim_set_direct_port, also where chan could queue under PFC
 * (not with INT): the direct ports set so at a switch are watched, and the
 * run stops with TL_EPAUSE the moment they would together hold more than
 * the PFC threshold of a packet's ingress channel, where queues would have
 * paused it. Until then no PAUSE would have been sent, so the run is the
 * one with queues but for the direct port's marking (its backlog stands
 * for the queue); after TL_EPAUSE the caller runs it again with queues
 * (Parsimon does, docs/parsimon.md). Without PFC the same as
 * tl_pktsim_set_direct_port. */
int tl_pktsim_set_direct_port_watched(tl_pktsim *s, uint32_t chan, tl_err *err);

/* Direct through (for the link itself in Parsimon's link-level topologies):
 * while direct ACKs are on, a data packet that starts its transmission on
 * chan has no arrival event at chan's far end. If that end is a host, the
 * packet is delivered there at the end of its transmission plus chan's
 * delay; if it is a switch, the packet crosses the direct port it leaves by
 * (tl_pktsim_set_direct_port, set first) as that option describes. Valid
 * only if every flow that reaches chan's far end does so over chan (so its
 * packets come to the far end in the order they leave chan) and, past a
 * switch, leaves by a direct port: EINVAL otherwise. Flow paths must not
 * change afterwards (no link failures, no load balancer that moves flows
 * to other paths; a link-level topology has one path per flow). Saves one
 * event per packet. */
int tl_pktsim_set_direct_through(tl_pktsim *s, uint32_t chan, tl_err *err);

/* Sets the propagation delay of channels chan[0..n), which no flow's data
 * crosses: only control packets do (ACKs, NACKs, CNPs), so it is the delay
 * they see on their way back over those links, and it counts in the flows'
 * base RTT as the reverse half of the link. Parsimon's link simulations
 * start a source's flows its propagation delay late, give its link no
 * delay forward and twice that delay back (docs/parsimon.md). Before the
 * run only; EINVAL if a flow sends data over one of them. Flows' paths
 * must not change afterwards (no link failures, no load balancer that
 * moves flows to other paths). */
int tl_pktsim_set_ctrl_delays(tl_pktsim *s, const uint32_t *chan, const int64_t *delay_ps,
                              size_t n, tl_err *err);

/* Diagnostics (docs/accuracy.md, "Where Parsimon's error comes from"):
 * records, per flow and switch port of its path, how much later its latest
 * data packet started there than it would have with only its own flow's
 * packets at that port (its wait for other flows), for the first max_hops
 * hops (1-255). Before the run; the results do not change. */
int tl_pktsim_record_waits(tl_pktsim *s, int max_hops, tl_err *err);
/* Flow i's waits by hop index along its path (max_hops of them; 0 at its
 * source's NIC, which makes a packet as it sends it, and past its path),
 * NULL if waits are not recorded. */
const int64_t *tl_pktsim_flow_waits(const tl_pktsim *s, size_t i);

/* PFC counts the packets that come in over channel chan at its far-end
 * switch as if they had come over as_chan (to the same switch), and a PAUSE
 * for as_chan pauses chan too: channels that stand for one link into the
 * switch (the sources of a Parsimon link simulation that reach u over one
 * channel in the network). Before the run; chan must count as itself and
 * as_chan must not count as another. */
int tl_pktsim_set_pfc_ingress(tl_pktsim *s, uint32_t chan, uint32_t as_chan, tl_err *err);

/* The channels of flow i's current path; *hops receives the count. */
const uint32_t *tl_pktsim_flow_path(const tl_pktsim *s, size_t i, int *hops);
/* Flow i's congestion state now (its first subflow's): window (UINT64_MAX:
 * none) and pacing rate (0: line rate). */
void tl_pktsim_flow_cc(const tl_pktsim *s, size_t i, uint64_t *cwnd_bytes, uint64_t *rate_bps);

/* The congestion controls pktsim implements are those of the CC registry
 * (tailor/cc.h) whose descriptor has ops. 1 if the named CC lets a lone flow
 * send at its line rate from its first packet (rate-based CCs, and HPCC's
 * one-BDP window); 0 if its window grows from an initial one (dctcp) or the
 * name is unknown or not implemented. */
int tl_pktsim_cc_is_line_rate_start(const char *cc);

/* Per-flow results, indexed like f->v (valid after run). */
const tl_flow_result *tl_pktsim_results(const tl_pktsim *s);

/* Counters of a run. */
typedef struct tl_pktsim_stats {
    uint64_t n_events, n_link_hops; /* link-hop: one packet (data or ACK) crossing one link */
    uint64_t n_data_pkts, n_ack_pkts, n_drops, n_marks, n_timeouts, n_retx_pkts, n_cnps;
    uint64_t bytes_sent, bytes_delivered; /* payload: first transmissions, in-order arrivals */
    uint64_t bytes_retx;                  /* payload sent again (go-back-N, timeouts) */
    uint64_t n_flows_done, n_flows_active, n_flows_unreachable;
    uint64_t n_fail_drops;           /* packets lost with failed links */
    uint64_t n_headroom_pkts;        /* PFC: packets a full shared buffer sent to headroom */
    uint64_t n_loss_drops;           /* packets the random-loss model dropped (loss.*) */
    uint64_t bytes_lost;             /* payload of data packets lost in the network, any cause */
    uint64_t bytes_parity;           /* payload of parity and padding packets first sent (ec) */
    uint64_t bytes_arrived;          /* payload reaching receivers, duplicates and surplus too:
                                      * sent + parity + retx = arrived + lost + in flight */
    uint64_t n_nacks;                /* NACKs a sender took (ec: a block asked for more) */
    uint64_t n_rtt_samples;          /* ACKs that carried an RTT sample */
    double rtt_sum_ps, rtt_max_ps;   /* over those samples */
    uint64_t max_pending_events; /* largest event-heap population seen */
    int64_t now_ps;
} tl_pktsim_stats;
void tl_pktsim_get_stats(const tl_pktsim *s, tl_pktsim_stats *st);

/* Per-channel (directed link) statistics, 2 * n_links entries. */
typedef struct tl_port_stats {
    uint64_t bytes_tx, pkts_tx, marks, drops;
    uint64_t max_queue_bytes;
    double mean_queue_bytes; /* time average over the run */
    uint64_t queue_bytes_now;
    uint64_t n_pauses;           /* PFC PAUSE frames that reached this port */
    int64_t paused_ps;           /* time this port's data was paused */
    uint64_t max_ingress_bytes;  /* PFC: most bytes the far-end switch held from this channel */
} tl_port_stats;
void tl_pktsim_port_stats(const tl_pktsim *s, uint32_t chan, tl_port_stats *out);

/* PFC: the share of the run so far that the channels carrying packets spent
 * paused, on average over them (*mean) and at the most paused one (*most;
 * both 0 before any packet); returns the PAUSE frames that reached any
 * port. O(channels). */
int64_t tl_pktsim_paused_share(const tl_pktsim *s, double *mean, double *most);

/* The run record's counters of the run so far (bytes delivered and resent,
 * drops, timeouts, PAUSE frames and paused shares) into r; the rest of r is
 * left as it is (tl_run_info_init fills it). */
void tl_pktsim_run_counters(const tl_pktsim *s, tl_run_info *r);

#endif
