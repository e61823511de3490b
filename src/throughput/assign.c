/* Maximum-weight assignment with small integer weights, for the longest-matching
 * TM (tm.c): Bertsekas' auction with epsilon scaling, and the Hungarian method
 * kept as the reference the tests compare it with.
 *
 * Why the auction: the weights are hop distances times server counts, a few
 * dozen distinct integers, and the matrix is complete (every node pair). The
 * Hungarian method costs O(n^3) whatever the weights (10,000 switches: about
 * 20 minutes). The auction's cost follows the weights' range instead: with
 * benefits scaled by n + 1, a final epsilon of 1 is below 1/n in the original
 * units, which makes the assignment optimal for integer weights, and scaling
 * epsilon down from a fraction of the range keeps price wars short. Each bid
 * reads one row, so the cost is O(n) per bid and there is no n x n table of
 * weights: rows come from a callback.
 *
 * Before the auction, tl_assign_max tries a certificate that is often at hand:
 * no assignment weighs more than the sum of its rows' maxima, so a perfect
 * matching among each row's maximal entries is optimal. On random graphs most
 * nodes have hundreds of farthest nodes, and a perfect matching among a few
 * dozen of them per row is found by Hopcroft-Karp in milliseconds. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/rng.h"
#include "throughput/throughput_int.h"

/* Epsilon falls by this factor per scaling phase (Bertsekas suggests 4 to 10). */
#define EPS_FACTOR 6

int tl_assign_auction(uint32_t n, tl_assign_row_fn row, void *ctx, uint32_t *assign, tl_err *err)
{
    if (n == 0)
        return 0;
    size_t m = n;
    int32_t *w = malloc(m * sizeof *w);
    int64_t *price = calloc(m, sizeof *price);
    uint32_t *owner = malloc(m * sizeof *owner), *queue = malloc(m * sizeof *queue);
    if (!w || !price || !owner || !queue) {
        free(w), free(price), free(owner), free(queue);
        return tl_err_nomem(err);
    }
    int64_t wmax = 0;
    for (uint32_t i = 0; i < n; i++) {
        row(ctx, i, w);
        for (uint32_t j = 0; j < n; j++)
            if (w[j] > wmax)
                wmax = w[j];
    }
    const int64_t scale = (int64_t)n + 1;
    /* Prices stay within a few times wmax x scale; keep that far from overflow. */
    if (wmax > (INT64_MAX / 16) / scale) {
        free(w), free(price), free(owner), free(queue);
        return tl_err_set(err, TL_ERANGE, "assignment: weights up to %lld over %u rows would "
                          "overflow the auction's prices", (long long)wmax, n);
    }
    int64_t eps = wmax * scale / EPS_FACTOR;
    if (eps < 1)
        eps = 1;
    for (;;) {
        /* A phase: everyone unassigned, prices kept from the phase before. */
        for (uint32_t j = 0; j < n; j++)
            owner[j] = UINT32_MAX;
        for (uint32_t i = 0; i < n; i++)
            queue[i] = i;
        uint32_t head = 0, count = n;
        while (count) {
            uint32_t i = queue[head];
            head = head + 1 == n ? 0 : head + 1;
            count--;
            row(ctx, i, w);
            /* Best and second-best value w * scale - price; ties to the lowest column. */
            int64_t v1 = INT64_MIN, v2 = INT64_MIN;
            uint32_t j1 = 0;
            for (uint32_t j = 0; j < n; j++) {
                int64_t v = (int64_t)w[j] * scale - price[j];
                if (v > v1) {
                    v2 = v1;
                    v1 = v;
                    j1 = j;
                } else if (v > v2) {
                    v2 = v;
                }
            }
            /* One column: no competitor, any raise will do. */
            price[j1] += (v2 == INT64_MIN ? 0 : v1 - v2) + eps;
            uint32_t prev = owner[j1];
            owner[j1] = i;
            if (prev != UINT32_MAX) {
                queue[(head + count) % n] = prev;
                count++;
            }
        }
        if (eps == 1)
            break;
        eps = eps / EPS_FACTOR > 1 ? eps / EPS_FACTOR : 1;
    }
    for (uint32_t j = 0; j < n; j++)
        assign[owner[j]] = j;
    free(w), free(price), free(owner), free(queue);
    return 0;
}

