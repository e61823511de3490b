/* Training data drawn from synthetic fabrics (docs/m3.md "Fabric samples"):
 * the paths the model is asked about at run time carry a handful of
 * foreground flows among thousands of others, which synthetic parking lots
 * with a thousand foreground flows do not resemble. Each block of
 * M3_FABRIC_PATHS lines (M3_FABRIC_PATHS_NET with network truth) is one
 * random 32-rack fabric scenario (Table 2 size laws, Table 4 transport,
 * random oversubscription, burstiness and load); its lines are paths drawn
 * uniformly (so every flow is equally likely to be a label), each with the
 * flowsim features the engine computes and the packet-level slowdown of
 * every foreground flow: from pktsim on the path's parking lot, or with
 * network truth from one pktsim run of the whole fabric. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>

#include "m3train/m3train_int.h"
#include "tailor/fanout.h"
#include "tailor/fileio.h"
#include "tailor/quantile.h"
#include "tailor/pktsim.h"
#include "tailor/result.h"
#include "tailor/world.h"

#define FABRIC_FLOWS 60000 /* flows per scenario at most: ~1.1 foreground flows per path */
#define MAX_MEAN 1e6       /* mean flow size up to 1 MB (Table 2 stops at 50 KB) */
#define BYTES 2e9          /* bytes per scenario at most: fewer flows when they are large */
/* --length long: bytes per scenario log-uniform between these, at most
 * LONG_FLOWS flows. A heavy tail's long flows pile up over a run until as
 * many end as start; 2 GB is too short a run for that, and the model
 * trained on such runs alone underestimated long scenarios' 50 KB+ flows
 * (docs/m3.md "Long scenarios"). */
#define LONG_FLOWS 200000
#define LONG_BYTES_MIN 1e9
#define LONG_BYTES_MAX 1.6e10

/* A scenario's size limits: bytes in [lo, hi] (drawn log-uniformly when
 * lo < hi) and at most max_flows flows. */
typedef struct size_limits {
    double lo, hi;
    int max_flows;
} size_limits;

static size_limits limits_of(const m3_synth_opts *o)
{
    return o->is_long ? (size_limits){LONG_BYTES_MIN, LONG_BYTES_MAX, LONG_FLOWS}
                      : (size_limits){BYTES, BYTES, FABRIC_FLOWS};
}

void m3_fpath_fini(m3_fpath *r)
{
    free(r->sd);
    memset(r, 0, sizeof *r);
}

static double uni(tl_rng *r, double a, double b) { return a + (b - a) * tl_rng_uniform(r); }

/* A standard normal from the uniform u in (0, 1] and one more draw of r
 * (Box-Muller). */
static double normal_from(double u, tl_rng *r)
{
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * tl_rng_uniform(r));
}

static double normal(tl_rng *r) { return normal_from(tl_rng_uniform_pos(r), r); }

#define MIX_DRAWS 20000 /* sizes drawn to tabulate a mixture law */
#define MIX_POINTS 400  /* points of its CDF file */
#define MIX_MAX 1e8     /* its largest flow, bytes */

/* A two-part size law (docs/m3.md "Fabric samples"): a share p_small of
 * small flows, log-normal with sigma 1 and a mean log-uniform in 200 B-5 KB,
 * the rest Pareto with alpha in 1.1-1.8 and a mean log-uniform in 50 KB-2 MB
 * (at most MIX_MAX). With parts 3, a share 0-0.7 of the flows that are not
 * small is taken by a third, middle part: log-normal with sigma 1 and a mean
 * log-uniform in 5-50 KB (Table 2's range of means), so the 10-50 KB flows
 * that measured laws hold (WebServer 9%, Hadoop 11%) are seen in training;
 * two-part laws leave them nearly empty. Tabulated as a CDF file at path,
 * its mean into *mean. */
