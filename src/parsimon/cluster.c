/* Clustering of similar links (parsimon.txt §4.2, appendix D): a link whose
 * workload looks like an already simulated one reuses its delays.
 * Features of a link with at least two flows: percentiles of its flow sizes
 * and of its inter-arrival times, and its load. Two links are close when
 * both distances, WMAPE(a, b) = sum |a_i - b_i| / sum |a_i|, are below
 * cluster_wmape and the relative error of their loads, |a - b| / a, is below
 * cluster_load (a: the link the cluster forms around, the busiest not yet
 * taken; appendix D's definitions); links with
 * fewer than two flows are close to each other. tailor also requires equal
 * rates and the same case (first hop, middle, last hop), since delays are in
 * time units and the link-level topologies differ by case. The paper uses
 * 1,000 percentiles; tailor uses N_PCT (memory: 2 x N_PCT doubles per link).
 *
 * Load-scaled thresholds (cluster_scale > 1; appendix D suggests them but the
 * paper's prototype sets one threshold): a cluster formed around a link whose
 * load is a share s of the busiest link's has both thresholds
 * min(cluster_scale, 1 / s) times looser. A less loaded link adds less delay, so the same relative
 * error in its delays costs the estimate less, and its features, drawn from
 * fewer flows, are noisier: at the paper's thresholds two links with the
 * same traffic often differ by more than 0.1 in the WMAPE of their size
 * percentiles (docs/parsimon.md).
 *
 * The link simulated for a cluster is its member of median load, not the
 * first (the busiest, whose delays the others would then all overstate):
 * tailor's choice, docs/parsimon.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parsimon/parsimon_int.h"
#include "tailor/fanout.h"
#include "tailor/quantile.h"

#define N_PCT 100

typedef struct feat {
    uint32_t chan;
    int has;      /* at least two flows */
    int kind;     /* 0 first hop, 1 middle, 2 last hop */
    uint64_t rate;
    double load;
    double *size, *iat; /* (N_PCT) */
} feat;

/* Decreasing load, then channel id: a fixed greedy order. */
static int cmp_feat(const void *a, const void *b)
{
    const feat *x = a, *y = b;
    if (x->load != y->load)
        return x->load < y->load ? 1 : -1;
    return (x->chan > y->chan) - (x->chan < y->chan);
}

static double wmape(const double *a, const double *b)
{
    double num = 0, den = 0;
    for (int i = 0; i < N_PCT; i++)
        num += fabs(a[i] - b[i]), den += fabs(a[i]);
    return den > 0 ? num / den : (num > 0 ? INFINITY : 0);
}

/* scale: the representative's threshold factor (1 without load scaling) */
static int close_enough(const feat *r, const feat *c, const tl_parsimon_opts *o, double scale)
{
    if (r->kind != c->kind || r->rate != c->rate || r->has != c->has)
        return 0;
    if (!r->has)
        return 1;
    return fabs(r->load - c->load) < scale * o->cluster_load * r->load &&
           wmape(r->size, c->size) < scale * o->cluster_wmape &&
           wmape(r->iat, c->iat) < scale * o->cluster_wmape;
}

/* Percentile i of N_PCT of n keys (nearest rank on (i + 0.5) / N_PCT),
 * sorting them first (tmp: n more keys). */
static void percentiles(uint64_t *v, uint64_t *tmp, uint32_t n, double *out)
{
    tl_sort_u64(v, tmp, n);
    for (int i = 0; i < N_PCT; i++)
        out[i] = (double)v[(uint32_t)((i + 0.5) / N_PCT * n)];
}

/* A worker's sort buffers, each max_n + 1 keys, allocated by its first job. */
typedef struct pct_scratch {
    uint64_t *sz, *ia, *tmp;
} pct_scratch;

typedef struct pct_ctx {
    const ps_env *env;
    feat *fs;
    uint32_t max_n; /* the most flows on one link */
} pct_ctx;

static void pct_scratch_fini(void *ctx, void *local)
{
    pct_scratch *b = local;
    free(b->sz), free(b->ia), free(b->tmp);
}

