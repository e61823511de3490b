/* The Parsimon engine (parsimon.txt §3-4): decompose, simulate every link
 * (or every cluster representative) with pktsim, then estimate each flow by
 * Monte Carlo over the delay distributions of the links of its own path.
 *
 * Parallelism: link simulations run in an OpenMP loop over the links in
 * decreasing expected cost (packets x hops of the link-level topology), so
 * the longest start first and the tail of the run stays short; each writes
 * only its own link's distributions, and the aggregation draws from a random
 * stream per flow (seed, "parsimon", flow id), so results do not depend on
 * the thread count. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsimon/parsimon_int.h"
#include "tailor/cc.h"
#include "tailor/fanout.h"
#include "tailor/rng.h"
#include "tailor/time.h"

struct tl_parsimon {
    const tl_topo *t;
    const tl_routes *r;
    const tl_flows *f;
    tl_params p;
    char cc[32];
    uint64_t seed;
    tl_parsimon_opts o;
    uint32_t mtu, header, ack;
    ps_decomp d;
    ps_edist *edist;   /* (n_chans) filled for representatives */
    uint32_t *rep;     /* (n_chans) */
    uint8_t *pass;     /* (n_chans) 1: a pass-through link (ps_is_passthrough) */
    tl_flow_result *res; /* (n_flows) */
    tl_parsimon_job *jobs; /* (n_jobs) the last run's link simulations */
    size_t n_jobs;
    tl_parsimon_stats st;
    int err_code;      /* sticky: a failed run stays failed */
};

void tl_parsimon_opts_default(tl_parsimon_opts *o)
{
    memset(o, 0, sizeof *o);
    o->bucket_min = 100;
    o->bucket_ratio = 2;
    o->fat_factor = 10;
    o->cluster_wmape = 0.15;
    o->cluster_load = 0.075;
    o->cluster_scale = 4;
    o->is_direct_acks = 1;
    o->is_direct_data = 1;
    o->is_passthrough = 1;
    o->is_residual = 1;
    o->is_fat_subset = 1;
    o->max_from_bytes = -1;
}

/* norm_pkts where the caller leaves it 0: the CC's (tl_cc_desc; 5 under
 * dctcp-rate), else the paper's 1: under the RDMA CCs 5 helped as often as
 * it hurt (docs/accuracy.md, "norm_pkts"). */
static uint32_t default_norm_pkts(const char *cc)
{
    const tl_cc_desc *d = tl_cc_lookup(cc);
    return d && d->parsimon_norm_pkts ? d->parsimon_norm_pkts : 1;
}

tl_parsimon *tl_parsimon_create(const tl_topo *t, const tl_routes *r, const tl_flows *f,
                                const tl_params *p, const char *cc, uint64_t seed,
                                const tl_parsimon_opts *o, tl_err *err)
{
    if (o && !(o->bucket_min >= 1 && o->bucket_ratio >= 1 && o->fat_factor >= 1 &&
               o->cluster_wmape >= 0 && o->cluster_load >= 0 && o->cluster_scale >= 1)) {
        tl_err_set(err, TL_ERANGE, "parsimon options: expected bucket size >= 1, bucket ratio "
                   ">= 1, fat factor >= 1, non-negative cluster thresholds and a cluster "
                   "scale >= 1");
        return NULL;
    }
    tl_parsimon *s = calloc(1, sizeof *s);
    if (!s) {
        tl_err_nomem(err);
        return NULL;
    }
    s->t = t, s->r = r, s->f = f, s->p = *p, s->seed = seed;
    snprintf(s->cc, sizeof s->cc, "%s", cc ? cc : TL_CC_DEFAULT);
    if (o)
        s->o = *o;
    else
        tl_parsimon_opts_default(&s->o);
    if (!s->o.norm_pkts)
        s->o.norm_pkts = default_norm_pkts(s->cc);
    if (s->o.max_from_bytes < 0) {
        const tl_cc_desc *d = tl_cc_lookup(s->cc);
        s->o.max_from_bytes = d ? (int64_t)d->parsimon_max_from_bytes : 0;
    }
    s->mtu = (uint32_t)tl_knob(p, TL_K_NIC_MTU_BYTES);
    s->header = (uint32_t)tl_knob(p, TL_K_NIC_HEADER_BYTES);
    s->ack = (uint32_t)tl_knob(p, TL_K_NIC_ACK_BYTES);
    s->res = malloc((f->n + 1) * sizeof *s->res);
    if (!s->res) {
        tl_parsimon_destroy(s);
        tl_err_nomem(err);
        return NULL;
    }
    return s;
}

