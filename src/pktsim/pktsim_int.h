/* pktsim internals shared by its files (see tailor/pktsim.h and docs/pktsim.md).
 *
 * The objects, one file each: the simulation and its event loop (sim.c), a
 * port (port.c: link ring, serialization, one egress queue pair), the switch
 * memory (swmem.c: shared buffer, dynamic threshold, PFC, headroom), the NIC
 * scheduler (nic.c: round robin over connections, pacing), the path store
 * (route.c: interned ECMP paths, indexed by the offset packets carry),
 * endpoints (endpoint.c: the services a transport calls), Parsimon's direct
 * ports (direct.c), and the plug-ins in cc/, lb/, qpolicy/, transport/, tap/.
 *
 * Invariants (checked by tl_pktsim_check_invariants in sim.c):
 *   1. a port's q_bytes equals the wire bytes of the packets in its two queues;
 *   2. a port's ring holds its in-flight packets in non-decreasing arrival
 *      time; when it is non-empty, an EV_ARRIVE for the port is pending, or
 *      (a zero-delay host link) its transmit-done event is armed;
 *   3. a switch's used_bytes equals the q_bytes summed over its ports, less
 *      the bytes its ports' ingress channels hold in headroom;
 *   4. a connection is in its NIC's round-robin ring at most once, and the
 *      ring is a well-formed circular list;
 *   5. every path a packet or subflow names lies inside the path store. */
#ifndef TAILOR_PKTSIM_INT_H
#define TAILOR_PKTSIM_INT_H

#include "cc.h"
#include "lb.h"
#include "qpolicy.h"
#include "tailor/heap.h"
#include "tailor/pktsim.h"
#include "tailor/pool.h"
#include "tailor/rng.h"
#include "tailor/time.h"
#include "tap.h"
#include "transport.h"

enum { EV_ARRIVE = 1, EV_TX_DONE, EV_FLOW_START, EV_TP_TIMER, EV_PFC, EV_CONTROL, EV_LINK_FAIL,
       EV_CC_TIMER, EV_DELIVER, EV_TAP, EV_BLACKHOLE, EV_DIRECT_SETTLE };
#define NONE UINT32_MAX

/* How a port carries data (direct.c): queued as usual, or Parsimon's timed
 * shortcuts (tl_pktsim_set_direct_port / _through). */
enum { PORT_QUEUE = 0, PORT_DIRECT = 1 };

/* A watched direct port's record of the packets it holds (direct.c), so
 * that it marks as a queue would: by the bytes waiting when a packet comes
 * (enqueue marking), or by those that came after it by the time it starts
 * (dequeue marking), known once a later packet comes or that time passes;
 * until then the packet is pending, not yet handed to its destination. */
typedef struct dfifo_ent {
    int64_t start_ps, end_ps; /* its transmission */
    uint64_t cum_bytes;       /* bytes that came to the port up to it, itself included */
    uint32_t pkt, bytes;
} dfifo_ent;
typedef struct dfifo {
    dfifo_ent *e;            /* ring of cap (a power of two) from head */
    uint32_t head, n, cap;
    uint32_t n_pending;      /* the last n_pending entries wait for their dequeue mark */
    uint64_t cum_bytes;      /* bytes that came to the port */
    uint8_t is_settle_armed; /* an EV_DIRECT_SETTLE is pending for the port */
} dfifo;

typedef struct tl_waits tl_waits; /* waits.c */

