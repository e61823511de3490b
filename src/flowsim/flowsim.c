/* Max-min fair flow-level simulation (see tailor/flowsim.h, m3.txt appendix A).
 *
 * Invariants (checked by check_invariants in debug builds and tests):
 *   1. a link's active-flow list holds exactly the active flows whose path
 *      includes it, and each such flow records its position in that list;
 *   2. an active flow's rate is > 0 and at most its cap and every link's
 *      capacity; the rates on a link sum to at most its capacity (tolerance
 *      1e-9 relative);
 *   3. an active flow has exactly one live completion event, whose seq it
 *      remembers; rem_bits >= 0.
 *
 * Work per event: a BFS over the flow-link graph from the changed flow's
 * links finds the connected component (max-min allocations of different
 * components are independent), then progressive filling on that component
 * with a heap of link fair shares: O((F_c h + L_c) log L_c). m3's flowSim
 * refills every link and flow from scratch at every event, O(L^2 F).
 *
 * Only coupling links count: a link whose flows' caps (each flow's slowest
 * link or private access) sum to at most its capacity can never be
 * saturated, so it constrains nobody and is left out of the problem; with
 * every flow capped at its slowest link the feasible rates are the same, so
 * the max-min allocation is too (it is unique). In a data-center fabric most
 * core links carry a few host-limited flows and drop out, which keeps
 * components small. */
#define _GNU_SOURCE /* qsort_r */
#include "flowsim_int.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/time.h"

enum { EV_ARRIVAL = 1, EV_COMPLETION = 2 };

/* Schedules an event; a heap that cannot grow fails the run (sticky), which
 * the run loop checks after every event. Returns the seq, 0 on failure. */
static inline uint64_t push(tl_flowsim *s, int64_t t_ps, uint32_t target, uint16_t kind)
{
    uint64_t seq = tl_heap_push(&s->heap, t_ps, target, kind, 0);
    if (__builtin_expect(seq == 0, 0))
        tl_err_nomem(&s->sticky);
    return seq;
}

/* ---- the share heap: (share, link), entries refreshed lazily (see freeze) ---- */

static void sh_push(tl_flowsim *s, double share, uint32_t link)
{
    size_t i = s->sh_n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (s->sh[p].share <= share)
            break;
        s->sh[i] = s->sh[p];
        i = p;
    }
    s->sh[i] = (share_ent){share, link};
}

/* Puts x at slot i or below it, moving smaller children up: the one
 * sift-down of both the build and the pop. */
static inline void sh_sift_down(tl_flowsim *s, size_t i, share_ent x)
{
    size_t n = s->sh_n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && s->sh[c + 1].share < s->sh[c].share)
            c++;
        if (x.share <= s->sh[c].share)
            break;
        s->sh[i] = s->sh[c];
        i = c;
    }
    s->sh[i] = x;
}

/* Floyd's bottom-up build over the entries already in s->sh: O(n) instead
 * of n pushes (the initial shares of a component). */
static void sh_heapify(tl_flowsim *s)
{
    for (size_t start = s->sh_n / 2; start-- > 0;)
        sh_sift_down(s, start, s->sh[start]);
}

static int sh_pop(tl_flowsim *s, share_ent *out)
{
    if (s->sh_n == 0)
        return 0;
    *out = s->sh[0];
    share_ent last = s->sh[--s->sh_n];
    if (s->sh_n)
        sh_sift_down(s, 0, last);
    return 1;
}

/* ---- link membership ---- */

static inline int is_coupling(const tl_flowsim *s, uint32_t l)
{
    return s->ub_sum[l] > s->cap_bps[l] * (1 + 1e-9);
}

/* Whether any link of f's path is coupling. When none is (with f counted
 * in), f runs at its cap, and neither its arrival nor its departure changes
 * another flow's rate: its links bind nobody with it, so none without it,
 * and f is on no other link. Most events of a path-level run in m3 are
 * such (0.19 coupling links per refill at 2M flows): this skips their
 * component search. */
static int touches_coupling(const tl_flowsim *s, uint32_t f)
{
    for (uint32_t k = 0; k < s->hops[f]; k++)
        if (is_coupling(s, s->path[s->path_off[f] + k]))
            return 1;
    return 0;
}

