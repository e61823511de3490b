/* Structured topology families benchmarked by topology-throughput.txt §III-A.3 and §IV:
 * hypercube, flattened butterfly and HyperX (one Hamming-graph builder), Dragonfly, Slim
 * Fly, Long Hop (direct networks: servers hang off switches), and the server-centric BCube
 * and DCell (servers are hosts with several links). The random families (Jellyfish,
 * same-equipment graphs) are in gen_random.c. */
#include "topo_int.h"

#include <stdio.h>
#include <stdlib.h>

/* Every link of these families, as the paper uses unit capacities everywhere. */
#define DEFAULT_BPS 10000000000ull
#define DELAY_PS 1000000 /* 1 us */

static int fail_code(const tl_err *err) { return err && err->code ? err->code : TL_ENOMEM; }

static int bad_param(tl_err *err, int code, const char *name, const char *fmt, uint64_t v)
{
    return tl_err_at(err, code, NULL, 0, 0, name, fmt, (unsigned long long)v);
}

/* ------------------------------------------------------------ direct networks */

/* A direct network under construction: n_switches switches with servers_per_switch hosts
 * each. Host i of switch s is node s*spp + i and switch s is node sw0 + s; the host links
 * are added by direct_begin, the caller adds switch links with direct_link and ends with
 * direct_finish, which destroys t on failure. */
typedef struct direct {
    tl_topo *t;
    uint32_t sw0;
    uint64_t rate_bps;
} direct;

/* switches_per_pod: switch s is in pod s / switches_per_pod (0: everything pod 0).
 * n_switch_links is only for the size check. */
static int direct_begin(direct *d, uint64_t n_switches, uint32_t spp, uint64_t n_switch_links,
                        uint32_t switches_per_pod, uint64_t link_bps, tl_err *err)
{
    d->t = NULL;
    d->rate_bps = link_bps ? link_bps : DEFAULT_BPS;
    int rc = tl_topo_require_count("servers_per_switch", spp, err);
    if (rc)
        return rc;
    uint64_t n_hosts = tl_sat_mul(n_switches, spp);
    if ((rc = tl_topo_check_count(tl_sat_add(n_hosts, n_switches),
                                  tl_sat_add(n_hosts, n_switch_links), err)))
        return rc;
    if (!(d->t = tl_topo_create(err)))
        return fail_code(err);
    d->sw0 = (uint32_t)n_hosts;
    for (uint32_t s = 0; s < n_switches; s++) {
        int pod = switches_per_pod ? (int)(s / switches_per_pod) : 0;
        for (uint32_t i = 0; i < spp; i++)
            if (tl_topo_add_node(d->t, TL_NODE_HOST, 0, pod, (int)s, 0, err) < 0)
                return fail_code(err);
    }
    for (uint32_t s = 0; s < n_switches; s++) {
        int pod = switches_per_pod ? (int)(s / switches_per_pod) : 0;
        if (tl_topo_add_node(d->t, TL_NODE_SWITCH, 1, pod, (int)s, 0, err) < 0)
            return fail_code(err);
    }
    for (uint32_t hst = 0; hst < n_hosts; hst++)
        if (tl_topo_add_link(d->t, hst, d->sw0 + hst / spp, d->rate_bps, DELAY_PS, err) < 0)
            return fail_code(err);
    return 0;
}

static int direct_link(direct *d, uint64_t s1, uint64_t s2, tl_err *err)
{
    if (tl_topo_add_link(d->t, d->sw0 + (uint32_t)s1, d->sw0 + (uint32_t)s2, d->rate_bps, DELAY_PS,
                         err) < 0)
        return fail_code(err);
    return 0;
}

/* rc: what the builder returned so far. */
static tl_topo *direct_finish(direct *d, int rc, tl_err *err)
{
    if (rc || tl_topo_finish(d->t, err)) {
        tl_topo_destroy(d->t);
        return NULL;
    }
    return d->t;
}

/* -------------------------------------------------------------- Hamming graphs */

/* K_sizes[0] x ... x K_sizes[n_dims-1] with `mult` links per adjacent pair: the HyperX,
 * and with all sizes equal the flattened butterfly (and with all sizes 2 the hypercube).
 * Switch id = sum_i coord_i * stride_i, stride_0 = 1. Callers have checked sizes[i] >= 2
 * and that the switch count fits. */