/* Feature j's size and inter-arrival percentiles. */
static int link_percentiles(void *ctx, size_t j, void *local, tl_err *err)
{
    const pct_ctx *c = ctx;
    const ps_decomp *d = c->env->d;
    pct_scratch *b = local;
    feat *x = &c->fs[j];
    if (!x->has)
        return 0;
    if (!b->sz) {
        size_t n_keys = (size_t)c->max_n + 1;
        b->sz = malloc(n_keys * sizeof *b->sz);
        b->ia = malloc(n_keys * sizeof *b->ia);
        b->tmp = malloc(n_keys * sizeof *b->tmp);
        if (!b->sz || !b->ia || !b->tmp) {
            pct_scratch_fini(ctx, b);
            memset(b, 0, sizeof *b);
            return tl_err_nomem(err);
        }
    }
    uint32_t a = d->chan_off[x->chan], n = d->chan_off[x->chan + 1] - a;
    const uint32_t *fl = d->chan_flows + a;
    const tl_flow *v = c->env->f->v;
    for (uint32_t i = 0; i < n; i++)
        b->sz[i] = v[fl[i]].size_bytes;
    for (uint32_t i = 1; i < n; i++) /* flows are in start order: gaps >= 0 */
        b->ia[i - 1] = (uint64_t)(v[fl[i]].start_ps - v[fl[i - 1]].start_ps);
    percentiles(b->sz, b->tmp, n, x->size);
    percentiles(b->ia, b->tmp, n - 1, x->iat);
    return 0;
}

int ps_cluster(const ps_env *env, int is_cluster, const uint8_t *pass, uint32_t *rep,
               tl_err *err)
{
    const ps_decomp *d = env->d;
    const tl_topo *t = env->t;
    uint32_t nc = d->n_chans;
    for (uint32_t c = 0; c < nc; c++)
        rep[c] = d->chan_off[c + 1] > d->chan_off[c] ? c : UINT32_MAX;
    if (!is_cluster)
        return 0;

    uint32_t n_busy = 0, max_n = 0;
    for (uint32_t c = 0; c < nc; c++) {
        uint32_t n = pass[c] ? 0 : d->chan_off[c + 1] - d->chan_off[c];
        n_busy += n > 0;
        max_n = n > max_n ? n : max_n;
    }
    feat *fs = calloc((size_t)n_busy + 1, sizeof *fs);
    double *store = malloc(((size_t)n_busy * 2 * N_PCT + 1) * sizeof *store);
    uint8_t *taken = calloc((size_t)n_busy + 1, 1);
    uint32_t *mem = malloc(((size_t)n_busy + 1) * sizeof *mem); /* one cluster's members */
    if (!fs || !store || !taken || !mem) {
        free(fs), free(store), free(taken), free(mem);
        return tl_err_nomem(err);
    }
    uint32_t k = 0;
    for (uint32_t c = 0; c < nc; c++) {
        if (d->chan_off[c + 1] == d->chan_off[c] || pass[c])
            continue;
        feat *x = &fs[k];
        x->chan = c;
        x->size = store + (size_t)k * 2 * N_PCT;
        x->iat = x->size + N_PCT;
        uint32_t u = tl_topo_chan_from(t, c), v = tl_topo_chan_to(t, c);
        x->kind = tl_topo_node(t, u)->kind == TL_NODE_HOST   ? 0
                  : tl_topo_node(t, v)->kind == TL_NODE_HOST ? 2
                                                             : 1;
        x->rate = tl_topo_link(t, tl_chan_link(c))->rate_bps;
        x->load = ps_load(d, t, c);
        x->has = d->chan_off[c + 1] - d->chan_off[c] >= 2;
        k++;
    }
    /* The percentiles sort every link's sizes and gaps (12M values at 2M
     * flows): in parallel, each link's into its own feature. */
    pct_ctx ctx = {env, fs, max_n};
    tl_fanout fo = {.n_jobs = n_busy, .n_threads = env->o->n_threads, .run = link_percentiles,
                    .ctx = &ctx, .local_bytes = sizeof(pct_scratch),
                    .local_fini = pct_scratch_fini};
    int rc = tl_fanout_run(&fo, NULL, err);
    if (rc) {
        free(fs), free(store), free(taken), free(mem);
        return rc;
    }
    qsort(fs, n_busy, sizeof *fs, cmp_feat);
    double top = n_busy ? fs[0].load : 0; /* the busiest link's load */
    for (uint32_t i = 0; i < n_busy; i++) {
        if (taken[i])
            continue;
        taken[i] = 1;
        uint32_t nm = 0;
        mem[nm++] = i;
        /* >= 1: top is the largest load and cluster_scale >= 1 */
        double scale = fs[i].load > 0 ? fmin(env->o->cluster_scale, top / fs[i].load)
                                      : env->o->cluster_scale;
        for (uint32_t j = i + 1; j < n_busy; j++) {
            /* decreasing load: nothing further can be within the load threshold */
            if (fs[i].has && fs[j].has &&
                fs[i].load - fs[j].load >= scale * env->o->cluster_load * fs[i].load)
                break;
            if (!taken[j] && close_enough(&fs[i], &fs[j], env->o, scale)) {
                taken[j] = 1;
                mem[nm++] = j;
            }
        }
        /* the members are in decreasing load: the middle one is simulated */
        uint32_t r = fs[mem[nm / 2]].chan;
        for (uint32_t m = 0; m < nm; m++)
            rep[fs[mem[m]].chan] = r;
    }
    free(fs), free(store), free(taken), free(mem);
    return 0;
}