/* Kuhn-Munkres with potentials, O(n^3), on costs -w. */
int tl_assign_hungarian(uint32_t n, tl_assign_row_fn row, void *ctx, uint32_t *assign,
                        tl_err *err)
{
    size_t m = (size_t)n + 1;
    double *u = calloc(m, sizeof *u), *v = calloc(m, sizeof *v), *minv = malloc(m * sizeof *minv);
    uint32_t *p = calloc(m, sizeof *p), *way = calloc(m, sizeof *way);
    int32_t *w = malloc(m * sizeof *w);
    uint8_t *used = malloc(m);
    if (!u || !v || !minv || !p || !way || !used || !w) {
        free(u), free(v), free(minv), free(p), free(way), free(used), free(w);
        return tl_err_nomem(err);
    }
    for (uint32_t i = 1; i <= n; i++) {
        p[0] = i;
        uint32_t j0 = 0;
        for (uint32_t j = 0; j <= n; j++) {
            minv[j] = INFINITY;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            uint32_t i0 = p[j0], j1 = 0;
            double delta = INFINITY;
            row(ctx, i0 - 1, w);
            for (uint32_t j = 1; j <= n; j++)
                if (!used[j]) {
                    double cur = -(double)w[j - 1] - u[i0] - v[j];
                    if (cur < minv[j]) {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if (minv[j] < delta) {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            for (uint32_t j = 0; j <= n; j++)
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            uint32_t j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    for (uint32_t j = 1; j <= n; j++)
        if (p[j])
            assign[p[j] - 1] = j - 1;
    free(u), free(v), free(minv), free(p), free(way), free(used), free(w);
    return 0;
}

/* ---------------------------------------------------------------- certificate */

/* Columns kept per row for the matching among maxima: enough that random
 * bipartite graphs of this degree have perfect matchings, few enough that the
 * graph is small. */
#define MAX_CANDIDATES 32

/* Hopcroft-Karp on rows 0..n-1 with candidate columns col[off[i]..off[i+1]):
 * fills mate_r (row -> column or UINT32_MAX) and returns the matching's size,
 * or UINT32_MAX on allocation failure. */
static uint32_t hopcroft_karp(uint32_t n, const uint32_t *off, const uint32_t *col,
                              uint32_t *mate_r)
{
    uint32_t *mate_c = malloc(n * sizeof *mate_c), *layer = malloc(n * sizeof *layer);
    uint32_t *queue = malloc(n * sizeof *queue), *it = malloc(n * sizeof *it);
    uint32_t *stack = malloc(n * sizeof *stack);
    if (!mate_c || !layer || !queue || !it || !stack) {
        free(mate_c), free(layer), free(queue), free(it), free(stack);
        return UINT32_MAX;
    }
    for (uint32_t i = 0; i < n; i++)
        mate_r[i] = mate_c[i] = UINT32_MAX;
    uint32_t size = 0;
    for (;;) {
        /* BFS from the free rows; layer[] of rows, free column reached at depth found. */
        uint32_t qh = 0, qt = 0, found = UINT32_MAX;
        for (uint32_t i = 0; i < n; i++) {
            layer[i] = UINT32_MAX;
            if (mate_r[i] == UINT32_MAX) {
                layer[i] = 0;
                queue[qt++] = i;
            }
        }
        while (qh < qt) {
            uint32_t i = queue[qh++];
            if (layer[i] >= found)
                continue;
            for (uint32_t k = off[i]; k < off[i + 1]; k++) {
                uint32_t r = mate_c[col[k]];
                if (r == UINT32_MAX) {
                    if (found == UINT32_MAX)
                        found = layer[i] + 1;
                } else if (layer[r] == UINT32_MAX) {
                    layer[r] = layer[i] + 1;
                    queue[qt++] = r;
                }
            }
        }
        if (found == UINT32_MAX)
            break;
        /* Vertex-disjoint shortest augmenting paths by iterative DFS along layers. */
        for (uint32_t i = 0; i < n; i++)
            it[i] = off[i];
        for (uint32_t root = 0; root < n; root++) {
            if (mate_r[root] != UINT32_MAX || layer[root] != 0)
                continue;
            uint32_t depth = 0;
            stack[depth++] = root;
            while (depth) {
                uint32_t i = stack[depth - 1];
                if (it[i] == off[i + 1]) {
                    layer[i] = UINT32_MAX; /* dead end: not again this round */
                    depth--;
                    continue;
                }
                uint32_t c = col[it[i]], r = mate_c[c];
                if (r == UINT32_MAX && layer[i] + 1 == found) {
                    /* Augment along the stack: each row takes the column its iterator holds. */
                    for (uint32_t q = depth; q-- > 0;) {
                        uint32_t row = stack[q], cc = col[it[row]];
                        mate_r[row] = cc;
                        mate_c[cc] = row;
                    }
                    for (uint32_t q = 0; q < depth; q++)
                        layer[stack[q]] = UINT32_MAX;
                    size++;
                    break;
                }
                if (r != UINT32_MAX && layer[r] == layer[i] + 1 && layer[r] < found) {
                    stack[depth++] = r;
                    continue;
                }
                it[i]++;
            }
        }
    }
    free(mate_c), free(layer), free(queue), free(it), free(stack);
    return size;
}

/* 1 and assign filled when a perfect matching among the rows' maximal
 * entries exists (then optimal), 0 when not, or a TL_E* code (negative). */
static int assign_by_maxima(uint32_t n, tl_assign_row_fn row, void *ctx, uint32_t *assign,
                            tl_err *err)
{
    int32_t *w = malloc((size_t)n * sizeof *w);
    uint32_t *off = malloc(((size_t)n + 1) * sizeof *off);
    uint32_t *col = malloc((size_t)n * MAX_CANDIDATES * sizeof *col);
    if (!w || !off || !col) {
        free(w), free(off), free(col);
        return tl_err_nomem(err);
    }
    off[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        row(ctx, i, w);
        int32_t mx = INT32_MIN;
        for (uint32_t j = 0; j < n; j++)
            mx = w[j] > mx ? w[j] : mx;
        /* Start each row's scan at a different column so that rows with the
         * same maxima (a pod's switches) spread over them. */
        uint32_t k = off[i], start = (uint32_t)(tl_mix64(i) % n);
        for (uint32_t q = 0; q < n && k - off[i] < MAX_CANDIDATES; q++) {
            uint32_t j = start + q < n ? start + q : start + q - n;
            if (w[j] == mx)
                col[k++] = j;
        }
        off[i + 1] = k;
    }
    free(w);
    uint32_t size = hopcroft_karp(n, off, col, assign);
    free(off), free(col);
    if (size == UINT32_MAX)
        return tl_err_nomem(err);
    return size == n;
}

int tl_assign_max(uint32_t n, tl_assign_row_fn row, void *ctx, uint32_t *assign, tl_err *err)
{
    int rc = assign_by_maxima(n, row, ctx, assign, err);
    if (rc < 0)
        return rc;
    return rc ? 0 : tl_assign_auction(n, row, ctx, assign, err);
}