static tl_topo *hamming(const uint32_t *sizes, uint32_t n_dims, uint32_t mult, uint32_t spp,
                        uint64_t link_bps, tl_err *err)
{
    uint64_t n_sw = 1, degree = 0;
    for (uint32_t i = 0; i < n_dims; i++) {
        n_sw = tl_sat_mul(n_sw, sizes[i]);
        degree = tl_sat_add(degree, tl_sat_mul(mult, sizes[i] - 1));
    }
    direct d;
    int rc = direct_begin(&d, n_sw, spp, tl_sat_mul(n_sw, degree) / 2, 0, link_bps, err);
    if (rc)
        return direct_finish(&d, rc, err);
    for (uint64_t u = 0; u < n_sw && !rc; u++) {
        uint64_t stride = 1;
        for (uint32_t i = 0; i < n_dims && !rc; i++) {
            uint64_t digit = (u / stride) % sizes[i];
            for (uint64_t v = digit + 1; v < sizes[i] && !rc; v++)
                for (uint32_t m = 0; m < mult && !rc; m++)
                    rc = direct_link(&d, u, u + (v - digit) * stride, err);
            stride *= sizes[i];
        }
    }
    return direct_finish(&d, rc, err);
}

/* Most dimensions the builders take: a Hamming graph of sizes >= 2 has 2^dims switches at
 * least, so beyond 31 the count check could overflow; TL_TOPO_MAX_COUNT (2^22) refuses
 * anything past 22 anyway. */
#define MAX_DIMS 31

tl_topo *tl_topo_hypercube(uint32_t dim, uint32_t servers_per_switch, uint64_t link_bps,
                           tl_err *err)
{
    if (dim < 1 || dim > MAX_DIMS - 1)
        return bad_param(err, TL_ERANGE, "dim", "expected 1..30, found %llu", dim), NULL;
    uint32_t sizes[MAX_DIMS];
    for (uint32_t i = 0; i < dim; i++)
        sizes[i] = 2;
    return hamming(sizes, dim, 1, servers_per_switch, link_bps, err);
}

tl_topo *tl_topo_flattened_butterfly(uint32_t k, uint32_t n_dims, uint32_t servers_per_switch,
                                     uint64_t link_bps, tl_err *err)
{
    if (k < 2)
        return bad_param(err, TL_ERANGE, "k", "expected >= 2, found %llu", k), NULL;
    if (n_dims < 1)
        return bad_param(err, TL_ERANGE, "n_dims", "expected >= 1, found %llu", n_dims), NULL;
    if (n_dims > MAX_DIMS)
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, "n_dims",
                         "%u-ary %u-dimensional flattened butterfly has more than %u switches",
                         k, n_dims, TL_TOPO_MAX_COUNT),
               NULL;
    uint32_t sizes[MAX_DIMS];
    for (uint32_t i = 0; i < n_dims; i++)
        sizes[i] = k;
    return hamming(sizes, n_dims, 1, servers_per_switch, link_bps, err);
}

tl_topo *tl_topo_hyperx(const uint32_t *sizes, uint32_t n_dims, uint32_t multiplicity,
                        uint32_t servers_per_switch, uint64_t link_bps, tl_err *err)
{
    if (n_dims < 1 || !sizes)
        return bad_param(err, TL_ERANGE, "n_dims", "expected >= 1 sizes, found %llu",
                         sizes ? n_dims : 0),
               NULL;
    if (n_dims > MAX_DIMS)
        return bad_param(err, TL_ERANGE, "n_dims",
                         "expected at most 31 (more has over 2^31 switches), found %llu", n_dims),
               NULL;
    for (uint32_t i = 0; i < n_dims; i++)
        if (sizes[i] < 2) {
            char path[32];
            snprintf(path, sizeof path, "sizes[%u]", i);
            return bad_param(err, TL_ERANGE, path, "expected >= 2, found %llu", sizes[i]), NULL;
        }
    if (multiplicity < 1)
        return bad_param(err, TL_ERANGE, "multiplicity", "expected >= 1, found %llu", 0), NULL;
    return hamming(sizes, n_dims, multiplicity, servers_per_switch, link_bps, err);
}

/* -------------------------------------------------------------------- Dragonfly */