void tl_parsimon_destroy(tl_parsimon *s)
{
    if (!s)
        return;
    if (s->edist)
        for (uint32_t c = 0; c < s->d.n_chans; c++)
            ps_edist_fini(&s->edist[c]);
    free(s->edist);
    free(s->rep);
    free(s->pass);
    free(s->res);
    free(s->jobs);
    ps_decomp_fini(&s->d);
    free(s);
}

const tl_flow_result *tl_parsimon_results(const tl_parsimon *s) { return s->res; }

void tl_parsimon_get_stats(const tl_parsimon *s, tl_parsimon_stats *st) { *st = s->st; }

const tl_parsimon_job *tl_parsimon_jobs(const tl_parsimon *s, size_t *n)
{
    *n = s->n_jobs;
    return s->jobs;
}

typedef struct job {
    uint32_t chan;
    double cost;
} job;

static int cmp_job(const void *a, const void *b)
{
    const job *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    return (x->chan > y->chan) - (x->chan < y->chan);
}

typedef struct sim_ctx {
    tl_parsimon *s;
    const ps_env *env;
    const job *jobs;
    ps_link_out *outs; /* (n_jobs) */
} sim_ctx;

static int simulate_link(void *ctx, size_t j, void *local, tl_err *err)
{
    const sim_ctx *c = ctx;
    uint32_t chan = c->jobs[j].chan;
    return ps_linksim(c->env, chan, &c->s->edist[chan], &c->outs[j], err);
}

static void name_link(void *ctx, size_t j, char *buf, size_t n)
{
    snprintf(buf, n, "link %u", ((const sim_ctx *)ctx)->jobs[j].chan);
}

/* A link simulation's results, for the other MPI ranks: its counters and
 * its link's delay distributions. */
static int pack_link(void *ctx, size_t j, tl_wbuf *out, tl_err *err)
{
    const sim_ctx *c = ctx;
    int rc = tl_wbuf_put(out, &c->outs[j], sizeof c->outs[j], err);
    return rc ? rc : ps_edist_pack(&c->s->edist[c->jobs[j].chan], out, err);
}

static int unpack_link(void *ctx, size_t j, tl_rbuf *in, tl_err *err)
{
    const sim_ctx *c = ctx;
    int rc = tl_rbuf_get(in, &c->outs[j], sizeof c->outs[j], err);
    return rc ? rc : ps_edist_unpack(&c->s->edist[c->jobs[j].chan], in, err);
}

/* Simulates every representative; returns 0 or the first error (by job
 * order, so the message does not depend on the thread count). */
static int simulate(tl_parsimon *s, const ps_env *env, tl_progress *prog, tl_err *err)
{
    uint32_t nc = s->d.n_chans, nj = 0;
    job *jobs = malloc(((size_t)nc + 1) * sizeof *jobs);
    double *cost = malloc(((size_t)nc + 1) * sizeof *cost);
    double *wall = calloc((size_t)nc + 1, sizeof *wall);
    ps_link_out *outs = calloc((size_t)nc + 1, sizeof *outs);
    free(s->jobs);
    s->n_jobs = 0;
    s->jobs = malloc(((size_t)nc + 1) * sizeof *s->jobs);
    if (!jobs || !cost || !wall || !outs || !s->jobs) {
        free(jobs), free(cost), free(wall), free(outs);
        return tl_err_nomem(err);
    }
    for (uint32_t c = 0; c < nc; c++)
        if (s->rep[c] == c && !s->pass[c]) {
            const tl_topo *t = s->t;
            int middle = tl_topo_node(t, tl_topo_chan_from(t, c))->kind == TL_NODE_SWITCH &&
                         tl_topo_node(t, tl_topo_chan_to(t, c))->kind == TL_NODE_SWITCH;
            jobs[nj++] = (job){c, (double)s->d.pkts[c] * (middle ? 3 : 2)};
        }
    qsort(jobs, nj, sizeof *jobs, cmp_job);
    for (uint32_t j = 0; j < nj; j++)
        cost[j] = jobs[j].cost;
    /* Progress counts estimated packet-hops, not links: the largest links
     * run first, so a count of links would promise a run ten times longer
     * than it is (371 s said for a 33 s run). */
    /* Every rank must simulate the same links from the same flows: a node
     * that read other files would mix its results into rank 0's. */
    uint64_t check = tl_mix64(s->f->n);
    for (uint32_t c = 0; c < nc; c++)
        check = tl_mix64(check ^ s->d.pkts[c] ^ ((uint64_t)s->rep[c] << 32));
    sim_ctx ctx = {s, env, jobs, outs};
    tl_fanout fo = {.n_jobs = nj, .n_threads = s->o.n_threads, .run = simulate_link,
                    .ctx = &ctx, .prog = prog, .phase = "link simulations",
                    .unit = "pkt-hops", .work = cost, .dist = s->o.dist,
                    .pack = pack_link, .unpack = unpack_link, .wall_s = wall,
                    .name = name_link, .check = check};
    int rc = tl_fanout_run(&fo, NULL, err);
    for (uint32_t j = 0; j < nj; j++) {
        s->st.n_case[outs[j].kind]++;
        s->st.n_link_hops += outs[j].n_link_hops;
        s->st.n_drops += outs[j].n_drops;
        s->st.n_timeouts += outs[j].n_timeouts;
        for (int r = 0; r < 2; r++) {
            s->st.run_cpu_s[outs[j].kind][r] += outs[j].cpu_s[r];
            s->st.run_pkts[outs[j].kind][r] += outs[j].n_pkts[r];
            s->st.run_events[outs[j].kind][r] += outs[j].n_events[r];
        }
        s->st.n_requeued += outs[j].n_requeued;
        s->st.paused_frac_sum += outs[j].paused_frac;
        if (outs[j].paused_frac > s->st.paused_frac_max)
            s->st.paused_frac_max = outs[j].paused_frac;
        s->st.n_link_flows += s->d.chan_off[jobs[j].chan + 1] - s->d.chan_off[jobs[j].chan];
        if (outs[j].wall_s > s->st.max_link_s)
            s->st.max_link_s = outs[j].wall_s;
        const ps_edist *e = &s->edist[jobs[j].chan];
        s->st.n_samples += e->n_buckets ? e->off[e->n_buckets] : 0;
        uint64_t bytes = sizeof outs[j] + ps_edist_packed_bytes(e); /* pack_link's */
        s->jobs[j] = (tl_parsimon_job){jobs[j].chan, cost[j], wall[j], bytes,
                                       outs[j].queue_byte_s};
    }
    s->n_jobs = nj;
    s->st.n_simulated = nj;
    free(jobs), free(cost), free(wall), free(outs);
    return rc;
}

