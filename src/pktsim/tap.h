/* Monitor plug-ins of pktsim ("taps", docs/pktsim.md "Adding a tap"): a tap
 * attaches to chosen ports and sees every packet enqueued there, and is
 * called back every interval of simulated time (PARALEON's per-ToR Elastic
 * Sketch, paraleon.txt §IV-A). A port without a tap pays one pointer test.
 * One implementation per file exports one const table, registered by name
 * in tap/registry.c. */
#ifndef TAILOR_PKTSIM_TAP_H
#define TAILOR_PKTSIM_TAP_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"
#include "tailor/params.h"

/* What a tap sees of one packet at one port. */
typedef struct tl_tap_pkt {
    uint32_t chan;      /* the port (directed channel) it is enqueued at */
    uint32_t in_chan;   /* the channel it arrived on (NONE at its source NIC) */
    uint32_t flow, sub; /* its connection (flow index) and subflow */
    uint32_t wire_bytes, payload_bytes;
    uint64_t seq;
    int kind;           /* PK_DATA, PK_ACK, PK_NACK, PK_CNP */
    int is_from_host;   /* it came straight from its source host (first switch) */
    int is_ce;          /* ECN-marked so far */
    int is_marked;      /* a tap marked it at an earlier port (PARALEON's TOS bit) */
} tl_tap_pkt;

/* What a tap is told once, when it is attached. */
typedef struct tl_tap_init {
    const tl_params *params; /* the simulation's knobs (a tap's own are registered elsewhere) */
    size_t n_flows;
    uint32_t n_chans; /* channels of the network (2 x links) */
    uint64_t seed;    /* the scenario's: derive streams with tl_rng_init(seed, name, id) */
    int id;           /* this tap's id (tl_pktsim_add_tap's return) */
} tl_tap_init;

typedef struct tl_tap_ops {
    const char *name;
    const char *doc;
    size_t state_bytes; /* per tap, zeroed */
    /* Optional: reads knobs and allocates; fini must accept a state whose
     * init failed or never ran (all zero). */
    int (*init)(void *st, const tl_tap_init *in, tl_err *err);
    /* Required. Returns nonzero to mark the packet for the ports after this
     * one (taps sharing a port all see the mark as it was on arrival). */
    int (*on_packet)(void *st, const tl_tap_pkt *p, int64_t now_ps);
    void (*on_interval)(void *st, int64_t now_ps); /* optional */
    void (*fini)(void *st);                        /* optional */
} tl_tap_ops;

const tl_tap_ops *tl_tap_find(const char *name);
void tl_tap_names(char *buf, size_t n);
extern const tl_tap_ops tl_tap_count, tl_tap_esketch, tl_tap_esketch_naive, tl_tap_flowtruth,
    tl_tap_netflow;

/* One attached monitor, and its links from ports. */
typedef struct tl_tap {
    const tl_tap_ops *ops;
    void *state;
    int64_t interval_ps;
    struct tl_tap *next;
} tl_tap;

typedef struct tl_tap_link {
    tl_tap *tap;
    struct tl_tap_link *next;
} tl_tap_link;

#endif