/* Global links, as topobench's Dragonfly (the paper's artifact) assigns them: group pairs
 * (i, j), i < j, are visited in lexicographic order, and each pair's one link goes from
 * the next unused switch of group i to the next unused switch of group j, each group
 * handing out its switches round-robin (0, 1, .., a-1, 0, ...). A group has g - 1 = a*h
 * global links, so every switch gets exactly h. */
tl_topo *tl_topo_dragonfly(uint32_t a, uint32_t p, uint32_t h, uint64_t link_bps, tl_err *err)
{
    if (a < 1)
        return bad_param(err, TL_ERANGE, "a", "expected >= 1 switches per group, found %llu", a),
               NULL;
    if (h < 1)
        return bad_param(err, TL_ERANGE, "h", "expected >= 1 global links per switch, found %llu",
                         h),
               NULL;
    if (p < 1)
        return bad_param(err, TL_ERANGE, "p", "expected >= 1 servers per switch, found %llu", p),
               NULL;
    uint64_t g = tl_sat_add(tl_sat_mul(a, h), 1);
    uint64_t n_sw = tl_sat_mul(g, a);
    uint64_t n_links = tl_sat_add(tl_sat_mul(g, tl_sat_mul(a, a - 1) / 2),
                                  tl_sat_mul(g, g - 1) / 2);
    direct d;
    /* pods are groups; p doubles as servers_per_switch */
    int rc = direct_begin(&d, n_sw, p, n_links, a, link_bps, err);
    if (rc)
        return direct_finish(&d, rc, err);
    for (uint64_t grp = 0; grp < g && !rc; grp++)
        for (uint32_t r1 = 0; r1 < a && !rc; r1++)
            for (uint32_t r2 = r1 + 1; r2 < a && !rc; r2++)
                rc = direct_link(&d, grp * a + r1, grp * a + r2, err);
    uint32_t *next = calloc(g, sizeof *next); /* (g) next switch to hand out, mod a */
    if (!next && !rc)
        rc = tl_err_nomem(err);
    for (uint64_t gi = 0; gi < g && !rc; gi++)
        for (uint64_t gj = gi + 1; gj < g && !rc; gj++) {
            rc = direct_link(&d, gi * a + next[gi], gj * a + next[gj], err);
            next[gi] = (next[gi] + 1) % a;
            next[gj] = (next[gj] + 1) % a;
        }
    free(next);
    return direct_finish(&d, rc, err);
}

/* --------------------------------------------------------------------- Slim Fly */

static int is_prime(uint32_t q)
{
    if (q < 2)
        return 0;
    for (uint32_t f = 2; (uint64_t)f * f <= q; f++)
        if (q % f == 0)
            return 0;
    return 1;
}

static uint64_t pow_mod(uint64_t b, uint64_t e, uint64_t m)
{
    uint64_t r = 1 % m;
    for (b %= m; e; e >>= 1, b = b * b % m)
        if (e & 1)
            r = r * b % m;
    return r;
}

/* Least primitive root of the prime q: x whose order is q - 1, i.e. x^((q-1)/f) != 1 for
 * every prime factor f of q - 1. */
static uint32_t primitive_root(uint32_t q)
{
    uint32_t factors[32], n_f = 0, rest = q - 1;
    for (uint32_t f = 2; (uint64_t)f * f <= rest; f++)
        if (rest % f == 0) {
            factors[n_f++] = f;
            while (rest % f == 0)
                rest /= f;
        }
    if (rest > 1)
        factors[n_f++] = rest;
    for (uint32_t x = 2; x < q; x++) {
        uint32_t i = 0;
        while (i < n_f && pow_mod(x, (q - 1) / factors[i], q) != 1)
            i++;
        if (i == n_f)
            return x;
    }
    return 1; /* q == 2: 1 generates GF(2)* */
}

/* McKay-Miller-Siran graph as Besta and Hoefler build Slim Fly (SC'14 §III, also
 * ../shared/notes/topobench_paraleon.md A1): xi a primitive element of GF(q), q = 4w + delta.
 * Generator sets, as exponents of xi:
 *   delta = +1: X  = {0, 2, .., q-3} (even),  X' = {1, 3, .., q-2} (odd);
 *   delta = -1: X  = {0, 2, .., 2w-2} u {2w-1, 2w+1, .., 4w-3},
 *               X' = {1, 3, .., 2w-1} u {2w, 2w+2, .., 4w-2}
 * (for delta = -1 both hold xi^(2w-1) = -1, and xi^(4w-2) = xi^(q-1) = 1 is in X').
 * Both are closed under negation (-1 = xi^((q-1)/2)), so adjacency is symmetric:
 *   (0,x,y) ~ (0,x,y') iff y - y' in X;  (1,m,c) ~ (1,m,c') iff c - c' in X';
 *   (0,x,y) ~ (1,m,c)  iff y = m*x + c.
 * |X| = |X'| = (q - delta)/2 and every router has q cross links: degree (3q - delta)/2.
 * Links: pairs inside each (0,x) column, inside each (1,m) column, then cross links by
 * (x, y, m). */