typedef struct port { /* egress queue of a directed channel, and the link itself */
    uint32_t q_head[2], q_tail[2]; /* 0: high priority (ACK, NACK), 1: data */
    uint64_t q_bytes;
    int64_t busy_until_ps;
    int64_t txdone_ps;   /* when the armed transmit-done event fires */
    uint64_t txdone_seq; /* its seq: an event superseded by an earlier one is ignored */
    uint32_t ring_head, ring_n, ring_cap; /* ring_cap is a power of two */
    uint8_t is_txdone_armed, is_host;
    uint8_t is_paused;      /* PFC: the downstream switch paused this port's data */
    uint8_t is_failed;      /* the link is down: everything sent into it is lost */
    uint8_t is_pause_sent;  /* PFC: this channel's far end has paused it */
    uint8_t impl;           /* PORT_QUEUE or PORT_DIRECT (direct.c) */
    uint8_t is_through;     /* tl_pktsim_set_direct_through: no arrival event at its far end */
    uint8_t pfc_shift;      /* dynamic PFC (switch.pfc_shift > 0): this ingress may hold the
                             * far-end switch's free buffer / 2^pfc_shift */
    uint8_t pclass;         /* tl_port_class: picks its queue policy */
    uint32_t from, to;
    uint32_t sw;      /* switch index of `from`, NONE for a host NIC */
    uint32_t rr_head; /* host NIC: round-robin cursor into its active connections, NONE if none */
    uint64_t rate_bps;
    uint64_t ps_per_byte; /* 8e12 / rate when exact, else 0 (then tl_tx_time_ps) */
    uint32_t memo_bytes;  /* tx_time_memo: the last size timed (0: none) */
    int64_t memo_ps;
    int64_t prop_ps;
    const tl_qpolicy_ops *qp; /* by the port's class */
    void *qp_state;           /* (qp->state_bytes) */
    tl_tap_link *tap;         /* monitors attached to this port, NULL if none */
    struct loss_port *loss;   /* random loss on arrival (loss.c), NULL if none */
    uint32_t *ring_pkt; /* (ring_cap) */
    int64_t *ring_arr_ps;
    uint64_t ingress_bytes; /* PFC: shared-buffer bytes at the far-end switch that arrived over
                             * this channel */
    uint64_t hdrm_bytes;    /* PFC: bytes from this channel held in the far-end switch's
                             * headroom (apart from ingress_bytes and the shared buffer) */
    uint64_t hdrm_cap;      /* PFC: the headroom the far-end switch keeps for this channel */
    /* tl_pktsim_set_pfc_ingress: the channel whose PFC counts and pauses
     * this one's (itself by default), and the next of the channels whose
     * counts this one keeps (NONE: the last) */
    uint32_t pfc_as, pfc_next;
    uint64_t cap_bytes;     /* switch.port_buffer_bytes: this port's own buffer; 0 = shared */
    uint64_t watch_bytes;   /* a watched direct port: its backlog when a packet last crossed it */
    dfifo *fifo;            /* a watched direct port's packets (tl_pktsim_set_direct_port_watched:
                             * the run stops where its switch would pause), NULL for others */
    int64_t paused_since_ps;
    /* statistics */
    uint64_t bytes_tx, pkts_tx, marks, drops, max_q_bytes, max_ingress_bytes, n_pauses;
    int64_t paused_ps;
    double q_area; /* integral of q_bytes over time, byte-ps */
    int64_t q_changed_ps;
} port;

/* INT records of one packet (the INT service). */
typedef struct int_block {
    tl_int_hop hop[TL_MAX_INT_HOPS];
    uint32_t n;
} int_block;

/* The engine's side of a connection (one flow of the workload): where it
 * sends from and its place in the NIC's ring; the transport keeps the rest. */
typedef struct conn {
    uint32_t nic_port;
    uint32_t rr_next, rr_prev;   /* circular list of the NIC's active connections */
    uint32_t run_next, run_prev; /* list of running connections, in index order */
    uint8_t is_in_rr, is_started, is_rx_done, is_tx_done, is_unreachable;
} conn;

struct tl_pktsim {
    const tl_topo *topo;     /* borrowed */
    const tl_routes *routes; /* borrowed: the routes the flows started with */
    tl_routes *own_routes;   /* owned: routes after this simulation's link failures */
    uint8_t *link_down;      /* (n_links) links failed during the run */
    uint64_t n_unreachable;  /* flows cut off by failures: they never complete */
    uint64_t seed;
    struct {
        tl_pktsim_control_fn fn;
        void *ctx;
        int64_t interval_ps;
    } control[TL_PKTSIM_MAX_CONTROLS]; /* the run-time controls, called in the order set */
    int n_controls;
    tl_pktsim_rtt_fn rtt_obs; /* tl_pktsim_set_rtt_observer, NULL if none */
    void *rtt_obs_ctx;
    const tl_flows *flows;   /* borrowed */
    /* plug-ins */
    const tl_transport_ops *tp;
    const tl_cc_ops *cc;
    const tl_lb_ops *lb;
    const tl_qpolicy_ops *qp_class[TL_PORT_N_CLASSES];
    unsigned services;        /* TL_SVC_*: what the transport and CC asked for */
    unsigned char *qp_states; /* per port, at qp_off[c] */
    unsigned char *tp_state;  /* (n_flows, tp->state_bytes) */
    tl_tap *taps;             /* the monitors, a list */
    tl_waits *waits;          /* tl_pktsim_record_waits, NULL if off */
    tl_heap heap;
    /* Transport and CC timers, apart: they are most of the pending events
     * (a finished flow's RTO waits out its deadline; with PFC's 67 ms RTO a
     * DCQCN link simulation held 620 timers beside 20 other events), and
     * each pop of the busy heap paid for their depth. One (t, seq) order
     * over both (seqs from heap), so the run is the same. */
    tl_heap timers;
    tl_pool pkts;
    tl_pool ints; /* int_block, for the INT service */
    tl_rng rng;
    port *ports;         /* (n_ports = 2 * n_links) */
    uint32_t n_ports;
    uint64_t *sw_used;   /* (n_switches) shared-buffer bytes in use */
    uint64_t *sw_watch;  /* (n_nodes, by switch index) watched direct ports' watch_bytes summed:
                          * at least the bytes they hold; NULL until one is set */
    uint32_t *node_sw;   /* (n_nodes) switch index, NONE for hosts */
    conn *cn;            /* (n_flows) */
    uint32_t run_head, run_tail; /* running connections (CC knob changes reach these) */
    tl_subflow *sub;     /* (n_flows * tp->n_subflows) */
    unsigned char *cc_state; /* (n_flows * n_subflows, cc->state_bytes) */
    unsigned char *lb_state; /* (n_flows * n_subflows, lb->state_bytes) */
    /* the path store (route.c) */
    uint32_t *path;      /* channels of interned paths, CSR; a path is named by its offset */
    size_t path_cap, path_used;
    uint32_t *path_ht;   /* open addressing: offset + 1 of an interned path, 0 = empty */
    size_t path_ht_cap, path_n;
    tl_flow_result *res; /* (n_flows) */
    size_t next_start;   /* next flow (in start order) to start */
    /* configuration, from the parameter registry */
    uint32_t mtu_bytes, header_bytes, ack_bytes, ack_every_pkts;
    uint64_t buffer_bytes;
    tl_fabric_ref fabric; /* the references HPCC's T and dctcp-rate's window take */
    double dt_alpha;
    int is_pfc;
    int is_direct_ctrl; /* tl_pktsim_set_direct_acks: control packets as timed events */
    uint64_t pfc_xoff_bytes, pfc_xon_bytes;
    int is_pfc_dynamic; /* switch.pfc_shift > 0: thresholds follow the free buffer */
    int64_t rto_ps;
    int64_t wan_rto_extra_ps; /* nic.wan_rto_extra_ps, flows between data centers */
    int64_t cnp_interval_ps;
    tl_params params; /* owned copy: the run-time control may change it */
    tl_pktsim_stats st;
    tl_err sticky; /* a failed simulation stays failed */
};

