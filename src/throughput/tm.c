/* Traffic matrices for the throughput benchmark (topology-throughput.txt
 * §II-C, §III): all-to-all, random matching, longest matching, Kodialam,
 * skewed, and files; node level, in units of one server's rate (hose model). */
#include "tailor/throughput.h"
#include "tailor/memlimit.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/fileio.h"
#include "tailor/rng.h"
#include "throughput/throughput_int.h"

void tl_tm_fini(tl_tm *tm)
{
    if (!tm)
        return;
    free(tm->src);
    free(tm->dst);
    free(tm->demand);
    memset(tm, 0, sizeof *tm);
}

static int tm_alloc(tl_tm *tm, size_t n, tl_err *err)
{
    memset(tm, 0, sizeof *tm);
    size_t m = n ? n : 1;
    char what[64];
    snprintf(what, sizeof what, "a traffic matrix of %zu pairs", n);
    if (tl_mem_check((double)m * (2 * sizeof *tm->src + sizeof *tm->demand) * 4, what, err))
        return err ? err->code : TL_ERANGE; /* the solvers keep several arrays per pair */
    tm->src = malloc(m * sizeof *tm->src);
    tm->dst = malloc(m * sizeof *tm->dst);
    tm->demand = malloc(m * sizeof *tm->demand);
    if (!tm->src || !tm->dst || !tm->demand) {
        tl_tm_fini(tm);
        return tl_err_nomem(err);
    }
    return 0;
}

static void tm_add(tl_tm *tm, uint32_t s, uint32_t d, double w)
{
    tm->src[tm->n] = s;
    tm->dst[tm->n] = d;
    tm->demand[tm->n] = w;
    tm->n++;
}

int tl_tm_all_to_all(const tl_tgraph *g, tl_tm *tm, tl_err *err)
{
    uint32_t n = g->n_nodes, S = tl_tgraph_n_servers(g);
    if (S < 2)
        return tl_err_set(err, TL_EINVAL, "all-to-all needs at least 2 servers");
    size_t pairs = 0;
    for (uint32_t i = 0; i < n; i++)
        if (g->servers[i])
            for (uint32_t j = 0; j < n; j++)
                pairs += j != i && g->servers[j];
    int rc = tm_alloc(tm, pairs, err);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < n; i++)
        if (g->servers[i])
            for (uint32_t j = 0; j < n; j++)
                if (j != i && g->servers[j])
                    tm_add(tm, i, j, (double)g->servers[i] * g->servers[j] / (S - 1));
    return 0;
}

typedef struct pair_w {
    uint64_t key; /* src node << 32 | dst node */
    double w;
} pair_w;

static int cmp_pair(const void *a, const void *b)
{
    const pair_w *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->w > y->w) - (x->w < y->w); /* equal keys: a fixed order, so sums are exact-repeatable */
}

/* Aggregates server-level pairs (sn[i] -> dn[i], weight w[i]) into node-level
 * commodities, dropping pairs within one node (they need no network). */
static int aggregate(const uint32_t *sn, const uint32_t *dn, const double *w, size_t m, tl_tm *tm,
                     tl_err *err)
{
    pair_w *v = malloc((m ? m : 1) * sizeof *v);
    if (!v)
        return tl_err_nomem(err);
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (sn[i] != dn[i])
            v[k++] = (pair_w){((uint64_t)sn[i] << 32) | dn[i], w[i]};
    qsort(v, k, sizeof *v, cmp_pair);
    int rc = tm_alloc(tm, k, err);
    for (size_t i = 0; !rc && i < k;) {
        uint64_t key = v[i].key;
        double sum = 0;
        for (; i < k && v[i].key == key; i++)
            sum += v[i].w;
        tm_add(tm, (uint32_t)(key >> 32), (uint32_t)key, sum);
    }
    free(v);
    return rc;
}

/* Servers taking part (k per node, 0 = all), as their nodes. */
static uint32_t *server_nodes(const tl_tgraph *g, uint32_t k, size_t *m, tl_err *err)
{
    size_t total = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        total += k && g->servers[i] > k ? k : g->servers[i];
    uint32_t *v = malloc((total ? total : 1) * sizeof *v);
    if (!v) {
        tl_err_nomem(err);
        return NULL;
    }
    *m = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        uint32_t c = k && g->servers[i] > k ? k : g->servers[i];
        for (uint32_t j = 0; j < c; j++)
            v[(*m)++] = i;
    }
    return v;
}

/* A random matching of servers: server i sends to perm(i), a single cycle
 * through all of them (Sattolo); each flow is one server's rate. */