static int mixture_cdf(tl_rng *r, int parts, const char *path, double *mean, tl_err *err)
{
    double p_small = uni(r, 0.3, 0.8), m_small = exp(uni(r, log(200.0), log(5e3)));
    double alpha = uni(r, 1.1, 1.8), m_large = exp(uni(r, log(50e3), log(2e6)));
    double xm = m_large * (alpha - 1) / alpha, tot = 0;
    double p_mid = 0, m_mid = 0;
    if (parts == 3) /* drawn after the two-part law's draws, which stay as they were */
        p_mid = (1 - p_small) * uni(r, 0, 0.7), m_mid = exp(uni(r, log(5e3), log(50e3)));
    double *v = malloc(MIX_DRAWS * sizeof *v);
    if (!v)
        return tl_err_nomem(err);
    for (int i = 0; i < MIX_DRAWS; i++) {
        double u = tl_rng_uniform_pos(r), x, c = tl_rng_uniform(r);
        if (c < p_small) {
            x = m_small * exp(normal_from(u, r) - 0.5);
        } else if (c < p_small + p_mid) {
            x = m_mid * exp(normal_from(u, r) - 0.5);
        } else {
            x = fmin(xm / pow(u, 1 / alpha), MIX_MAX);
        }
        v[i] = fmax(1, round(x));
        tot += v[i];
    }
    qsort(v, MIX_DRAWS, sizeof *v, tl_cmp_double);
    *mean = tot / MIX_DRAWS;
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (f) {
        fprintf(f, "# tailor size cdf v1 (m3 fabric sample, temporary)\n0 0\n");
        for (int k = 1; k <= MIX_POINTS; k++)
            fprintf(f, "%.0f %.6f\n", v[(int)((double)k / MIX_POINTS * MIX_DRAWS) - 1],
                    100.0 * k / MIX_POINTS);
    }
    free(v);
    return f ? tl_afile_commit(&af, err) : err ? err->code : TL_EIO;
}

/* Measured size laws for training (--sizes measured, docs/m3.md "Measured
 * size laws"): published laws from data/sizes, each scenario one of them
 * with every size scaled by a factor log-uniform in 0.5-2. The accuracy
 * suite's laws (WebServer, Hadoop, CacheFollower) are left out with every
 * other law from Meta's traces (the Hadoop intra-cluster and intra-rack
 * laws, and HPCC's and ConWeave's Facebook Hadoop tables, whose bucket
 * shares are Hadoop's), so the suite's laws stay unseen; so is the inter-DC
 * law (a WAN's). */
static const char *const measured_laws[] = {"websearch", "google-rpc", "ali-storage", "solar"};

static int measured_cdf(tl_rng *r, const char *path, double *mean, const char **law, tl_err *err)
{
    size_t n_laws = sizeof measured_laws / sizeof *measured_laws;
    *law = measured_laws[tl_rng_below(r, (uint32_t)n_laws)];
    double scale = exp(uni(r, log(0.5), log(2.0)));
    tl_sizedist d = {0};
    int rc = tl_sizedist_load(&d, *law, err);
    if (rc)
        return rc;
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (f) {
        fprintf(f, "# tailor size cdf v1 (m3 fabric sample, temporary: %s x %.4f)\n", *law, scale);
        double prev = 0;
        for (size_t i = 0; i < d.n_pts; i++) { /* rounding may not make sizes fall */
            double x = fmax(prev, round(d.x_bytes[i] * scale));
            fprintf(f, "%.0f %.6f\n", x, 100 * d.p_frac[i]);
            prev = x;
        }
    }
    *mean = d.mean_bytes * scale;
    tl_sizedist_fini(&d);
    return f ? tl_afile_commit(&af, err) : err ? err->code : TL_EIO;
}

/* The name of o's size laws ("mixture", "mixture3", "measured"), NULL for
 * Table 2's: the folder header's tag and a mixture scenario's size kind. */
static const char *size_law_name(const m3_synth_opts *o)
{
    static const char *const names[] = {NULL, "mixture", "mixture3", "measured"};
    return o->is_mixture >= 0 && o->is_mixture < 4 ? names[o->is_mixture] : NULL;
}

/* Writes the 32-rack matrix m (row = source rack) to path as a rack matrix
 * file of the fabric's two pods. */
static int write_matrix(const double *m, const char *path, tl_err *err)
{
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (!f)
        return err ? err->code : TL_EIO;
    fprintf(f, "# tailor rack matrix (m3 fabric sample, temporary)\nracks 32\npods 2\n"
               "pod 0 racks 0-15\npod 1 racks 16-31\n");
    for (int i = 0; i < 32 * 32; i++)
        fprintf(f, "%.6g%c", m[i], i % 32 == 31 ? '\n' : ' ');
    return tl_afile_commit(&af, err);
}

