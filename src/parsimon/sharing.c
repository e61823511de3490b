/* The sources' sharing in a last-hop link simulation
 * (tl_parsimon_opts.is_share_sources; docs/parsimon.md, "Sources' sharing").
 *
 * With the residual context a source of a last-hop simulation sends at its
 * NIC's rate less the load of its host's other flows, averaged over the run,
 * and the ACKs that cross the link are a rate taken off it. Both smooth what
 * the network does not: a host with nothing else to send sends at line rate,
 * and a host that sends gets its flows' ACKs back on its own down-link while
 * it receives. Under DCQCN those bursts hold the queues that small flows meet
 * (docs/accuracy.md, "Per size bucket and at p99.9"). Here they are simulated
 * instead:
 *   - each source's other flows (its NIC's flows that do not cross the link)
 *     whose lifetime overlaps one of its flows over the link, clipped to the
 *     time its flows over the link may be alive, go past u to a sink;
 *   - each flow that v sends (the reverse channel) while a flow of the link
 *     may be alive returns one ACK per data packet over the link, at u one
 *     round trip after its start, spaced at the NIC's packet time.
 * A flow's lifetime is estimated from its payload time at its NIC's rate. */
#include <stdlib.h>
#include <string.h>

#include "parsimon/parsimon_int.h"

/* Overlap test: payload time at the NIC's rate plus 5 us. */
#define SEL_SLACK 1.0
#define SEL_MARGIN_PS 5000000
/* Clipping: twice the payload time plus 10 us, so a flow of the link that
 * lasts longer than its payload time (it shares u's queue) still meets the
 * sharing; 4x + 20 us moved d03's estimate by 1 point at twice the cost. */
#define CLIP_SLACK 2.0
#define CLIP_MARGIN_PS 10000000

static int64_t life_end(const tl_flow *x, double nic_bps, double slack, int64_t margin)
{
    return x->start_ps + (int64_t)(slack * (double)x->size_bytes * 8 / nic_bps * 1e12) + margin;
}

/* A flow of the link's estimated lifetime ends, computed once a link
 * simulation. */
typedef struct life {
    int64_t sel, clip;
} life;

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

void ps_share_fini(ps_share *sh)
{
    free(sh->ctx), free(sh->ctx_src), free(sh->ctx_start), free(sh->ctx_bytes);
    free(sh->ack_of), free(sh->ack_at);
    memset(sh, 0, sizeof *sh);
}

/* The sources' other flows, clipped. by_src/off: the link's flows grouped by
 * local source, in start order; at: their lifetimes at their source's NIC
 * rate. */
static int collect_context(const ps_env *env, const uint8_t *mine, const uint32_t *fl,
                           const uint32_t *by_src, const uint32_t *off, const life *at,
                           const uint32_t *src_first, uint32_t n_src, ps_share *sh)
{
    const ps_decomp *d = env->d;
    const tl_flow *v = env->f->v;
    uint32_t cap[4] = {0};
    for (uint32_t k = 0; k < n_src; k++) {
        uint32_t c0 = d->path[d->path_off[src_first[k]]]; /* the source's NIC */
        double nic = (double)tl_topo_link(env->t, tl_chan_link(c0))->rate_bps;
        for (uint32_t a = d->chan_off[c0]; a < d->chan_off[c0 + 1]; a++) {
            uint32_t c = d->chan_flows[a];
            if (mine[c])
                continue;
            int64_t cs = v[c].start_ps;
            int64_t ce_sel = life_end(&v[c], nic, SEL_SLACK, SEL_MARGIN_PS);
            int64_t ce_clip = life_end(&v[c], nic, CLIP_SLACK, CLIP_MARGIN_PS);
            int hit = 0;
            int64_t lo = INT64_MAX, hi = INT64_MIN;
            for (uint32_t b = off[k]; b < off[k + 1]; b++) {
                const tl_flow *x = &v[fl[by_src[b]]];
                if (x->start_ps >= ce_clip)
                    break;
                if (x->start_ps < ce_sel && at[by_src[b]].sel > cs)
                    hit = 1;
                int64_t e = at[by_src[b]].clip;
                if (e > cs) {
                    lo = x->start_ps < lo ? x->start_ps : lo;
                    hi = e > hi ? e : hi;
                }
            }
            if (!hit)
                continue;
            uint32_t j = sh->n_ctx;
            if (grow((void **)&sh->ctx, &cap[0], j + 1, sizeof *sh->ctx) ||
                grow((void **)&sh->ctx_src, &cap[1], j + 1, sizeof *sh->ctx_src) ||
                grow((void **)&sh->ctx_start, &cap[2], j + 1, sizeof *sh->ctx_start) ||
                grow((void **)&sh->ctx_bytes, &cap[3], j + 1, sizeof *sh->ctx_bytes))
                return -1;
            /* From when the source's flows over the link start to when they
             * may end: the bytes it would have sent at line rate before are
             * left out, at least one packet is kept. */
            int64_t t0 = lo > cs ? lo : cs, t1 = hi < ce_clip ? hi : ce_clip;
            double left = (double)v[c].size_bytes - (double)(t0 - cs) * 1e-12 * nic / 8;
            double span = (double)(t1 - t0) * 1e-12 * nic / 8;
            double b = left < span ? left : span;
            uint64_t bytes = b < env->mtu ? env->mtu : (uint64_t)b;
            sh->ctx[j] = c;
            sh->ctx_src[j] = k;
            sh->ctx_start[j] = t0;
            sh->ctx_bytes[j] = bytes < v[c].size_bytes ? bytes : v[c].size_bytes;
            sh->n_ctx = j + 1;
        }
    }
    return 0;
}