/* ---- helpers every file uses ---- */

static inline pkt *P(const tl_pktsim *s, uint32_t i) { return tl_pool_at(&s->pkts, i); }

static inline int64_t tx_time(const port *p, uint32_t bytes)
{
    return p->ps_per_byte ? (int64_t)(bytes * p->ps_per_byte) : tl_tx_time_ps(bytes, p->rate_bps);
}

/* The channel packet k is on at hop: data follows its path; control packets
 * retrace it backwards. */
static inline uint32_t pkt_chan(const tl_pktsim *s, const pkt *k, unsigned hop)
{
    return k->kind == PK_DATA ? s->path[k->path_off + hop]
                              : s->path[k->path_off + k->hops - 1 - hop] ^ 1u;
}

/* The simulation fails (sticky) for want of memory; the run loop stops
 * after the current event. Cold: off the hot path. */
int pktsim_fail_nomem(tl_pktsim *s) __attribute__((cold));

/* Schedules an event; returns its seq, 0 on failure (then the simulation
 * has failed). */
static inline uint64_t push(tl_pktsim *s, int64_t t_ps, uint32_t target, uint16_t kind,
                            uint16_t aux)
{
    uint64_t seq = kind == EV_TP_TIMER || kind == EV_CC_TIMER
                       ? tl_heap_push_seq(&s->timers, t_ps, tl_heap_take_seq(&s->heap), target,
                                          kind, aux)
                       : tl_heap_push(&s->heap, t_ps, target, kind, aux);
    if (__builtin_expect(seq == 0, 0))
        pktsim_fail_nomem(s);
    return seq;
}

/* ---- port.c ---- */
void port_enqueue(tl_pktsim *s, port *p, uint32_t i, int64_t now);
uint32_t port_dequeue(tl_pktsim *s, port *p, int64_t now);
void port_start_tx(tl_pktsim *s, port *p, uint32_t i, int64_t now);
void port_on_arrive(tl_pktsim *s, port *p, int64_t now);
void port_on_txdone(tl_pktsim *s, port *p, int64_t now);
void port_kill(tl_pktsim *s, port *p, int64_t now);
/* tx_time for a packet about to be sent: a port whose rate does not divide
 * 8e12 (Parsimon's residual rates) needs a division, so it remembers the
 * last size it timed, which is nearly always a full packet's. */
static inline int64_t port_tx_time_memo(port *p, uint32_t bytes)
{
    if (p->ps_per_byte)
        return (int64_t)(bytes * p->ps_per_byte);
    if (bytes != p->memo_bytes) {
        p->memo_bytes = bytes;
        p->memo_ps = tl_tx_time_ps(bytes, p->rate_bps);
    }
    return p->memo_ps;
}

static inline void port_q_account(port *p, int64_t now)
{
    p->q_area += (double)p->q_bytes * (double)(now - p->q_changed_ps);
    p->q_changed_ps = now;
}