/* Rack-local traffic (docs/m3.md "Fabric samples"): a 32-rack matrix file at
 * path that keeps a share p_local of the flows inside their source rack and
 * spreads the rest evenly over the other racks. */
static int local_matrix(double p_local, const char *path, tl_err *err)
{
    double m[32 * 32];
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 32; j++)
            m[32 * i + j] = i == j ? p_local : (1 - p_local) / 31;
    return write_matrix(m, path, err);
}

/* Skewed rack traffic (docs/m3.md "Fabric samples"): a noisy gravity model.
 * Rack i sends in proportion to a log-normal weight s_i and receives in
 * proportion to another, d_j (both with sigma sig_rack, uniform in
 * 0.2-1.2), every entry carries its own log-normal noise (sigma sig_entry,
 * uniform in 0.3-2) and intra-pod entries weigh f_pod (log-uniform in
 * 1/3-3) times more; in half the scenarios a share p_local (uniform in
 * 0-0.7) of the flows then stays inside racks. So racks send and receive
 * unequal loads, a few rack pairs carry much of the traffic and the
 * busiest link is a hot rack's, as in measured matrices, which uniform and
 * rack-local draws never show. */
static int skew_matrix(tl_rng *r, double *p_local, const char *path, tl_err *err)
{
    double sig_rack = uni(r, 0.2, 1.2), sig_entry = uni(r, 0.3, 2.0);
    double f_pod = exp(uni(r, log(1.0 / 3), log(3.0)));
    double s[32], d[32], m[32 * 32], off = 0;
    for (int i = 0; i < 32; i++)
        s[i] = exp(sig_rack * normal(r)), d[i] = exp(sig_rack * normal(r));
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 32; j++) {
            double w = s[i] * d[j] * exp(sig_entry * normal(r)) * ((i < 16) == (j < 16) ? f_pod : 1);
            m[32 * i + j] = i == j ? 0 : w;
            off += i == j ? 0 : w;
        }
    *p_local = tl_rng_uniform(r) < 0.5 ? uni(r, 0, 0.7) : 0;
    /* off-diagonal entries sum to 1 - p_local; the local share follows each
     * rack's sending weight */
    double ssum = 0;
    for (int i = 0; i < 32; i++)
        ssum += s[i];
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 32; j++)
            m[32 * i + j] = i == j ? *p_local * s[i] / ssum : (1 - *p_local) * m[32 * i + j] / off;
    return write_matrix(m, path, err);
}