tl_topo *tl_topo_slimfly(uint32_t q, uint32_t servers_per_switch, uint64_t link_bps, tl_err *err)
{
    if (!is_prime(q))
        return bad_param(err, TL_ERANGE, "q",
                         "expected a prime (prime powers need GF(p^n) arithmetic, not "
                         "implemented), found %llu",
                         q),
               NULL;
    if (q % 4 == 2)
        return bad_param(err, TL_ERANGE, "q",
                         "expected q = 4w + delta with delta in {-1, 0, 1} and w >= 1, found %llu",
                         q),
               NULL;
    int delta = q % 4 == 1 ? 1 : -1;
    uint32_t w = (uint32_t)(((int64_t)q - delta) / 4);
    uint64_t n_sw = 2ull * q * q;
    uint64_t degree = delta > 0 ? (3ull * q - 1) / 2 : (3ull * q + 1) / 2;
    uint64_t n_hosts = tl_sat_mul(n_sw, servers_per_switch);
    if (tl_topo_check_count(tl_sat_add(n_hosts, n_sw), tl_sat_add(n_hosts, n_sw * degree / 2), err))
        return NULL;
    uint8_t *in_x = calloc(q, 1), *in_xp = calloc(q, 1); /* (q) membership of X, X' */
    direct d = {0};
    int rc = !in_x || !in_xp ? tl_err_nomem(err) : 0;
    if (!rc) {
        uint32_t xi = primitive_root(q);
        uint64_t pw = 1; /* xi^e */
        /* exponents run to 4w - 2 = q - 1 when delta = -1: xi^(q-1) = 1 is in X' */
        uint32_t e_max = delta > 0 ? q - 2 : 4 * w - 2;
        for (uint32_t e = 0; e <= e_max; e++, pw = pw * xi % q) {
            int is_even = e % 2 == 0;
            if (delta > 0) {
                in_x[pw] |= is_even;
                in_xp[pw] |= !is_even;
            } else {
                in_x[pw] |= e <= 2 * w - 2 ? is_even : !is_even;
                in_xp[pw] |= e <= 2 * w - 1 ? !is_even : is_even;
            }
        }
        rc = direct_begin(&d, n_sw, servers_per_switch, n_sw * degree / 2, 0, link_bps, err);
    }
    uint64_t qq = (uint64_t)q * q;
    for (uint32_t side = 0; side < 2 && !rc; side++) {
        const uint8_t *set = side ? in_xp : in_x;
        for (uint64_t col = 0; col < q && !rc; col++)
            for (uint64_t y1 = 0; y1 < q && !rc; y1++)
                for (uint64_t y2 = y1 + 1; y2 < q && !rc; y2++)
                    if (set[y2 - y1])
                        rc = direct_link(&d, side * qq + col * q + y1, side * qq + col * q + y2,
                                         err);
    }
    for (uint64_t x = 0; x < q && !rc; x++)
        for (uint64_t y = 0; y < q && !rc; y++)
            for (uint64_t m = 0; m < q && !rc; m++) {
                uint64_t c = (y + q - m * x % q) % q;
                rc = direct_link(&d, x * q + y, qq + m * q + c, err);
            }
    free(in_x);
    free(in_xp);
    if (!d.t)
        return NULL;
    return direct_finish(&d, rc, err);
}

/* --------------------------------------------------------------------- Long Hop */