int tl_tm_random_matching(const tl_tgraph *g, uint32_t k, uint64_t seed, tl_tm *tm, tl_err *err)
{
    size_t m;
    uint32_t *sn = server_nodes(g, k, &m, err);
    if (!sn)
        return TL_ENOMEM;
    if (m < 2) {
        free(sn);
        return tl_err_set(err, TL_EINVAL, "a matching needs at least 2 servers");
    }
    uint32_t *perm = malloc(m * sizeof *perm), *dn = malloc(m * sizeof *dn);
    double *w = malloc(m * sizeof *w);
    if (!perm || !dn || !w) {
        free(sn);
        free(perm);
        free(dn);
        free(w);
        return tl_err_nomem(err);
    }
    tl_rng r;
    tl_rng_init(&r, seed, "tm-matching", 0);
    for (size_t i = 0; i < m; i++)
        perm[i] = (uint32_t)i;
    for (size_t i = m - 1; i > 0; i--) {
        size_t j = tl_rng_below(&r, i);
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (size_t i = 0; i < m; i++) {
        dn[i] = sn[perm[i]];
        w[i] = 1;
    }
    int rc = aggregate(sn, dn, w, m, tm, err);
    free(sn);
    free(perm);
    free(dn);
    free(w);
    return rc;
}



/* Row a of the longest matching's weights: servers that can be paired x hop
 * distance, over the nodes that have servers. */
typedef struct lm_rows {
    const tl_tgraph *g;
    const uint16_t *d;
    const uint32_t *nodes;
    uint32_t m;
} lm_rows;

static void lm_row(void *ctx, uint32_t a, int32_t *w)
{
    const lm_rows *r = ctx;
    uint32_t i = r->nodes[a], si = r->g->servers[i];
    const uint16_t *di = r->d + (size_t)i * r->g->n_nodes;
    for (uint32_t b = 0; b < r->m; b++) {
        uint32_t j = r->nodes[b], sj = r->g->servers[j];
        w[b] = (int32_t)di[j] * (int32_t)(si < sj ? si : sj);
    }
}

int tl_tm_longest_matching(const tl_tgraph *g, tl_tm *tm, tl_err *err)
{
    uint16_t *d = tl_tgraph_distances(g, err);
    if (!d)
        return err ? err->code : TL_ENOMEM;
    uint32_t n = g->n_nodes, m = 0;
    uint32_t *nodes = malloc(((size_t)n + 1) * sizeof *nodes);
    if (!nodes) {
        free(d);
        return tl_err_nomem(err);
    }
    for (uint32_t i = 0; i < n; i++)
        if (g->servers[i])
            nodes[m++] = i;
    uint32_t *assign = malloc(((size_t)m + 1) * sizeof *assign);
    int rc = !assign ? tl_err_nomem(err) : 0;
    /* Servers beyond 2^31 / diameter would overflow a weight. */
    for (uint32_t a = 0; a < m && !rc; a++)
        if (g->servers[nodes[a]] > INT32_MAX / UINT16_MAX)
            rc = tl_err_set(err, TL_ERANGE, "longest matching: node %u has %u servers, at most "
                            "%d supported", nodes[a], g->servers[nodes[a]], INT32_MAX / UINT16_MAX);
    lm_rows rows = {g, d, nodes, m};
    if (!rc)
        rc = tl_assign_max(m, lm_row, &rows, assign, err);
    if (!rc)
        rc = tm_alloc(tm, m, err);
    if (!rc)
        for (uint32_t a = 0; a < m; a++) {
            uint32_t i = nodes[a], j = nodes[assign[a]];
            uint32_t pairs = g->servers[i] < g->servers[j] ? g->servers[i] : g->servers[j];
            if (i != j)
                tm_add(tm, i, j, pairs);
        }
    free(d);
    free(nodes);
    free(assign);
    return rc;
}

/* The paper's non-uniform TM (§IV-A2): the longest matching with a random
 * fraction frac of its server-to-server flows weighted 10, hose-normalized
 * (so with any large flow, a unit flow becomes 1/10). */
int tl_tm_skewed(const tl_tgraph *g, double frac, uint64_t seed, tl_tm *tm, tl_err *err)
{
    if (!(frac >= 0 && frac <= 1))
        return tl_err_set(err, TL_ERANGE, "skewed TM: expected a fraction in [0, 1], found %g", frac);
    int rc = tl_tm_longest_matching(g, tm, err);
    if (rc)
        return rc;
    tl_rng r;
    tl_rng_init(&r, seed, "tm-skewed", 0);
    for (size_t k = 0; k < tm->n; k++) {
        uint32_t pairs = (uint32_t)tm->demand[k];
        double w = 0;
        for (uint32_t i = 0; i < pairs; i++)
            w += tl_rng_uniform(&r) < frac ? 10 : 1;
        tm->demand[k] = w;
    }
    if ((rc = tl_tm_hose_normalize(g, tm, err)))
        tl_tm_fini(tm);
    return rc;
}

int tl_tm_kodialam(const tl_tgraph *g, tl_tm *tm, tl_err *err)
{
    uint16_t *d = tl_tgraph_distances(g, err);
    if (!d)
        return err ? err->code : TL_ENOMEM;
    uint32_t n = g->n_nodes;
    size_t cnt = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!g->servers[i])
            continue;
        uint16_t far = 0;
        for (uint32_t j = 0; j < n; j++)
            if (g->servers[j] && d[(size_t)i * n + j] > far)
                far = d[(size_t)i * n + j];
        for (uint32_t j = 0; j < n; j++)
            cnt += g->servers[j] && j != i && d[(size_t)i * n + j] == far;
    }
    int rc = tm_alloc(tm, cnt, err);
    for (uint32_t i = 0; !rc && i < n; i++) {
        if (!g->servers[i])
            continue;
        uint16_t far = 0;
        uint32_t n_far = 0;
        for (uint32_t j = 0; j < n; j++)
            if (g->servers[j] && d[(size_t)i * n + j] > far)
                far = d[(size_t)i * n + j];
        for (uint32_t j = 0; j < n; j++)
            n_far += g->servers[j] && j != i && d[(size_t)i * n + j] == far;
        for (uint32_t j = 0; j < n; j++)
            if (g->servers[j] && j != i && d[(size_t)i * n + j] == far)
                tm_add(tm, i, j, (double)g->servers[i] / n_far);
    }
    free(d);
    if (!rc && g)
        rc = tl_tm_hose_normalize(g, tm, err);
    if (rc)
        tl_tm_fini(tm);
    return rc;
}