/* Flow i's packet-normalized delay: per link of its path, one draw from
 * that link's distributions (ed[rep[c]], or ed[c] without rep) for its
 * size, from the flow's own random stream (seed, "parsimon", flow id);
 * their sum, or their largest for a flow of max_from_bytes or more.
 * hop_ps, if not NULL, receives each hop's draw times the packet count. */
static double draw_path(const tl_parsimon *s, const ps_edist *ed, const uint32_t *rep, size_t i,
                        int64_t *hop_ps)
{
    const tl_flow *x = &s->f->v[i];
    const uint32_t *p = s->d.path + s->d.path_off[i];
    int hops = (int)(s->d.path_off[i + 1] - s->d.path_off[i]);
    tl_rng r;
    tl_rng_init(&r, s->seed, "parsimon", x->id);
    double pnd = 0, pk = ps_norm(x->size_bytes, s->mtu, s->o.norm_pkts);
    int is_max = s->o.max_from_bytes > 0 && x->size_bytes >= (uint64_t)s->o.max_from_bytes;
    for (int k = 0; k < hops; k++) {
        double d = ps_edist_draw(&ed[rep ? rep[p[k]] : p[k]], x->size_bytes, &r);
        pnd = is_max ? (k == 0 || d > pnd ? d : pnd) : pnd + d;
        if (hop_ps)
            hop_ps[k] = (int64_t)(d * pk + (d < 0 ? -0.5 : 0.5));
    }
    return pnd;
}

/* Every flow: its ideal FCT on its path plus, per link of the path, one
 * packet-normalized delay drawn from that link's (representative's) bucket
 * for its size, times its packet count. */
static void aggregate(const tl_parsimon *s, const ps_edist *ed, const uint32_t *rep,
                      tl_flow_result *res)
{
    const tl_flows *f = s->f;
    int n_threads = s->o.n_threads > 0 ? s->o.n_threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(n_threads)
    for (size_t i = 0; i < f->n; i++) {
        const tl_flow *x = &f->v[i];
        const uint32_t *p = s->d.path + s->d.path_off[i];
        int hops = (int)(s->d.path_off[i + 1] - s->d.path_off[i]);
        double pnd = draw_path(s, ed, rep, i, NULL);
        double pk = ps_norm(x->size_bytes, s->mtu, s->o.norm_pkts);
        int64_t ideal = tl_ideal_fct_ps(s->t, p, hops, x->size_bytes, s->mtu, s->header);
        res[i].ideal_ps = ideal;
        res[i].fct_ps = ideal + (int64_t)(pnd * pk + 0.5);
    }
}

int tl_parsimon_flow_hop_delays(const tl_parsimon *s, size_t i, int64_t *hop_ps, int max_hops)
{
    if (!s->d.path_off || s->err_code || i >= s->f->n)
        return -1;
    int hops = (int)(s->d.path_off[i + 1] - s->d.path_off[i]);
    if (hops > max_hops)
        return -1;
    draw_path(s, s->edist, s->rep, i, hop_ps);
    return hops;
}