int m3_fabric_scenario(uint64_t seed, uint64_t scen, const m3_synth_opts *o, const char *cdf_path,
                       const char *mat_path, m3_sample *cfg, char *buf, size_t n, tl_err *err)
{
    tl_rng r;
    tl_rng_init(&r, seed, "m3-fabric", scen);
    memset(cfg, 0, sizeof *cfg);
    tl_sizedist sd = {0};
    int rc = tl_params_init(&cfg->p, err);
    rc = rc ? rc : m3_synth_config(cfg, &r, o, err);
    rc = rc ? rc : m3_synth_sizes(cfg, &r, &sd, MAX_MEAN, err);
    tl_sizedist_fini(&sd);
    if (rc)
        return rc;
    static const int over[3] = {1, 2, 4};
    cfg->sigma = uni(&r, 1, 2);
    cfg->target_load = uni(&r, 0.2, 0.8);
    char shape[64] = "", sizes[4400], spatial[4400] = "{\"type\": \"uniform\"}";
    if (cfg->size_shape > 0)
        snprintf(shape, sizeof shape, ", \"shape\": %.6g", cfg->size_shape);
    snprintf(sizes, sizeof sizes, "{\"dist\": \"%s\", \"mean_bytes\": %.6g%s}", cfg->size_kind,
             cfg->mean_bytes, shape);
    if (o->is_mixture == 3) { /* drawn where the mixtures are, so the draws before stay */
        const char *law;
        int rc2 = measured_cdf(&r, cdf_path, &cfg->mean_bytes, &law, err);
        if (rc2)
            return rc2;
        snprintf(cfg->size_kind, sizeof cfg->size_kind, "%s", law);
        snprintf(sizes, sizeof sizes, "{\"cdf\": \"%s\"}", cdf_path);
    } else if (o->is_mixture) { /* drawn after the rest, so the other draws stay as they were */
        int rc2 = mixture_cdf(&r, o->is_mixture == 2 ? 3 : 2, cdf_path, &cfg->mean_bytes, err);
        if (rc2)
            return rc2;
        snprintf(cfg->size_kind, sizeof cfg->size_kind, "%s", size_law_name(o));
        snprintf(sizes, sizeof sizes, "{\"cdf\": \"%s\"}", cdf_path);
    }
    cfg->p_local = 0;
    cfg->has_matrix = 0;
    if (o->is_local && tl_rng_uniform(&r) >= 0.5) { /* drawn last, as the mixture */
        cfg->p_local = uni(&r, 0.2, 1.0);
        int rc2 = local_matrix(cfg->p_local, mat_path, err);
        if (rc2)
            return rc2;
        cfg->has_matrix = 1;
    } else if (o->is_skew) {
        int rc2 = skew_matrix(&r, &cfg->p_local, mat_path, err);
        if (rc2)
            return rc2;
        cfg->has_matrix = 1;
    }
    /* the byte budget is drawn last, as the mixture and the matrix */
    size_limits lim = limits_of(o);
    double bytes = lim.lo < lim.hi ? exp(uni(&r, log(lim.lo), log(lim.hi))) : lim.lo;
    if (cfg->has_matrix)
        snprintf(spatial, sizeof spatial, "{\"type\": \"matrix\", \"matrix\": \"%s\"}",
                 mat_path);
    snprintf(buf, n,
             "{\"seed\": %llu, \"topology\": {\"type\": \"fabric\", \"pods\": 2, "
             "\"racks_per_pod\": 16, \"hosts_per_rack\": 8, \"planes\": 2, "
             "\"oversubscription\": %d, \"host_link_bps\": \"10Gbps\", "
             "\"fabric_link_bps\": \"40Gbps\", \"link_delay_ns\": 1000}, "
             "\"workload\": {\"flows\": %d, \"classes\": [{\"sizes\": %s, "
             "\"spatial\": %s, "
             "\"arrival\": {\"process\": \"lognormal\", \"sigma\": %.4f}, "
             "\"load\": {\"max_link_load\": %.4f}}]}, \"transport\": {\"cc\": \"%s\"}}",
             (unsigned long long)(tl_mix64(seed ^ (scen + 1)) >> 16), over[tl_rng_below(&r, 3)],
             (int)fmin(lim.max_flows, bytes / cfg->mean_bytes), sizes, spatial, cfg->sigma, cfg->target_load,
             cfg->cc);
    return 0;
}

static uint32_t per_scen(const m3_synth_opts *o)
{
    return o->is_net_truth ? M3_FABRIC_PATHS_NET : M3_FABRIC_PATHS;
}

/* k distinct paths drawn uniformly (a partial Fisher-Yates). */
static int draw_paths(const m3_paths *g, uint64_t seed, uint64_t scen, uint32_t k, uint32_t *out,
                      uint32_t *n_out, tl_err *err)
{
    uint32_t n = g->n_paths;
    k = n < k ? n : k;
    uint32_t *ids = malloc(((size_t)n + 1) * sizeof *ids);
    if (!ids)
        return tl_err_nomem(err);
    for (uint32_t i = 0; i < n; i++)
        ids[i] = i;
    tl_rng r;
    tl_rng_init(&r, seed, "m3-fabric-paths", scen);
    for (uint32_t i = 0; i < k; i++) {
        uint32_t j = i + (uint32_t)tl_rng_below(&r, n - i);
        uint32_t t = ids[i];
        ids[i] = ids[j], ids[j] = t;
        out[i] = ids[i];
    }
    free(ids);
    *n_out = k;
    return 0;
}

/* Network truth: every flow's slowdown in pktsim on the whole fabric, with
 * the scenario's drawn transport (NaN for a flow that did not finish). */
static int net_truth(const tl_world *w, const m3_sample *cfg, double *sd, tl_err *err)
{
    tl_pktsim *sim =
        tl_pktsim_create(w->topo, w->routes, &w->flows, &cfg->p, cfg->cc, w->sc.seed, err);
    int rc = sim ? tl_pktsim_run(sim, 0, NULL, err) : err && err->code ? err->code : TL_ENOMEM;
    if (!rc) {
        const tl_flow_result *res = tl_pktsim_results(sim);
        for (size_t i = 0; i < w->flows.n; i++)
            sd[i] = res[i].fct_ps < 0 ? NAN : tl_slowdown(res[i].fct_ps, res[i].ideal_ps);
    }
    tl_pktsim_destroy(sim);
    return rc;
}