/* Tomic's Long Hop networks (ANCS'13, the paper's [41], not in ../shared) are Cayley
 * graphs of Z_2^dim whose generators are the m columns of the generator matrix
 * G = [I_dim | A] of a linear [m, dim] code. The eigenvalue of such a graph for y in
 * Z_2^dim is m - 2 wt(yG), so its spectral gap is twice the code's minimum distance, and a
 * good code makes a good expander (our reading; Tomic's paper and tables were not
 * available, ../shared/notes/topobench_paraleon.md A1 recalls the idea unverified).
 *
 * Our concrete rule, chosen because it exists for every dim, is the shortened Hamming
 * code [dim + r, dim, 3]:
 *   - r is the least with 2^r - r - 1 >= dim;
 *   - the rows of A are the first dim r-bit vectors of weight >= 2, by weight descending
 *     then value ascending (1^r, then the weight r-1 vectors, ...); distinct rows of
 *     weight >= 2 give minimum distance 3;
 *   - the generators are the unit vectors and the r columns of A (column j is the dim-bit
 *     vector whose bit i is bit j of row i), so the network degree is dim + r.
 * For dim >= 3 the rows include 1^r and (for r >= 4, where dim >= r + 1) every weight
 * r-1 vector, so the columns are distinct and of weight >= 2: no generator is 0 or
 * repeated, the graph is simple and regular, and the unit vectors make it connected.
 * Tomic's networks use the best known code for each (dim, degree) and may cut better. */
static void longhop_generators(uint32_t dim, uint32_t *gens, uint32_t *n_gens)
{
    uint32_t r = 1;
    while ((1u << r) - r - 1 < dim)
        r++;
    uint32_t rows[32], n_rows = 0;
    for (uint32_t wt = r; wt >= 2 && n_rows < dim; wt--)
        for (uint32_t v = 0; v < (1u << r) && n_rows < dim; v++)
            if ((uint32_t)__builtin_popcount(v) == wt)
                rows[n_rows++] = v;
    *n_gens = 0;
    for (uint32_t i = 0; i < dim; i++)
        gens[(*n_gens)++] = 1u << i;
    for (uint32_t j = 0; j < r; j++) {
        uint32_t col = 0;
        for (uint32_t i = 0; i < dim; i++)
            col |= ((rows[i] >> j) & 1u) << i;
        gens[(*n_gens)++] = col;
    }
}

tl_topo *tl_topo_longhop(uint32_t dim, uint32_t servers_per_switch, uint64_t link_bps, tl_err *err)
{
    if (dim < 3 || dim > 30)
        return bad_param(err, TL_ERANGE, "dim",
                         "expected 3..30 (below 3 the code's columns repeat), found %llu", dim),
               NULL;
    uint32_t gens[40], n_gens;
    longhop_generators(dim, gens, &n_gens);
    uint64_t n_sw = 1ull << dim;
    direct d;
    int rc = direct_begin(&d, n_sw, servers_per_switch, tl_sat_mul(n_sw, n_gens) / 2, 0, link_bps,
                          err);
    if (rc)
        return direct_finish(&d, rc, err);
    for (uint64_t u = 0; u < n_sw && !rc; u++)
        for (uint32_t j = 0; j < n_gens && !rc; j++)
            if ((u ^ gens[j]) > u)
                rc = direct_link(&d, u, u ^ gens[j], err);
    return direct_finish(&d, rc, err);
}

/* ------------------------------------------------------------- server-centric */

/* Adds n_hosts hosts (rack = host / hosts_per_rack, pod 0) and n_switches switches of tier
 * 1 to an empty t. */
static int add_nodes(tl_topo *t, uint64_t n_hosts, uint64_t hosts_per_rack, uint64_t n_switches,
                     tl_err *err)
{
    for (uint64_t i = 0; i < n_hosts; i++)
        if (tl_topo_add_node(t, TL_NODE_HOST, 0, 0, (int)(i / hosts_per_rack), 0, err) < 0)
            return fail_code(err);
    for (uint64_t s = 0; s < n_switches; s++)
        if (tl_topo_add_node(t, TL_NODE_SWITCH, 1, 0, -1, 0, err) < 0)
            return fail_code(err);
    return 0;
}

static tl_topo *finish_or_destroy(tl_topo *t, int rc, tl_err *err)
{
    if (rc || tl_topo_finish(t, err)) {
        tl_topo_destroy(t);
        return NULL;
    }
    return t;
}

/* Guo et al.'s BCube (SIGCOMM'09 §3.1). With N = n^(k+1) servers, server a links at level
 * l to switch l*n^k + (a / n^(l+1)) * n^l + a % n^l (a with digit l deleted). Links level
 * by level, servers in address order within a level, so every server's first link is to
 * its level-0 switch a / n. */
