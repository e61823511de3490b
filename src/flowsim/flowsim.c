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
 * refills every link and flow from scratch at every event, O(L^2 F). */
#define _GNU_SOURCE /* qsort_r */
#include "flowsim_int.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/time.h"

enum { EV_ARRIVAL = 1, EV_COMPLETION = 2 };

/* ---- the share heap: (share, link) with lazy invalidation ---- */

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
    s->sh[i] = (share_ent){share, link, s->link_ver[link]};
}

static int sh_pop(tl_flowsim *s, share_ent *out)
{
    if (s->sh_n == 0)
        return 0;
    *out = s->sh[0];
    share_ent last = s->sh[--s->sh_n];
    size_t n = s->sh_n, i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && s->sh[c + 1].share < s->sh[c].share)
            c++;
        if (last.share <= s->sh[c].share)
            break;
        s->sh[i] = s->sh[c];
        i = c;
    }
    if (n)
        s->sh[i] = last;
    return 1;
}

/* ---- link membership ---- */

static void link_add(tl_flowsim *s, uint32_t f)
{
    for (uint32_t k = 0; k < s->hops[f]; k++) {
        uint32_t l = s->path[s->path_off[f] + k];
        flist *fl = &s->lf[l];
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
        uint32_t at = s->pos[s->path_off[f] + k];
        uint32_t moved = fl->v[--fl->n];
        if (at != fl->n) {
            fl->v[at] = moved;
            s->pos[s->path_off[moved] + hop_of(s, moved, l)] = at;
        }
    }
}

/* ---- refill: the component around seed links, by progressive filling ---- */

static void collect_component(tl_flowsim *s, uint32_t seed_flow)
{
    s->epoch++;
    s->n_comp_links = s->n_comp_flows = 0;
    for (uint32_t k = 0; k < s->hops[seed_flow]; k++) {
        uint32_t l = s->path[s->path_off[seed_flow] + k];
        if (s->link_stamp[l] != s->epoch) {
            s->link_stamp[l] = s->epoch;
            s->comp_links[s->n_comp_links++] = l;
        }
    }
    /* comp_links doubles as the BFS queue. */
    for (uint32_t qi = 0; qi < s->n_comp_links; qi++) {
        const flist *fl = &s->lf[s->comp_links[qi]];
        for (uint32_t j = 0; j < fl->n; j++) {
            uint32_t f = fl->v[j];
            if (s->flow_stamp[f] == s->epoch)
                continue;
            s->flow_stamp[f] = s->epoch;
            s->comp_flows[s->n_comp_flows++] = f;
            for (uint32_t k = 0; k < s->hops[f]; k++) {
                uint32_t m = s->path[s->path_off[f] + k];
                if (s->link_stamp[m] != s->epoch) {
                    s->link_stamp[m] = s->epoch;
                    s->comp_links[s->n_comp_links++] = m;
                }
            }
        }
    }
}

static int cmp_cap(const void *a, const void *b, void *ctx)
{
    const double *cap = ctx;
    double x = cap[*(const uint32_t *)a], y = cap[*(const uint32_t *)b];
    return (x > y) - (x < y);
}

/* Freezes flow f at rate x: its links lose x of capacity and one unfrozen flow. */
static void freeze(tl_flowsim *s, uint32_t f, double x)
{
    s->new_rate[f] = x;
    s->frozen_stamp[f] = s->epoch;
    for (uint32_t k = 0; k < s->hops[f]; k++) {
        uint32_t m = s->path[s->path_off[f] + k];
        s->rem_cap[m] -= x;
        if (s->rem_cap[m] < 0)
            s->rem_cap[m] = 0;
        if (--s->n_unfrozen[m] > 0) {
            s->link_ver[m]++;
            sh_push(s, s->rem_cap[m] / s->n_unfrozen[m], m);
        }
    }
}

static void schedule(tl_flowsim *s, uint32_t f, int64_t now)
{
    double t = s->rem_bits[f] / s->rate[f] * 1e12;
    int64_t at = now + (int64_t)ceil(t);
    s->ev_seq[f] = tl_heap_push(&s->heap, at, f, EV_COMPLETION, 0);
    if (s->ev_seq[f] == 0)
        tl_err_nomem(&s->sticky);
}

static void refill(tl_flowsim *s, uint32_t seed_flow, int64_t now)
{
    collect_component(s, seed_flow);
    s->st.links_refilled += s->n_comp_links;
    s->st.flows_refilled += s->n_comp_flows;
    s->sh_n = 0;
    for (uint32_t i = 0; i < s->n_comp_links; i++) {
        uint32_t l = s->comp_links[i];
        s->rem_cap[l] = s->cap_bps[l];
        s->n_unfrozen[l] = s->lf[l].n;
        s->link_ver[l]++;
        if (s->n_unfrozen[l])
            sh_push(s, s->rem_cap[l] / s->n_unfrozen[l], l);
    }
    /* Flows with their own cap (path-level background flows), by cap. */
    uint32_t n_capped = 0;
    for (uint32_t i = 0; i < s->n_comp_flows; i++)
        if (isfinite(s->flow_cap[s->comp_flows[i]]))
            s->capped[n_capped++] = s->comp_flows[i];
    if (n_capped > 1)
        qsort_r(s->capped, n_capped, sizeof *s->capped, cmp_cap, s->flow_cap);
    uint32_t ci = 0, n_left = s->n_comp_flows;
    share_ent e;
    while (n_left > 0) {
        while (ci < n_capped && s->frozen_stamp[s->capped[ci]] == s->epoch)
            ci++;
        int have = 0;
        while (!have && sh_pop(s, &e))
            have = e.ver == s->link_ver[e.link] && s->n_unfrozen[e.link] > 0;
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
        refill(s, f, now);
    }
    if (s->next_arrival < s->n_flows)
        tl_heap_push(&s->heap, s->start_ps[s->next_arrival], 0, EV_ARRIVAL, 0);
}

static void on_completion(tl_flowsim *s, uint32_t f, int64_t now)
{
    s->is_active[f] = 0;
    s->n_active--;
    s->n_done++;
    s->res[f].fct_ps = now - s->start_ps[f] + s->latency_ps[f];
    s->st.n_events++;
    link_remove(s, f);
    s->rate[f] = 0;
    /* The flows that shared its links are refilled: seed from its own links. */
    refill(s, f, now);
}

int tl_flowsim_run(tl_flowsim *s, tl_progress *prog, tl_err *err)
{
    if (s->sticky.code) {
        if (err)
            *err = s->sticky;
        return s->sticky.code;
    }
    if (s->n_flows && s->next_arrival == 0)
        tl_heap_push(&s->heap, s->start_ps[0], 0, EV_ARRIVAL, 0);
    tl_event e;
    uint64_t next_report = 1u << 18;
    while (!s->sticky.code && tl_heap_pop(&s->heap, &e)) {
        s->st.now_ps = e.t_ps;
        if (e.kind == EV_ARRIVAL)
            on_arrival(s, e.t_ps);
        else if (s->is_active[e.target] && s->ev_seq[e.target] == e.seq)
            on_completion(s, e.target, e.t_ps);
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