/* Path pid's foreground slowdowns from the whole fabric's, grouped by output
 * bucket in flow order, into fp->sd; their counts must be the features'. */
static int net_labels(const m3_paths *g, const tl_flows *f, uint32_t pid, const double *net_sd,
                      m3_fpath *fp, tl_err *err)
{
    uint32_t n = g->n_fg[pid], at = 0, seen[M3_N_OUT] = {0};
    if (!(fp->sd = malloc(((size_t)n + 1) * sizeof *fp->sd)))
        return tl_err_nomem(err);
    for (int b = 0; b < M3_N_OUT; b++)
        for (size_t i = g->rep[pid]; i < f->n; i++)
            if (g->rec[i].path_of == pid && tl_bucket_of(f->v[i].size_bytes) == b)
                fp->sd[at++] = net_sd[i], seen[b]++;
    for (int b = 0; b < M3_N_OUT; b++)
        if (seen[b] != fp->feat.n_fg[b])
            return tl_err_set(err, TL_EINVAL, "fabric path %llu: %u foreground flows in bucket "
                              "%d, the features counted %u", (unsigned long long)fp->index,
                              seen[b], b, fp->feat.n_fg[b]);
    return 0;
}

/* Path-level truth: pktsim on the path's parking lot; fp->sd as above. */
static int path_labels(const m3_pathwl *pw, const m3_sample *cfg, uint64_t seed, m3_fpath *fp,
                       tl_err *err)
{
    uint32_t n_out[M3_N_OUT];
    double q[M3_N_OUT][M3_N_Q];
    if (!(fp->sd = malloc((pw->n_fg + 1) * sizeof *fp->sd)))
        return tl_err_nomem(err);
    int r = m3_path_pktsim(pw, &cfg->p, cfg->cc, tl_mix64(seed ^ fp->index), q, n_out, fp->sd,
                           err);
    if (r)
        return r;
    double *by = malloc((pw->n_fg + 1) * sizeof *by); /* grouped by output bucket */
    if (!by)
        return tl_err_nomem(err);
    size_t at = 0;
    for (int b = 0; b < M3_N_OUT; b++)
        for (size_t f = 0, j = 0; f < pw->n_flows; f++)
            if (pw->is_fg[f]) {
                if (tl_bucket_of(pw->flow[f].size_bytes) == b)
                    by[at++] = fp->sd[j];
                j++;
            }
    free(fp->sd);
    fp->sd = by;
    return 0;
}

/* An earlier folder whose labels a new one takes instead of running pktsim
 * again (gen-data --truth-from): its fabric.csv read whole, one line per
 * path in index order. The labels depend only on the scenario, which the
 * settings and the seed fix, not on the features, so a folder can be made
 * again under another feature schema at flowsim's cost. */
typedef struct truth_src {
    char *buf, **line, file[4096];
    size_t n;
} truth_src;

static void truth_src_fini(truth_src *t)
{
    free(t->buf), free(t->line);
    memset(t, 0, sizeof *t);
}

/* The header after its schema number: what must agree between the folders. */
static const char *past_schema(const char *h)
{
    const char *p = strstr(h, "schema ");
    p = p ? strchr(p, ',') : NULL;
    return p ? p : h;
}

static int truth_src_load(truth_src *t, const char *dir, const char *header, tl_err *err)
{
    memset(t, 0, sizeof *t);
    snprintf(t->file, sizeof t->file, "%s/fabric.csv", dir);
    size_t len = 0;
    if (!(t->buf = tl_read_file(t->file, &len, err)))
        return err && err->code ? err->code : TL_EIO;
    size_t cap = 1;
    for (size_t i = 0; i < len; i++)
        cap += t->buf[i] == '\n';
    if (!(t->line = malloc(cap * sizeof *t->line))) {
        truth_src_fini(t);
        return tl_err_nomem(err);
    }
    char *p = t->buf, *first = NULL;
    while (p && *p) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (!first)
            first = p;
        else
            t->line[t->n++] = p;
        p = nl ? nl + 1 : NULL;
    }
    if (!first || strcmp(past_schema(first), past_schema(header))) {
        int rc = tl_err_at(err, TL_EINVAL, t->file, 1, 0, NULL,
                           "--truth-from needs a folder made with the same settings: expected "
                           "\"%s\" (any schema), found \"%s\"", header, first ? first : "");
        truth_src_fini(t);
        return rc;
    }
    return 0;
}

