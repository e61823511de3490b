/* The transport plug-in interface of pktsim (docs/pktsim.md "Adding a
 * transport"). A transport owns a connection's sender and receiver: what to
 * send next (data, parity, retransmission), what to do with data that
 * arrives, and with ACKs, NACKs and CNPs. The engine owns the network, the
 * NIC's round robin, the congestion controls and load balancers of the
 * connection's subflows, and the clock; it offers the services below. One
 * implementation per file exports one const table, registered by name in
 * transport/registry.c. */
#ifndef TAILOR_PKTSIM_TRANSPORT_H
#define TAILOR_PKTSIM_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "cc.h"
#include "tailor/err.h"
#include "tailor/pktsim.h"

enum { PK_DATA = 0, PK_ACK, PK_NACK, PK_CNP };
#define TL_NO_PKT UINT32_MAX /* no packet (pool index) */
enum { PKF_PARITY = 1, PKF_TAP_MARK = 2 }; /* pkt.flags; a resent packet starts without TAP_MARK */

typedef struct pkt {
    uint64_t seq;       /* data: first payload byte; ACK/NACK: what the transport echoes */
    int64_t sent_ps;    /* data: send time; ACK: the echoed send time */
    uint64_t entropy;   /* the load balancer's entropy it was sent with (echoed by ACK/NACK) */
    uint32_t next;      /* queue link */
    uint32_t in_chan;   /* the channel it arrived on at this switch (PFC accounting) */
    uint32_t flow;
    uint32_t wire_bytes;
    uint32_t payload_bytes;
    uint32_t path_off; /* the path it follows (route.c): sent packets keep theirs */
    uint32_t int_idx;  /* INT block of a data packet or its ACK, NONE if none */
    uint32_t block;    /* the transport's block id (erasure coding), 0 if unused */
    uint8_t hops;
    uint8_t kind, hop; /* hop: index of the channel it is on, along its direction */
    uint8_t is_ce, is_ece;
    uint8_t sub;    /* subflow index within its connection */
    uint8_t flags;  /* PKF_* */
    uint8_t lb_tag; /* the load balancer's tag (an UnoLB slot), echoed by ACK/NACK */
} pkt;
_Static_assert(sizeof(pkt) == 64, "a packet fills one cache line");

/* One subflow of a connection: its own congestion control, load-balancer
 * entropy and path (a single-path transport has one). Engine-owned. */
typedef struct tl_subflow {
    tl_cc_io io;
    int64_t cc_timer_pending_ps; /* the CC timer event in the heap, 0 = none */
    uint64_t entropy;            /* of the current path */
    uint32_t path_off;           /* current path (route.c) */
    uint8_t hops;
    /* direct control packets (tl_pktsim_set_direct_acks): the reverse
     * path's delay for ctrl_bytes, on the path at ctrl_path_off - 1 (0: none yet) */
    uint32_t ctrl_path_off, ctrl_bytes;
    int64_t ctrl_delay_ps;
} tl_subflow;

/* Services a transport or CC asks for at create. */
enum { TL_SVC_CNP = 1, /* receivers may send CNPs (dcqcn.min_time_between_cnps_ps apart) */
       TL_SVC_INT = 2  /* switches stamp INT records on data packets; ACKs carry them */ };

/* What pull returns besides a packet. */
#define TL_PULL_IDLE INT64_MAX   /* nothing to send until an event: leave the NIC's ring */
#define TL_PULL_BLOCKED (-1)     /* window full: stay in the ring, no wake-up */

typedef struct tl_transport_ops {
    const char *name;
    const char *doc;    /* one paragraph for docs/pktsim.md */
    size_t state_bytes; /* per connection, zeroed */
    uint32_t n_subflows;
    unsigned services;  /* TL_SVC_* it needs itself (the CC's are added) */
    /* The flow starts (its subflows' CCs are initialised). Required. */
    int (*open)(tl_pktsim *s, uint32_t c, int64_t now, tl_err *err);
    /* The NIC may send: returns a data packet (tp_new_data), or NONE and
     * sets *wake to the time it may send next, TL_PULL_BLOCKED or
     * TL_PULL_IDLE. Required. */
    uint32_t (*pull)(tl_pktsim *s, uint32_t c, int64_t now, int64_t *wake);
    /* A data packet reached the receiver (free or reuse it). Required. */
    void (*on_data)(tl_pktsim *s, uint32_t pkt, int64_t now);
    /* An ACK, NACK or CNP reached the sender (free it). Required. */
    void (*on_ctrl)(tl_pktsim *s, uint32_t pkt, int64_t now);
    /* The transport's timer (tp_timer) fired. Optional. */
    void (*on_timer)(tl_pktsim *s, uint32_t c, int64_t now);
    /* A subflow's CC timer changed its rate or window: the connection may
     * send more (e.g. tp_ready and tp_kick if data is left). Required. */
    void (*on_cc_change)(tl_pktsim *s, uint32_t c, int64_t now);
    /* The simulation ends: free what connection c (opened) still holds.
     * Optional; a transport that allocates per connection frees as its
     * flow completes and here for the rest. */
    void (*close)(tl_pktsim *s, uint32_t c);
} tl_transport_ops;