static void link_add(tl_flowsim *s, uint32_t f)
{
    for (uint32_t k = 0; k < s->hops[f]; k++) {
        uint32_t l = s->path[s->path_off[f] + k];
        flist *fl = &s->lf[l];
        s->ub_sum[l] += s->flow_cap[f];
        if (fl->n == fl->cap) {
            uint32_t ncap = fl->cap ? 2 * fl->cap : 4;
            uint32_t *v = realloc(fl->v, ncap * sizeof *v);
            if (!v) {
                tl_err_nomem(&s->sticky);
                return;
            }
            fl->v = v;
            fl->cap = ncap;
        }
        s->pos[s->path_off[f] + k] = fl->n;
        fl->v[fl->n++] = f;
    }
}

/* The hop index of link l on flow f's path. */
static uint32_t hop_of(const tl_flowsim *s, uint32_t f, uint32_t l)
{
    for (uint32_t k = 0; k < s->hops[f]; k++)
        if (s->path[s->path_off[f] + k] == l)
            return k;
    assert(0);
    return 0;
}

static void link_remove(tl_flowsim *s, uint32_t f)
{
    for (uint32_t k = 0; k < s->hops[f]; k++) {
        uint32_t l = s->path[s->path_off[f] + k];
        flist *fl = &s->lf[l];
        s->ub_sum[l] -= s->flow_cap[f];
        if (fl->n == 1)
            s->ub_sum[l] = 0; /* no drift once the link is empty */
        uint32_t at = s->pos[s->path_off[f] + k];
        uint32_t moved = fl->v[--fl->n];
        if (at != fl->n) {
            fl->v[at] = moved;
            s->pos[s->path_off[moved] + hop_of(s, moved, l)] = at;
        }
    }
}

/* ---- refill: the component around seed links, by progressive filling ---- */

static void visit_flow(tl_flowsim *s, uint32_t f)
{
    if (s->flow_stamp[f] == s->epoch)
        return;
    s->flow_stamp[f] = s->epoch;
    s->comp_flows[s->n_comp_flows++] = f;
    for (uint32_t k = 0; k < s->hops[f]; k++) {
        uint32_t m = s->path[s->path_off[f] + k];
        if (s->link_stamp[m] != s->epoch && is_coupling(s, m)) {
            s->link_stamp[m] = s->epoch;
            s->comp_links[s->n_comp_links++] = m;
        }
    }
}

/* The flows whose rates may change: on an arrival, the new flow and what it
 * reaches through coupling links; on a departure, every flow on the departed
 * flow's links (a link may just have stopped coupling them) and what those
 * reach. comp_links (coupling links only) doubles as the BFS queue. */
static void collect_component(tl_flowsim *s, uint32_t seed_flow, int is_departure)
{
    s->epoch++;
    s->n_comp_links = s->n_comp_flows = 0;
    if (!is_departure)
        visit_flow(s, seed_flow);
    else
        for (uint32_t k = 0; k < s->hops[seed_flow]; k++) {
            const flist *fl = &s->lf[s->path[s->path_off[seed_flow] + k]];
            for (uint32_t j = 0; j < fl->n; j++)
                visit_flow(s, fl->v[j]);
        }
    for (uint32_t qi = 0; qi < s->n_comp_links; qi++) {
        const flist *fl = &s->lf[s->comp_links[qi]];
        for (uint32_t j = 0; j < fl->n; j++)
            visit_flow(s, fl->v[j]);
    }
}

static int cmp_cap(const void *a, const void *b, void *ctx)
{
    const double *cap = ctx;
    double x = cap[*(const uint32_t *)a], y = cap[*(const uint32_t *)b];
    return (x > y) - (x < y);
}

/* Freezes flow f at rate x: its links lose x of capacity and one unfrozen
 * flow. Their heap entries are left as they are: x is the smallest share
 * left, so every other link's share can only rise ((rem - x)/(n - 1) >= rem/n),
 * and a popped entry whose share has risen is pushed back with the new one
 * (lazy increase) instead of pushing one entry per frozen flow and hop. */