/* Path fp's labels from line fp->index of t into fp->sd, after checking
 * that the line describes the same path (index, flows, foreground counts). */
static int reused_labels(const truth_src *t, m3_fpath *fp, tl_err *err)
{
    if (fp->index >= t->n)
        return tl_err_at(err, TL_EINVAL, t->file, 0, 0, NULL,
                         "--truth-from: no line for path %llu (the folder has %zu paths)",
                         (unsigned long long)fp->index, t->n);
    int lineno = (int)fp->index + 2;
    char *copy = strdup(t->line[fp->index]);
    m3_fpath old;
    int rc = copy ? m3_fpath_parse(copy, t->file, lineno, &old, err) : tl_err_nomem(err);
    free(copy);
    if (rc)
        return rc;
    int same = old.index == fp->index && old.n_flows == fp->n_flows && old.hops == fp->hops &&
               !strcmp(old.cc, fp->cc);
    for (int b = 0; b < M3_N_OUT; b++)
        same = same && old.feat.n_fg[b] == fp->feat.n_fg[b];
    if (!same)
        rc = tl_err_at(err, TL_EINVAL, t->file, lineno, 0, NULL,
                       "--truth-from: path %llu has other flows there (%zu flows, %s) than "
                       "drawn now (%zu, %s)", (unsigned long long)fp->index, old.n_flows, old.cc,
                       fp->n_flows, fp->cc);
    else
        fp->sd = old.sd, old.sd = NULL;
    m3_fpath_fini(&old);
    return rc;
}

/* The lines of scenario scen into recs[0 .. per_scen(o)) (*n_made). */
static int make_scenario(const char *dir, uint64_t seed, uint64_t scen, const m3_synth_opts *o,
                         const truth_src *reuse, m3_fpath *recs, uint32_t *n_made, tl_err *err)
{
    *n_made = 0;
    m3_sample cfg;
    char json[16384], cdf[4200], mat[4200];
    snprintf(cdf, sizeof cdf, "%s/.sizes-%llu.cdf", dir, (unsigned long long)scen);
    snprintf(mat, sizeof mat, "%s/.racks-%llu.txt", dir, (unsigned long long)scen);
    tl_world w;
    m3_paths g;
    memset(&g, 0, sizeof g);
    int rc = m3_fabric_scenario(seed, scen, o, cdf, mat, &cfg, json, sizeof json, err);
    rc = rc ? rc : tl_world_from_json(&w, json, 1, err);
    if (o->is_mixture)
        unlink(cdf); /* the workload is drawn: the law's file has served */
    if (cfg.has_matrix)
        unlink(mat);
    if (rc) {
        tl_params_fini(&cfg.p);
        return rc;
    }
    uint32_t per = per_scen(o), k = 0;
    uint32_t *sel = malloc(per * sizeof *sel);
    int is_net = o->is_net_truth && !reuse;
    double *net_sd = is_net ? malloc((w.flows.n + 1) * sizeof *net_sd) : NULL;
    rc = !sel || (is_net && !net_sd) ? tl_err_nomem(err) : 0;
    rc = rc ? rc : m3_paths_build(&g, w.routes, &w.flows,
                                  (uint32_t)tl_knob(&cfg.p, TL_K_NIC_MTU_BYTES), err);
    rc = rc ? rc : draw_paths(&g, seed, scen, per, sel, &k, err);
    if (!rc && is_net)
        rc = net_truth(&w, &cfg, net_sd, err);
    for (uint32_t i = 0; i < k && !rc; i++) {
        m3_fpath *fp = &recs[i];
        memset(fp, 0, sizeof *fp);
        fp->index = scen * per + i;
        snprintf(fp->cc, sizeof fp->cc, "%s", cfg.cc);
        m3_pathwl pw;
        memset(&pw, 0, sizeof pw);
        rc = m3_paths_workload(&g, w.topo, sel[i], &pw, err);
        rc = rc ? rc : m3_features(&pw, &cfg.p, cfg.cc, &fp->feat, err);
        fp->hops = pw.n_links;
        fp->n_flows = pw.n_flows;
        rc = rc      ? rc
             : reuse ? reused_labels(reuse, fp, err)
             : is_net ? net_labels(&g, &w.flows, sel[i], net_sd, fp, err)
                      : path_labels(&pw, &cfg, seed, fp, err);
        m3_pathwl_fini(&pw);
        *n_made = i + 1;
    }
    free(sel);
    free(net_sd);
    m3_paths_fini(&g);
    tl_world_fini(&w);
    tl_params_fini(&cfg.p);
    return rc;
}