const tl_transport_ops *tl_transport_find(const char *name);
void tl_transport_names(char *buf, size_t n);
extern const tl_transport_ops tl_transport_gbn;
extern const tl_transport_ops tl_transport_stripe;
extern const tl_transport_ops tl_transport_sack;
extern const tl_transport_ops tl_transport_ec;

/* ---- services (endpoint.c) ---- */

/* The transport's state of connection c, and its subflow j. */
void *tp_state(tl_pktsim *s, uint32_t c);
tl_subflow *tp_sub(tl_pktsim *s, uint32_t c, uint32_t j);
const tl_flow *tp_flow(const tl_pktsim *s, uint32_t c);
pkt *tp_pkt(const tl_pktsim *s, uint32_t i);
uint32_t tp_mss(const tl_pktsim *s);
/* The simulation's knobs (a transport's own: tl_params_table(tp_params(s), table)). */
const tl_params *tp_params(const tl_pktsim *s);
/* A data packet of subflow j carrying payload bytes from seq: the load
 * balancer picks its entropy and path, INT is attached if asked for.
 * NONE on failure (the simulation has failed). */
uint32_t tp_new_data(tl_pktsim *s, uint32_t c, uint32_t j, uint64_t seq, uint32_t payload,
                     int64_t now);
/* Sends a control packet (kind PK_ACK/NACK/CNP) back along the data
 * packet's path (path_off, hops), echoing seq, send time, ECN, entropy and
 * subflow; int_idx hands the data packet's INT block over (or NONE). */
void tp_send_ctrl(tl_pktsim *s, uint32_t c, const pkt *data, int kind, uint64_t seq, int is_ece,
                  uint32_t int_idx, int64_t now);
void tp_free(tl_pktsim *s, uint32_t i);
/* Returns an INT block (pkt.int_idx) the transport kept back. */
void tp_free_int(tl_pktsim *s, uint32_t int_idx);
/* The INT records an ACK carries, into a->hops / a->n_hops. */
void tp_int_records(const tl_pktsim *s, const pkt *ack, tl_ack_info *a);
/* Feedback to subflow j's CC: an ACK (or NACK) that acknowledges new data. */
void tp_cc_ack(tl_pktsim *s, uint32_t c, uint32_t j, const tl_ack_info *a, int64_t now);
/* Feedback to the load balancer of ctrl's subflow: an ACK or NACK of a
 * packet sent with ctrl->entropy. */
void tp_lb_ack(tl_pktsim *s, uint32_t c, const pkt *ctrl, int64_t now);
void tp_cc_loss(tl_pktsim *s, uint32_t c, uint32_t j, int64_t now);
/* The transport declared a loss on subflow j (a timeout, a NACK): its load
 * balancer may move paths (UnoLB, PLB). */
void tp_lb_loss(tl_pktsim *s, uint32_t c, uint32_t j, int64_t now);
void tp_cc_cnp(tl_pktsim *s, uint32_t c, uint32_t j, int64_t now);
/* The receiver has every byte: the flow's FCT is recorded. */
void tp_rx_done(tl_pktsim *s, uint32_t c, int64_t now);
/* The sender is done: the connection leaves the NIC and the running list. */
void tp_tx_done(tl_pktsim *s, uint32_t c);
int tp_is_tx_done(const tl_pktsim *s, uint32_t c);
/* The connection may have something to send: into the NIC's ring. */
void tp_ready(tl_pktsim *s, uint32_t c);
/* The connection's NIC looks for work (sends if idle). */
void tp_kick(tl_pktsim *s, uint32_t c, int64_t now);
void tp_timer(tl_pktsim *s, uint32_t c, int64_t at);
/* Run-wide counters the transports keep (tl_pktsim_stats). */
tl_pktsim_stats *tp_stats(tl_pktsim *s);
int64_t tp_rto_ps(const tl_pktsim *s);
/* nic.wan_rto_extra_ps: more for flows between data centers (sack). */
int64_t tp_wan_rto_extra_ps(const tl_pktsim *s);
/* 1 if flow c's hosts sit in different data centers (a two_dc topology). */
int tp_crosses_dcs(const tl_pktsim *s, uint32_t c);
uint32_t tp_ack_every(const tl_pktsim *s);
int64_t tp_cnp_interval_ps(const tl_pktsim *s);
int tp_has_service(const tl_pktsim *s, unsigned svc);
/* A transport's own allocation failed: the run stops with TL_ENOMEM. */
void tp_fail_nomem(tl_pktsim *s);

#endif