int tl_parsimon_estimate_from(const tl_parsimon *s, const int64_t *delay_ps, int stride,
                              tl_flow_result *res, tl_err *err)
{
    if (!s->d.path_off || s->err_code)
        return tl_err_set(err, TL_EINVAL, "parsimon: estimate from delays needs a finished run");
    const ps_decomp *d = &s->d;
    size_t nf = s->f->n, n = d->path_off[nf];
    uint32_t nc = d->n_chans;
    for (size_t i = 0; i < nf; i++)
        if ((int)(d->path_off[i + 1] - d->path_off[i]) > stride)
            return tl_err_set(err, TL_ERANGE, "parsimon: flow %zu has %u hops, more than the "
                              "%d given", i, d->path_off[i + 1] - d->path_off[i], stride);
    /* Each channel's samples, grouped by channel (counting sort). */
    uint32_t *off = calloc((size_t)nc + 1, sizeof *off);
    uint64_t *size = malloc((n ? n : 1) * sizeof *size);
    double *pnd = malloc((n ? n : 1) * sizeof *pnd);
    ps_edist *ed = calloc((size_t)nc + 1, sizeof *ed);
    int rc = off && size && pnd && ed ? 0 : tl_err_nomem(err);
    for (size_t j = 0; !rc && j < n; j++)
        off[d->path[j] + 1]++;
    for (uint32_t c = 0; !rc && c < nc; c++)
        off[c + 1] += off[c];
    for (size_t i = 0; !rc && i < nf; i++) {
        uint64_t sz = s->f->v[i].size_bytes;
        double pk = ps_norm(sz, s->mtu, s->o.norm_pkts);
        for (uint32_t j = d->path_off[i]; j < d->path_off[i + 1]; j++) {
            uint32_t at = off[d->path[j]]++;
            size[at] = sz;
            pnd[at] = (double)delay_ps[i * (size_t)stride + (j - d->path_off[i])] / pk;
        }
    }
    for (uint32_t c = nc; !rc && c > 0; c--) /* back to each channel's start */
        off[c] = off[c - 1];
    if (!rc)
        off[0] = 0;
    for (uint32_t c = 0; !rc && c < nc; c++)
        rc = ps_edist_build(&ed[c], size + off[c], pnd + off[c], off[c + 1] - off[c],
                            s->o.bucket_min, s->o.bucket_ratio, err);
    if (!rc)
        aggregate(s, ed, NULL, res);
    for (uint32_t c = 0; ed && c < nc; c++)
        ps_edist_fini(&ed[c]);
    free(off), free(size), free(pnd), free(ed);
    return rc;
}

int tl_parsimon_run(tl_parsimon *s, tl_progress *prog, tl_err *err)
{
    if (s->err_code)
        return tl_err_set(err, s->err_code, "this Parsimon run failed before");
    double t0 = tl_wall_s();
    int rc = ps_decompose(&s->d, s->r, s->f, s->mtu, s->ack, err);
    if (!rc) {
        s->edist = calloc((size_t)s->d.n_chans + 1, sizeof *s->edist);
        s->rep = malloc(((size_t)s->d.n_chans + 1) * sizeof *s->rep);
        s->pass = calloc((size_t)s->d.n_chans + 1, 1);
        if (!s->edist || !s->rep || !s->pass)
            rc = tl_err_nomem(err);
    }
    for (uint32_t c = 0; !rc && s->o.is_passthrough && c < s->d.n_chans; c++)
        s->pass[c] = (uint8_t)ps_is_passthrough(&s->d, s->t, c);
    ps_env env = {s->t, s->f, &s->p, s->cc, s->seed, &s->d, &s->o, s->mtu, s->header, {0}};
    if (!rc)
        rc = tl_fabric_ref_of(s->t, s->mtu, &env.fabric, err);
    if (!rc)
        rc = ps_cluster(&env, s->o.is_cluster, s->pass, s->rep, err);
    double t1 = tl_wall_s();
    s->st.decompose_s = t1 - t0;
    if (!rc) {
        for (uint32_t c = 0; c < s->d.n_chans; c++)
            if (s->rep[c] != UINT32_MAX) {
                s->st.n_chans_busy++;
                s->st.n_pruned += s->rep[c] != c;
                s->st.n_passthrough += s->pass[c];
            }
        rc = simulate(s, &env, prog, err);
    }
    double t2 = tl_wall_s();
    s->st.simulate_s = t2 - t1;
    /* The per-link flow lists have served: only paths and buckets remain. */
    free(s->d.chan_flows);
    s->d.chan_flows = NULL;
    if (!rc)
        aggregate(s, s->edist, s->rep, s->res);
    s->st.aggregate_s = tl_wall_s() - t2;
    if (rc)
        s->err_code = rc;
    return rc;
}