void m3_fpath_write(FILE *f, const m3_fpath *r)
{
    fprintf(f, "%llu,%s,%d,%zu", (unsigned long long)r->index, r->cc, r->hops, r->n_flows);
    for (int i = 0; i < M3_N_SHARED; i++)
        m3_put_num(f, r->feat.shared[i]);
    size_t at = 0;
    for (int b = 0; b < M3_N_OUT; b++) {
        fprintf(f, ",%u", r->feat.n_fg[b]);
        for (int q = 0; q < M3_N_Q; q++)
            m3_put_num(f, r->feat.ref_q[b][q]);
        for (uint32_t j = 0; j < r->feat.n_fg[b]; j++)
            m3_put_num(f, r->sd[at++]);
    }
    fputc('\n', f);
}

int m3_fpath_parse(char *line, const char *file, int lineno, m3_fpath *r, tl_err *err)
{
    memset(r, 0, sizeof *r);
    m3_fields fs = {line, file, lineno, 0};
    double v;
    int rc = m3_field_num(&fs, &v, err);
    r->index = (uint64_t)v;
    rc = rc ? rc : m3_field_str(&fs, r->cc, sizeof r->cc, err);
    rc = rc ? rc : m3_field_num(&fs, &v, err);
    r->hops = (int)v;
    rc = rc ? rc : m3_field_num(&fs, &v, err);
    r->n_flows = (size_t)v;
    for (int i = 0; i < M3_N_SHARED && !rc; i++) {
        rc = m3_field_num(&fs, &v, err);
        r->feat.shared[i] = (float)v;
    }
    size_t cap = 16, at = 0;
    if (!rc && !(r->sd = malloc(cap * sizeof *r->sd)))
        rc = tl_err_nomem(err);
    for (int b = 0; b < M3_N_OUT && !rc; b++) {
        rc = m3_field_num(&fs, &v, err);
        if (!rc && (v < 0 || v > 1e7))
            rc = tl_err_at(err, TL_EPARSE, file, lineno, 0, NULL,
                           "field %d: expected a flow count, found %g", fs.col, v);
        r->feat.n_fg[b] = rc ? 0 : (uint32_t)v;
        for (int q = 0; q < M3_N_Q && !rc; q++)
            rc = m3_field_num(&fs, &r->feat.ref_q[b][q], err);
        for (uint32_t j = 0; j < r->feat.n_fg[b] && !rc; j++) {
            if (at == cap) {
                double *nv = realloc(r->sd, 2 * cap * sizeof *nv);
                if (!nv) {
                    rc = tl_err_nomem(err);
                    break;
                }
                r->sd = nv, cap *= 2;
            }
            rc = m3_field_num(&fs, &r->sd[at++], err);
        }
    }
    if (!rc && fs.p)
        rc = tl_err_at(err, TL_EPARSE, file, lineno, 0, NULL,
                       "more fields than a schema-%d fabric path has (%d)", M3_FEATURE_SCHEMA,
                       fs.col);
    if (rc)
        m3_fpath_fini(r);
    return rc;
}

uint32_t m3_fabric_per(const char *header)
{
    const char *p = strstr(header, ", paths ");
    return p ? (uint32_t)strtoul(p + 8, NULL, 10) : 0;
}

/* One block's scenarios as fan-out jobs: job j makes scenario at + j. */
typedef struct scen_job {
    const char *dir;
    uint64_t seed, at;
    const m3_synth_opts *o;
    const truth_src *reuse;
    m3_fpath *recs; /* (block, per) */
    uint32_t per;
    uint32_t *made; /* (block) */
} scen_job;

