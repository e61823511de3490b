/* flowsim internals shared by its files (see tailor/flowsim.h). */
#ifndef TAILOR_FLOWSIM_INT_H
#define TAILOR_FLOWSIM_INT_H

#include "tailor/flowsim.h"
#include "tailor/heap.h"

typedef struct flist { /* the active flows on one link */
    uint32_t *v;
    uint32_t n, cap;
} flist;

typedef struct share_ent {
    double share; /* remaining capacity / unfrozen flows when pushed, bit/s */
    uint32_t link;
} share_ent;

struct tl_flowsim {
    /* links (directed channels in network mode, path links in path mode) */
    uint32_t n_links;
    double *cap_bps; /* (n_links) */
    flist *lf;       /* (n_links) */
    /* flows */
    size_t n_flows;
    int64_t *start_ps;   /* (n_flows) sorted */
    double *wire_bits;   /* (n_flows) payload plus one header per packet */
    int64_t *latency_ps; /* (n_flows) propagation + first packet's store-and-forward off the bottleneck */
    double *flow_cap;    /* (n_flows) the most it can get: min(private access, slowest link) */
    uint32_t *path_off;  /* (n_flows) into path and pos */
    uint8_t *hops;       /* (n_flows) */
    uint32_t *path;      /* links of every flow */
    uint32_t *pos;       /* flow's index in each of its links' lists */
    tl_flow_result *res; /* (n_flows) */
    /* dynamic state */
    double *rate, *new_rate, *rem_bits; /* (n_flows) */
    int64_t *t_last;                   /* (n_flows) when rem_bits was last brought up to date */
    uint64_t *ev_seq;                  /* (n_flows) seq of the live completion event */
    int64_t *ev_at_ps, *due_ps;        /* (n_flows) that event's time; the projected finish */
    uint8_t *is_active;                /* (n_flows) */
    size_t next_arrival, n_active, n_done;
    tl_heap heap;
    /* refill scratch */
    uint32_t epoch;
    uint32_t *link_stamp, *n_unfrozen; /* (n_links) */
    double *rem_cap;                              /* (n_links) */
    double *ub_sum; /* (n_links) sum of flow_cap over the link's active flows */
    uint32_t *flow_stamp, *frozen_stamp;          /* (n_flows) */
    uint32_t *comp_links, n_comp_links;           /* (n_links) */
    uint32_t *comp_flows, n_comp_flows, *capped;  /* (n_flows) */
    share_ent *sh;                                /* (sh_cap) */
    size_t sh_n, sh_cap;
    tl_flowsim_stats st;
    tl_err sticky;
};

/* Asserts the invariants listed in flowsim.c (O(links x flows); tests). */
void tl_flowsim_check_invariants(const tl_flowsim *s);

#endif