static inline void port_mark(tl_pktsim *s, port *p, pkt *k)
{
    k->is_ce = 1;
    p->marks++;
    s->st.n_marks++;
}

static inline void port_arm_txdone(tl_pktsim *s, port *p, int64_t at)
{
    /* Armed for later (a paced flow's next send) and now needed sooner
     * (another flow's packet went out and ends first): the earlier event
     * supersedes it; on_txdone works out the next time again. */
    if (!p->is_txdone_armed || at < p->txdone_ps) {
        p->is_txdone_armed = 1;
        p->txdone_ps = at;
        p->txdone_seq = push(s, at, (uint32_t)(p - s->ports), EV_TX_DONE, 0);
    }
}

int ports_build(tl_pktsim *s, tl_err *err);
void ports_free(tl_pktsim *s);

/* ---- swmem.c: the shared buffer of each switch, PFC ---- */
int swmem_admits(const tl_pktsim *s, uint64_t used, uint64_t q_bytes, uint32_t bytes, int is_pfc);
int swmem_take(tl_pktsim *s, port *p, pkt *k, int64_t now); /* 0: dropped */
void swmem_release(tl_pktsim *s, const port *p, const pkt *k, int64_t now);
void swmem_on_pfc(tl_pktsim *s, port *p, int is_pause, int64_t now);
/* Whether switch sw would pause ingress channel in (its PFC threshold,
 * fixed or dynamic) or run out of buffer if that ingress held held bytes
 * beyond what its queues hold. */
int swmem_would_pause(const tl_pktsim *s, const port *in, uint32_t sw, uint64_t held);
void swmem_configure(tl_pktsim *s, int shift, uint64_t port_cap, uint64_t wan_cap);

/* ---- nic.c ---- */
void nic_kick(tl_pktsim *s, port *p, int64_t now);
void nic_add(tl_pktsim *s, port *p, uint32_t c);
void nic_remove(tl_pktsim *s, port *p, uint32_t c);

/* ---- route.c: the path store ---- */
/* The path of flow fi with entropy e (0: the flow's hash alone) under the
 * current routes, interned: *off names it. Returns its hops or < 0. */
int route_path(tl_pktsim *s, uint32_t fi, uint64_t e, uint32_t *off, tl_err *err);
int route_init(tl_pktsim *s, size_t n_flows, tl_err *err);
void route_free(tl_pktsim *s);
int route_on_link_fail(tl_pktsim *s, uint32_t link, int64_t now);

/* ---- endpoint.c ---- */
void ep_deliver(tl_pktsim *s, uint32_t i, int64_t now);
void ep_free_pkt(tl_pktsim *s, uint32_t i);
/* The simulation's error, copied into err; returns its code. */
int sticky_err(const tl_pktsim *s, tl_err *err);

/* ---- faults and random loss (fault.c, loss.c) ---- */

int fault_build(tl_pktsim *s, tl_err *err);
void fault_on_blackhole(tl_pktsim *s, uint32_t chan, int64_t now);
int loss_build(tl_pktsim *s, tl_err *err);
void loss_free(tl_pktsim *s);
/* Whether the random-loss model of port p (p->loss) drops packet k. */
int loss_drops(tl_pktsim *s, port *p, const pkt *k);
/* Tests: the port's data packets whose arrival indices (from 0) are listed,
 * ascending, are dropped instead (idx borrowed). */
int loss_set_pattern(tl_pktsim *s, uint32_t chan, const uint64_t *idx, size_t n, tl_err *err);
/* Packet i is lost in the network (a drop): freed, its payload counted. */
void ep_lose_pkt(tl_pktsim *s, uint32_t i);
int ep_start_flows(tl_pktsim *s, int64_t now);
void ep_on_cc_timer(tl_pktsim *s, uint32_t sub, int64_t now);
void ep_reconfigure(tl_pktsim *s, const char *knob);

/* ---- direct.c: Parsimon's shortcuts ---- */
void direct_cross(tl_pktsim *s, port *q, uint32_t i, int64_t at);
void direct_through(tl_pktsim *s, port *p, uint32_t i, int64_t end);
void direct_send_ctrl(tl_pktsim *s, uint32_t i, int64_t now);
void direct_on_settle(tl_pktsim *s, port *q, int64_t now);

/* ---- tap ---- */
void tap_packet(tl_pktsim *s, port *p, pkt *k, int64_t now);
void taps_on_interval(tl_pktsim *s, uint32_t tap, int64_t now);
void taps_free(tl_pktsim *s);

/* ---- queue waits (waits.c, tl_pktsim_record_waits) ---- */
void waits_enqueued(tl_pktsim *s, const port *p, const pkt *k, uint32_t i, int64_t now);
void waits_started(tl_pktsim *s, const pkt *k, uint32_t i, int64_t now);
void waits_free(tl_pktsim *s);

#endif