static int make_scenario_job(void *ctx, size_t j, void *local, tl_err *err)
{
    const scen_job *c = ctx;
    return make_scenario(c->dir, c->seed, c->at + j, c->o, c->reuse, c->recs + j * c->per,
                         &c->made[j], err);
}

int m3_fabric_gen(const char *dir, uint64_t seed, uint64_t n_scen, const m3_synth_opts *o,
                  const char *truth_from, int n_threads, tl_progress *prog, uint64_t *n_new,
                  tl_err *err)
{
    *n_new = 0;
    char path[4096], header[512];
    uint32_t per = per_scen(o);
    size_limits lim = limits_of(o);
    char bytes[64];
    if (lim.lo < lim.hi)
        snprintf(bytes, sizeof bytes, "%g-%g", lim.lo, lim.hi);
    else
        snprintf(bytes, sizeof bytes, "%g", lim.lo);
    char cfg[64], sizes[32] = "";
    m3_config_tag(o, cfg, sizeof cfg);
    if (size_law_name(o))
        snprintf(sizes, sizeof sizes, ", sizes %s", size_law_name(o));
    snprintf(header, sizeof header,
             "# tailor m3 fabric paths: schema %d, seed %llu, cc %s, paths %u, flows %d, "
             "mean size to %g, bytes %s, quantiles %d%s%s%s%s, labels %d",
             M3_FEATURE_SCHEMA, (unsigned long long)seed, o->only_cc ? o->only_cc : "any", per,
             lim.max_flows, MAX_MEAN, bytes, M3_N_Q, o->is_net_truth ? ", truth network" : "",
             sizes, o->is_local ? ", traffic local" : o->is_skew ? ", traffic skew" : "", cfg,
             M3_LABELS_VERSION);
    truth_src reuse, *src = truth_from ? &reuse : NULL;
    if (src && truth_src_load(src, truth_from, header, err))
        return err && err->code ? err->code : TL_EINVAL;
    long have = 0;
    FILE *f = m3_samples_open(dir, "fabric.csv", header, per, path, sizeof path, &have, err);
    if (!f) {
        if (src)
            truth_src_fini(src);
        return err && err->code ? err->code : TL_EIO;
    }
    int rc = 0, nt = n_threads > 0 ? n_threads : omp_get_max_threads();
    /* scenarios in parallel blocks, one thread each (their costs vary 10x,
     * so a block holds several per thread), written in order */
    uint32_t block = (uint32_t)(2 * nt);
    m3_fpath *recs = calloc((size_t)block * per, sizeof *recs);
    uint32_t *made = calloc(block, sizeof *made);
    rc = !recs || !made ? tl_err_nomem(err) : 0;
    scen_job job = {dir, seed, 0, o, src, recs, per, made};
    for (uint64_t at = (uint64_t)have / per; at < n_scen && !rc; at += block) {
        uint32_t nb = (uint32_t)(n_scen - at < block ? n_scen - at : block);
        memset(made, 0, block * sizeof *made); /* a skipped job makes nothing */
        job.at = at;
        tl_fanout fo = {.n_jobs = nb, .n_threads = nt, .run = make_scenario_job, .ctx = &job};
        size_t failed;
        tl_err job_err;
        int job_rc = tl_fanout_run(&fo, &failed, &job_err);
        for (uint32_t j = 0; j < nb; j++) {
            if (!rc && j == failed) {
                if (err)
                    *err = job_err;
                rc = job_rc;
            }
            /* a fabric with fewer paths than a block would break resuming */
            if (!rc && made[j] < per)
                rc = tl_err_set(err, TL_EINVAL, "fabric scenario %llu has only %u paths",
                                (unsigned long long)(at + j), made[j]);
            for (uint32_t i = 0; i < made[j]; i++) {
                if (!rc)
                    m3_fpath_write(f, &recs[(size_t)j * per + i]);
                m3_fpath_fini(&recs[(size_t)j * per + i]);
            }
            if (!rc)
                *n_new += made[j];
        }
        rc = m3_samples_sync(f, path, rc, err);
        tl_progress_report(prog, "m3 fabric scenarios", (double)(at + nb), (double)n_scen,
                           "scenarios");
    }
    if (fclose(f) != 0 && !rc)
        rc = tl_err_at(err, TL_EIO, path, 0, 0, NULL, "write failed: %s", strerror(errno));
    free(recs), free(made);
    if (src)
        truth_src_fini(src);
    return rc;
}