static void freeze(tl_flowsim *s, uint32_t f, double x)
{
    s->new_rate[f] = x;
    s->frozen_stamp[f] = s->epoch;
    for (uint32_t k = 0; k < s->hops[f]; k++) {
        uint32_t m = s->path[s->path_off[f] + k];
        s->rem_cap[m] -= x;
        if (s->rem_cap[m] < 0)
            s->rem_cap[m] = 0;
        s->n_unfrozen[m]--;
    }
}

/* Sets f's projected finish. A flow keeps its one live event when that event
 * is not later than the new finish (it fires early and is pushed back), and
 * gets a new one only when the finish moves earlier: arrivals slow flows down
 * far more often than completions speed them up, so the heap stays near the
 * number of active flows instead of collecting a stale entry per refill. */
static void schedule(tl_flowsim *s, uint32_t f, int64_t now)
{
    double t = s->rem_bits[f] / s->rate[f] * 1e12;
    int64_t at = now + (int64_t)ceil(t);
    s->due_ps[f] = at;
    if (s->ev_seq[f] && s->ev_at_ps[f] <= at)
        return;
    s->ev_at_ps[f] = at;
    s->ev_seq[f] = push(s, at, f, EV_COMPLETION);
}

static void refill(tl_flowsim *s, uint32_t seed_flow, int is_departure, int64_t now)
{
    collect_component(s, seed_flow, is_departure);
    s->st.links_refilled += s->n_comp_links;
    s->st.flows_refilled += s->n_comp_flows;
    s->sh_n = 0;
    for (uint32_t i = 0; i < s->n_comp_links; i++) {
        uint32_t l = s->comp_links[i];
        s->rem_cap[l] = s->cap_bps[l];
        s->n_unfrozen[l] = s->lf[l].n;
        if (s->n_unfrozen[l])
            s->sh[s->sh_n++] = (share_ent){s->rem_cap[l] / s->n_unfrozen[l], l};
    }
    sh_heapify(s);
    /* Every flow is capped (its slowest link at least); in cap order. */
    uint32_t n_capped = s->n_comp_flows;
    memcpy(s->capped, s->comp_flows, n_capped * sizeof *s->capped);
    if (n_capped > 1)
        qsort_r(s->capped, n_capped, sizeof *s->capped, cmp_cap, s->flow_cap);
    uint32_t ci = 0, n_left = s->n_comp_flows;
    share_ent e;
    while (n_left > 0) {
        while (ci < n_capped && s->frozen_stamp[s->capped[ci]] == s->epoch)
            ci++;
        int have = 0;
        while (!have && sh_pop(s, &e)) {
            uint32_t nu = s->n_unfrozen[e.link];
            if (nu == 0)
                continue;
            double now_share = s->rem_cap[e.link] / nu;
            if (now_share > e.share)
                sh_push(s, now_share, e.link); /* risen since it was pushed */
            else
                have = 1;
        }
        if (ci < n_capped && (!have || s->flow_cap[s->capped[ci]] < e.share)) {
            if (have)
                sh_push(s, e.share, e.link); /* not used this round */
            uint32_t f = s->capped[ci++];
            freeze(s, f, s->flow_cap[f]);
            n_left--;
            continue;
        }
        if (!have)
            break; /* cannot happen: every flow crosses a link */
        const flist *fl = &s->lf[e.link];
        for (uint32_t j = 0; j < fl->n; j++) {
            uint32_t f = fl->v[j];
            if (s->frozen_stamp[f] != s->epoch) {
                freeze(s, f, e.share);
                n_left--;
            }
        }
    }
    /* Advance each flow to now at its old rate, then move it to its new rate. */
    for (uint32_t i = 0; i < s->n_comp_flows; i++) {
        uint32_t f = s->comp_flows[i];
        double r = s->new_rate[f];
        if (r == s->rate[f])
            continue; /* same projected finish: its event stands */
        s->rem_bits[f] -= s->rate[f] * (double)(now - s->t_last[f]) * 1e-12;
        if (s->rem_bits[f] < 0)
            s->rem_bits[f] = 0;
        s->t_last[f] = now;
        s->rate[f] = r;
        schedule(s, f, now);
    }
}

/* ---- events ---- */