int tl_tm_hose_normalize(const tl_tgraph *g, tl_tm *tm, tl_err *err)
{
    double *out = calloc(g->n_nodes + 1, sizeof *out), *in = calloc(g->n_nodes + 1, sizeof *in);
    if (!out || !in) {
        free(out);
        free(in);
        return tl_err_nomem(err);
    }
    for (size_t k = 0; k < tm->n; k++) {
        out[tm->src[k]] += tm->demand[k];
        in[tm->dst[k]] += tm->demand[k];
    }
    double worst = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        double s = g->servers[i] ? (double)g->servers[i] : 1;
        if (out[i] / s > worst)
            worst = out[i] / s;
        if (in[i] / s > worst)
            worst = in[i] / s;
    }
    if (worst > 0)
        for (size_t k = 0; k < tm->n; k++)
            tm->demand[k] /= worst;
    free(out);
    free(in);
    return 0;
}

int tl_tm_load(const tl_tgraph *g, const char *path, tl_tm *tm, tl_err *err)
{
    memset(tm, 0, sizeof *tm);
    tl_lines lr;
    int rc = tl_lines_open(&lr, path, err);
    if (rc)
        return rc;
    size_t cap = 0;
    char *s;
    while ((s = tl_lines_next(&lr))) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '#')
            continue;
        unsigned long a, b;
        double w;
        int used = 0;
        if (sscanf(s, "%lu %lu %lf %n", &a, &b, &w, &used) != 3 || s[used]) {
            rc = tl_err_at(err, TL_EPARSE, path, lr.line, 1, NULL,
                           "expected 'src dst demand', found '%.60s'", s);
            break;
        }
        if (g ? a >= g->n_nodes || b >= g->n_nodes : a >= UINT32_MAX || b >= UINT32_MAX) {
            rc = tl_err_at(err, TL_ERANGE, path, lr.line, 1, NULL,
                           "node %lu does not exist (the topology has nodes 0..%u)",
                           (g ? a >= g->n_nodes : a >= UINT32_MAX) ? a : b,
                           g ? g->n_nodes - 1 : UINT32_MAX - 1);
            break;
        }
        if (a == b) {
            rc = tl_err_at(err, TL_ERANGE, path, lr.line, 1, NULL,
                           "source and destination are the same node %lu", a);
            break;
        }
        if (!(w >= 0) || !isfinite(w)) {
            rc = tl_err_at(err, TL_ERANGE, path, lr.line, 1, NULL,
                           "expected a demand >= 0, found %g", w);
            break;
        }
        if (w == 0)
            continue;
        if (tm->n == cap) {
            cap = cap ? 2 * cap : 256;
            uint32_t *ns = realloc(tm->src, cap * sizeof *ns);
            if (ns)
                tm->src = ns;
            uint32_t *nd = realloc(tm->dst, cap * sizeof *nd);
            if (nd)
                tm->dst = nd;
            double *nw = realloc(tm->demand, cap * sizeof *nw);
            if (nw)
                tm->demand = nw;
            if (!ns || !nd || !nw) {
                rc = tl_err_nomem(err);
                break;
            }
        }
        tm_add(tm, (uint32_t)a, (uint32_t)b, w);
    }
    rc = tl_lines_result(&lr, rc, err);
    tl_lines_close(&lr);
    if (!rc && tm->n == 0)
        rc = tl_err_at(err, TL_EPARSE, path, 0, 0, NULL, "the traffic matrix has no demand");
    if (!rc && g)
        rc = tl_tm_hose_normalize(g, tm, err);
    if (rc)
        tl_tm_fini(tm);
    return rc;
}

int tl_tm_save(const tl_tm *tm, const char *path, tl_err *err)
{
    tl_afile af;
    FILE *f = tl_afile_open_buffered(&af, path, err);
    if (!f)
        return err ? err->code : TL_EIO;
    fprintf(f, "# tailor traffic matrix: src dst demand (node ids; demand in server rates)\n");
    for (size_t k = 0; k < tm->n; k++)
        fprintf(f, "%u %u %.17g\n", tm->src[k], tm->dst[k], tm->demand[k]);
    return tl_afile_commit(&af, err);
}