tl_topo *tl_topo_bcube(uint32_t n, uint32_t k, uint64_t link_bps, tl_err *err)
{
    if (n < 2)
        return bad_param(err, TL_ERANGE, "n", "expected >= 2 ports per switch, found %llu", n),
               NULL;
    uint64_t per_level = 1; /* n^k */
    for (uint32_t i = 0; i < k && per_level <= TL_TOPO_MAX_COUNT; i++)
        per_level = tl_sat_mul(per_level, n);
    uint64_t n_hosts = tl_sat_mul(per_level, n);
    uint64_t n_sw = tl_sat_mul(per_level, (uint64_t)k + 1);
    int rc = tl_topo_check_count(tl_sat_add(n_hosts, n_sw), tl_sat_mul(n_hosts, (uint64_t)k + 1),
                                 err);
    if (rc)
        return NULL;
    uint64_t rate = link_bps ? link_bps : DEFAULT_BPS;
    tl_topo *t = tl_topo_create(err);
    if (!t)
        return NULL;
    rc = add_nodes(t, n_hosts, n, n_sw, err);
    uint64_t pow_l = 1; /* n^l */
    for (uint32_t l = 0; l <= k && !rc; l++, pow_l *= n)
        for (uint64_t a = 0; a < n_hosts && !rc; a++) {
            uint64_t sw = n_hosts + l * per_level + (a / (pow_l * n)) * pow_l + a % pow_l;
            if (tl_topo_add_link(t, (uint32_t)a, (uint32_t)sw, rate, DELAY_PS, err) < 0)
                rc = fail_code(err);
        }
    return finish_or_destroy(t, rc, err);
}

/* Guo et al.'s DCell (SIGCOMM'08 §3, BuildDCells): t_0 = n, g_l = t_{l-1} + 1,
 * t_l = g_l * t_{l-1}. In every DCell_l (servers base .. base + t_l - 1, copy i of
 * DCell_{l-1} at base + i*t_{l-1}), copies i < j are joined by the link [i, j-1] - [j, i],
 * so each server gets one link per level. Links: server-switch in server order, then level
 * by level, DCell_l instances in order. */
tl_topo *tl_topo_dcell(uint32_t n, uint32_t k, uint64_t link_bps, tl_err *err)
{
    if (n < 2)
        return bad_param(err, TL_ERANGE, "n", "expected >= 2 servers per DCell_0, found %llu", n),
               NULL;
    uint64_t tl[32]; /* (k+1) servers of a DCell_l */
    tl[0] = n;
    uint32_t l_max = 0;
    while (l_max < k && tl[l_max] <= TL_TOPO_MAX_COUNT && l_max + 1 < 32) {
        tl[l_max + 1] = tl_sat_mul(tl[l_max], tl[l_max] + 1);
        l_max++;
    }
    if (l_max < k || tl[k] > TL_TOPO_MAX_COUNT)
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, "k",
                         "DCell_%u of %u-server cells has more than %u servers", k, n,
                         TL_TOPO_MAX_COUNT),
               NULL;
    uint64_t n_hosts = tl[k], n_sw = n_hosts / n;
    int rc = tl_topo_check_count(n_hosts + n_sw, tl_sat_mul(n_hosts, (uint64_t)k + 2) / 2, err);
    if (rc)
        return NULL;
    uint64_t rate = link_bps ? link_bps : DEFAULT_BPS;
    tl_topo *t = tl_topo_create(err);
    if (!t)
        return NULL;
    rc = add_nodes(t, n_hosts, n, n_sw, err);
    for (uint64_t a = 0; a < n_hosts && !rc; a++)
        if (tl_topo_add_link(t, (uint32_t)a, (uint32_t)(n_hosts + a / n), rate, DELAY_PS, err) < 0)
            rc = fail_code(err);
    for (uint32_t l = 1; l <= k && !rc; l++) {
        uint64_t sub = tl[l - 1], g = sub + 1;
        for (uint64_t base = 0; base < n_hosts && !rc; base += tl[l])
            for (uint64_t i = 0; i < g && !rc; i++)
                for (uint64_t j = i + 1; j < g && !rc; j++)
                    if (tl_topo_add_link(t, (uint32_t)(base + i * sub + (j - 1)),
                                         (uint32_t)(base + j * sub + i), rate, DELAY_PS, err) < 0)
                        rc = fail_code(err);
    }
    return finish_or_destroy(t, rc, err);
}