static void on_arrival(tl_flowsim *s, int64_t now)
{
    while (s->next_arrival < s->n_flows && s->start_ps[s->next_arrival] <= now) {
        uint32_t f = (uint32_t)s->next_arrival++;
        s->is_active[f] = 1;
        s->rem_bits[f] = s->wire_bits[f];
        s->rate[f] = 0;
        s->t_last[f] = now;
        link_add(s, f);
        if (++s->n_active > s->st.max_active_flows)
            s->st.max_active_flows = s->n_active;
        s->st.n_events++;
        if (touches_coupling(s, f))
            refill(s, f, 0, now);
        else { /* alone on every link it crosses: its cap, nobody else moves */
            s->rate[f] = s->new_rate[f] = s->flow_cap[f];
            schedule(s, f, now);
        }
    }
    if (s->next_arrival < s->n_flows)
        push(s, s->start_ps[s->next_arrival], 0, EV_ARRIVAL);
}

static void on_completion(tl_flowsim *s, uint32_t f, int64_t now)
{
    s->is_active[f] = 0;
    s->n_active--;
    s->n_done++;
    s->res[f].fct_ps = now - s->start_ps[f] + s->latency_ps[f];
    s->st.n_events++;
    /* Off links that constrain nobody, its departure changes no rate. */
    int was_coupled = touches_coupling(s, f);
    link_remove(s, f);
    s->rate[f] = 0;
    s->ev_seq[f] = 0;
    /* The flows that shared its links are refilled: seed from its own links. */
    if (was_coupled)
        refill(s, f, 1, now);
}

int tl_flowsim_run(tl_flowsim *s, tl_progress *prog, tl_err *err)
{
    if (s->sticky.code) {
        if (err)
            *err = s->sticky;
        return s->sticky.code;
    }
    if (s->n_flows && s->next_arrival == 0)
        push(s, s->start_ps[0], 0, EV_ARRIVAL);
    tl_event e;
    uint64_t next_report = 1u << 18;
    while (!s->sticky.code && tl_heap_pop(&s->heap, &e)) {
        s->st.now_ps = e.t_ps;
        if (e.kind == EV_ARRIVAL)
            on_arrival(s, e.t_ps);
        else if (s->is_active[e.target] && s->ev_seq[e.target] == e.seq) {
            uint32_t f = e.target;
            if (s->due_ps[f] > e.t_ps) { /* slowed down since: sleep until its finish */
                s->ev_at_ps[f] = s->due_ps[f];
                s->ev_seq[f] = push(s, s->due_ps[f], f, EV_COMPLETION);
            } else {
                on_completion(s, f, e.t_ps);
            }
        }
        if (s->st.n_events >= next_report) {
            next_report += 1u << 18;
            tl_progress_report_sim(prog, "flowsim", (double)s->n_done, (double)s->n_flows, "flows",
                                   (double)s->st.now_ps * 1e-12, (double)s->st.n_events);
        }
    }
    if (s->sticky.code) {
        if (err)
            *err = s->sticky;
        return s->sticky.code;
    }
    tl_progress_report_sim(prog, "flowsim", (double)s->n_done, (double)s->n_flows, "flows",
                           (double)s->st.now_ps * 1e-12, (double)s->st.n_events);
    return 0;
}

const tl_flow_result *tl_flowsim_results(const tl_flowsim *s) { return s->res; }

void tl_flowsim_get_stats(const tl_flowsim *s, tl_flowsim_stats *st) { *st = s->st; }

void tl_flowsim_check_invariants(const tl_flowsim *s)
{
    for (uint32_t l = 0; l < s->n_links; l++) {
        double sum = 0;
        for (uint32_t j = 0; j < s->lf[l].n; j++) {
            uint32_t f = s->lf[l].v[j];
            assert(s->is_active[f]);
            assert(s->pos[s->path_off[f] + hop_of(s, f, l)] == j);
            sum += s->rate[f];
        }
        assert(sum <= s->cap_bps[l] * (1 + 1e-9));
        (void)sum;
    }
    for (size_t f = 0; f < s->n_flows; f++)
        if (s->is_active[f]) {
            assert(s->rate[f] > 0 && s->rate[f] <= s->flow_cap[f] * (1 + 1e-9));
            assert(s->rem_bits[f] >= 0);
        }
}
