/* Queue waits per flow and hop, a diagnostic (docs/accuracy.md, "Where
 * Parsimon's error comes from"): how much later each flow's latest data
 * packet started at each switch port of its path than it would have with
 * only its own flow's packets there. Alone, a port sends a flow's packets
 * in turn as they come (start = max(arrival, the end of its previous
 * packet there)); waiting behind its own packets is not another flow's
 * doing (a flow that reaches a slower link in a burst queues there alone,
 * which its ideal FCT already counts), while a packet held up behind an
 * own packet that others held up still counts. A host's NIC makes a data
 * packet as it sends it, so a source has no wait here: what a flow lost
 * before its first hop (its NIC shared with its host's other flows, its
 * congestion control holding it back) is its FCT in excess of its ideal
 * less these waits. Off by default; a port then pays one pointer test per
 * data packet. */
#include <stdlib.h>

#include "pktsim_int.h"

struct tl_waits {
    int64_t *alone_ps; /* (cap) by packet pool index: when it would start alone */
    uint32_t cap;
    int max_hops;      /* hops kept per flow */
    int64_t *wait_ps;  /* (n_flows * max_hops) */
    int64_t *end_ps;   /* (n_flows * max_hops) when its latest packet there would end alone */
};

int tl_pktsim_record_waits(tl_pktsim *s, int max_hops, tl_err *err)
{
    if (max_hops < 1 || max_hops > 255)
        return tl_err_set(err, TL_ERANGE, "waits: %d hops per flow, expected 1 to 255", max_hops);
    if (s->waits || s->st.n_events)
        return tl_err_set(err, TL_EINVAL, "waits: recorded already, or the run has begun");
    tl_waits *w = calloc(1, sizeof *w);
    if (!w)
        return tl_err_nomem(err);
    w->max_hops = max_hops;
    size_t n = (s->flows->n ? s->flows->n : 1) * (size_t)max_hops;
    w->wait_ps = calloc(n, sizeof *w->wait_ps);
    w->end_ps = calloc(n, sizeof *w->end_ps);
    if (!w->wait_ps || !w->end_ps) {
        free(w->wait_ps), free(w->end_ps), free(w);
        return tl_err_nomem(err);
    }
    s->waits = w;
    return 0;
}

const int64_t *tl_pktsim_flow_waits(const tl_pktsim *s, size_t i)
{
    return s->waits ? s->waits->wait_ps + i * (size_t)s->waits->max_hops : NULL;
}

void waits_enqueued(tl_pktsim *s, const port *p, const pkt *k, uint32_t i, int64_t now)
{
    tl_waits *w = s->waits;
    if (i >= w->cap) { /* the packet pool grew */
        uint32_t ncap = s->pkts.cap > i ? s->pkts.cap : i + 1;
        int64_t *e = realloc(w->alone_ps, (size_t)ncap * sizeof *e);
        if (!e) {
            pktsim_fail_nomem(s);
            return;
        }
        w->alone_ps = e;
        w->cap = ncap;
    }
    if (k->hop >= w->max_hops)
        return;
    int64_t *end = &w->end_ps[(size_t)k->flow * (size_t)w->max_hops + k->hop];
    int64_t start = now > *end ? now : *end;
    w->alone_ps[i] = start;
    *end = start + tx_time(p, k->wire_bytes);
}

void waits_started(tl_pktsim *s, const pkt *k, uint32_t i, int64_t now)
{
    tl_waits *w = s->waits;
    if (i < w->cap && k->hop < w->max_hops)
        w->wait_ps[(size_t)k->flow * (size_t)w->max_hops + k->hop] = now - w->alone_ps[i];
}

void waits_free(tl_pktsim *s)
{
    if (!s->waits)
        return;
    free(s->waits->alone_ps);
    free(s->waits->end_ps);
    free(s->waits->wait_ps);
    free(s->waits);
    s->waits = NULL;
}