static int cmp_span(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The ACKs of the flows v sends, those that arrive while a flow of the link
 * may be alive. at: the link's flows' lifetimes at the link's rate. */
static int collect_acks(const ps_env *env, uint32_t chan, const uint32_t *fl, const life *at,
                        uint32_t n, ps_share *sh)
{
    const ps_decomp *d = env->d;
    const tl_flow *v = env->f->v;
    uint32_t rev = chan ^ 1u;
    const tl_link *lk = tl_topo_link(env->t, tl_chan_link(chan));
    double nic = (double)lk->rate_bps;
    double t_pkt = (double)(env->mtu + env->header) * 8 / nic * 1e12;
    /* the union of the link's flows' clipping lifetimes, merged in place */
    int64_t *span = malloc(((size_t)n + 1) * 2 * sizeof *span);
    if (!span)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        span[2 * i] = v[fl[i]].start_ps;
        span[2 * i + 1] = at[i].clip;
    }
    qsort(span, n, 2 * sizeof *span, cmp_span);
    uint32_t u = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (u && span[2 * i] <= span[2 * u - 1]) {
            if (span[2 * i + 1] > span[2 * u - 1])
                span[2 * u - 1] = span[2 * i + 1];
            continue;
        }
        span[2 * u] = span[2 * i], span[2 * u + 1] = span[2 * i + 1], u++;
    }
    uint32_t cap[2] = {0};
    int rc = 0;
    for (uint32_t a = d->chan_off[rev]; a < d->chan_off[rev + 1] && !rc; a++) {
        uint32_t r = d->chan_flows[a];
        int64_t rs = v[r].start_ps, re = life_end(&v[r], nic, SEL_SLACK, SEL_MARGIN_PS);
        int hit = 0;
        for (uint32_t i = 0; i < n && !hit; i++) {
            if (v[fl[i]].start_ps >= re)
                break;
            hit = at[i].sel > rs;
        }
        if (!hit)
            continue;
        int64_t one_way = 0;
        for (uint32_t h = d->path_off[r]; h < d->path_off[r + 1]; h++)
            one_way += tl_topo_link(env->t, tl_chan_link(d->path[h]))->delay_ps;
        int64_t first = rs + 2 * one_way - lk->delay_ps;
        uint64_t k = ps_packets(v[r].size_bytes, env->mtu);
        for (uint64_t i = 0; i < k; i++) {
            int64_t t = first + (int64_t)((double)(i + 1) * t_pkt);
            uint32_t lo = 0, hi = u; /* the first span that starts after t */
            while (lo < hi) {
                uint32_t mid = (lo + hi) / 2;
                if (span[2 * mid] <= t)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (!lo || t >= span[2 * lo - 1])
                continue;
            uint32_t j = sh->n_ack;
            if (grow((void **)&sh->ack_of, &cap[0], j + 1, sizeof *sh->ack_of) ||
                grow((void **)&sh->ack_at, &cap[1], j + 1, sizeof *sh->ack_at)) {
                rc = -1;
                break;
            }
            sh->ack_of[j] = r;
            sh->ack_at[j] = t;
            sh->n_ack = j + 1;
        }
    }
    free(span);
    return rc;
}

int ps_share_collect(const ps_env *env, uint32_t chan, const uint32_t *fl, const uint32_t *lsrc,
                     uint32_t n, const uint32_t *src_first, uint32_t n_src, ps_share *sh,
                     tl_err *err)
{
    memset(sh, 0, sizeof *sh);
    uint8_t *mine = calloc(env->f->n + 1, 1);
    uint32_t *off = calloc((size_t)n_src + 2, sizeof *off);
    uint32_t *by_src = malloc(((size_t)n + 1) * sizeof *by_src);
    life *at_src = malloc(((size_t)n + 1) * sizeof *at_src);
    life *at_link = malloc(((size_t)n + 1) * sizeof *at_link);
    int rc = 0;
    if (!mine || !off || !by_src || !at_src || !at_link) {
        rc = tl_err_nomem(err);
        goto done;
    }
    const ps_decomp *d = env->d;
    const tl_flow *v = env->f->v;
    double link_bps = (double)tl_topo_link(env->t, tl_chan_link(chan))->rate_bps;
    for (uint32_t i = 0; i < n; i++) {
        /* the NIC of the source as collect_context takes it: its first flow's */
        uint32_t c0 = d->path[d->path_off[src_first[lsrc[i]]]];
        double nic = (double)tl_topo_link(env->t, tl_chan_link(c0))->rate_bps;
        at_src[i] = (life){life_end(&v[fl[i]], nic, SEL_SLACK, SEL_MARGIN_PS),
                           life_end(&v[fl[i]], nic, CLIP_SLACK, CLIP_MARGIN_PS)};
        at_link[i] = (life){life_end(&v[fl[i]], link_bps, SEL_SLACK, SEL_MARGIN_PS),
                            life_end(&v[fl[i]], link_bps, CLIP_SLACK, CLIP_MARGIN_PS)};
    }
    for (uint32_t i = 0; i < n; i++) {
        mine[fl[i]] = 1;
        off[lsrc[i] + 2]++;
    }
    for (uint32_t k = 0; k < n_src; k++)
        off[k + 2] += off[k + 1];
    for (uint32_t i = 0; i < n; i++) /* stable: each source's flows stay in start order */
        by_src[off[lsrc[i] + 1]++] = i;
    if (collect_context(env, mine, fl, by_src, off, at_src, src_first, n_src, sh) ||
        collect_acks(env, chan, fl, at_link, n, sh))
        rc = tl_err_nomem(err);
done:
    if (rc)
        ps_share_fini(sh);
    free(mine), free(off), free(by_src), free(at_src), free(at_link);
    return rc;
}
