/* pktsim internals shared by its files (see tailor/pktsim.h and docs/pktsim.md).
 *
 * Invariants (checked by check_invariants in engine.c):
 *   1. a port's q_bytes equals the wire bytes of the packets in its two queues;
 *   2. a port's ring holds its in-flight packets in non-decreasing arrival
 *      time; when it is non-empty, exactly one EV_ARRIVE for the port is pending;
 *   3. a switch's used_bytes equals the q_bytes summed over its ports;
 *   4. for every flow snd_una <= snd_nxt <= size and rcv_nxt <= size. */
#ifndef TAILOR_PKTSIM_INT_H
#define TAILOR_PKTSIM_INT_H

#include "cc.h"
#include "lb.h"
#include "qpolicy.h"
#include "tailor/heap.h"
#include "tailor/pktsim.h"
#include "tailor/pool.h"
#include "tailor/rng.h"

enum { EV_ARRIVE = 1, EV_TX_DONE, EV_FLOW_START, EV_RTO, EV_PFC, EV_CONTROL, EV_LINK_FAIL, EV_CC_TIMER,
       EV_CTRL_DIRECT };
enum { PK_DATA = 0, PK_ACK, PK_NACK, PK_CNP };
#define NONE UINT32_MAX

typedef struct pkt {
    uint64_t seq;       /* data: first payload byte; ACK/NACK: cumulative ack */
    int64_t sent_ps;    /* data: send time; ACK: the echoed send time */
    uint32_t next;      /* queue link */
    uint32_t in_chan;   /* the channel it arrived on at this switch (PFC accounting) */
    uint32_t flow;
    uint32_t wire_bytes;
    uint32_t payload_bytes;
    uint32_t path_off; /* the path it follows (a re-routed flow's old packets keep theirs) */
    uint32_t int_idx;  /* INT block (tl_pktsim.ints) of a data packet or its ACK, NONE if none */
    uint8_t hops;
    uint8_t kind, hop; /* hop: index of the channel it is on, along its direction */
    uint8_t is_ce, is_ece;
} pkt;

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
    uint8_t is_direct;      /* tl_pktsim_set_direct_port: data crosses it as a timed delivery */
    uint8_t is_through;     /* tl_pktsim_set_direct_through: no arrival event at its far end */
    uint8_t pfc_shift;      /* dynamic PFC (switch.pfc_shift > 0): this ingress may hold the
                             * far-end switch's free buffer / 2^pfc_shift */
    uint32_t from, to;
    uint32_t sw;      /* switch index of `from`, NONE for a host NIC */
    uint32_t rr_head; /* host NIC: round-robin cursor into its active flows, NONE if none */
    uint64_t rate_bps;
    uint64_t ps_per_byte; /* 8e12 / rate when exact, else 0 (then tl_tx_time_ps) */
    uint32_t memo_bytes;  /* tx_time_memo: the last size timed (0: none) */
    int64_t memo_ps;
    int64_t prop_ps;
    void *qp_state;     /* this port's queue-policy state (in tl_pktsim.qp_states) */
    uint32_t *ring_pkt; /* (ring_cap) */
    int64_t *ring_arr_ps;
    uint64_t ingress_bytes; /* PFC: shared-buffer bytes at the far-end switch that arrived over
                             * this channel */
    uint64_t hdrm_bytes;    /* PFC: bytes from this channel held in the far-end switch's
                             * headroom (apart from ingress_bytes and the shared buffer) */
    uint64_t hdrm_cap;      /* PFC: the headroom the far-end switch keeps for this channel */
    int64_t paused_since_ps;
    /* statistics */
    uint64_t bytes_tx, pkts_tx, marks, drops, max_q_bytes, max_ingress_bytes, n_pauses;
    int64_t paused_ps;
    double q_area; /* integral of q_bytes over time, byte-ps */
    int64_t q_changed_ps;
} port;

/* INT records of one packet (cc->uses_int). */
typedef struct int_block {
    tl_int_hop hop[TL_MAX_INT_HOPS];
    uint32_t n;
} int_block;

typedef struct flow_rt {
    uint64_t size_bytes;
    uint64_t snd_nxt, snd_una, rcv_nxt, nacked_at;
    int64_t start_ps, next_send_ps, rto_deadline_ps;
    uint32_t path_off;
    uint8_t hops, is_started, is_rx_done, is_tx_done;
    uint8_t is_rto_armed, is_in_rr, is_unreachable;
    uint16_t unacked_pkts; /* receiver: in-order packets not yet acknowledged (coalescing) */
    int64_t last_cnp_ps;   /* receiver: when it last sent a CNP */
    int64_t cc_timer_pending_ps; /* the CC timer event in the heap, 0 = none */
    uint32_t rr_next, rr_prev; /* circular list of the NIC's active flows */
    uint32_t nic_port;
    uint64_t entropy; /* the load balancer's entropy of the current path */
    /* direct control packets (tl_pktsim_set_direct_acks): the reverse
     * path's delay for ctrl_bytes, on the path at ctrl_path_off - 1 (0: none yet) */
    int64_t ctrl_delay_ps;
    uint32_t ctrl_path_off, ctrl_bytes;
    tl_cc_io io;
} flow_rt;

struct tl_pktsim {
    const tl_topo *topo;     /* borrowed */
    const tl_routes *routes; /* borrowed: the routes the flows started with */
    tl_routes *own_routes;   /* owned: routes after this simulation's link failures */
    uint8_t *link_down;      /* (n_links) links failed during the run */
    uint64_t n_unreachable;  /* flows cut off by failures: they never complete */
    size_t path_cap, path_used;
    uint64_t seed;
    tl_pktsim_control_fn control;
    void *control_ctx;
    int64_t control_interval_ps;
    const tl_flows *flows;   /* borrowed */
    const tl_cc_ops *cc;
    const tl_qpolicy_ops *qp;
    const tl_lb_ops *lb;
    unsigned char *qp_states; /* (n_ports, qp->state_bytes) */
    unsigned char *lb_state;  /* (n_flows, lb->state_bytes) */
    tl_heap heap;
    tl_pool pkts;
    tl_pool ints; /* int_block, for CCs that use INT */
    int64_t cnp_interval_ps;
    tl_rng rng;
    port *ports;         /* (n_ports = 2 * n_links) */
    uint32_t n_ports;
    uint64_t *sw_used;   /* (n_switches) shared-buffer bytes in use */
    uint32_t *node_sw;   /* (n_nodes) switch index, NONE for hosts */
    flow_rt *fl;         /* (n_flows) */
    unsigned char *cc_state; /* (n_flows, cc->state_bytes) */
    uint32_t *path;      /* flows' channels, CSR by fl[i].path_off */
    tl_flow_result *res; /* (n_flows) */
    size_t next_start;   /* next flow (in start order) to start */
    /* configuration, from the parameter registry */
    uint32_t mtu_bytes, header_bytes, ack_bytes, ack_every_pkts;
    uint64_t buffer_bytes;
    double dt_alpha;
    int is_pfc;
    int is_direct_ctrl; /* tl_pktsim_set_direct_acks: control packets as timed events */
    uint64_t pfc_xoff_bytes, pfc_xon_bytes;
    int is_pfc_dynamic; /* switch.pfc_shift > 0: thresholds follow the free buffer */
    int64_t rto_ps;
    tl_params params; /* owned copy: the run-time control may change it */
    tl_pktsim_stats st;
    tl_err sticky; /* a failed simulation stays failed */
};

#endif
