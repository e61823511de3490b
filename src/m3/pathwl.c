/* Path-level workloads (m3.txt §3.2): a path's links and the flows that
 * cross it, in path coordinates, grown by append and sorted once. */
#include <stdlib.h>
#include <string.h>

#include "m3/m3_int.h"

int m3_pathwl_init(m3_pathwl *w, int n_links, int with_keys, tl_err *err)
{
    memset(w, 0, sizeof *w);
    if (n_links < 1 || n_links > TL_MAX_HOPS - 2)
        return tl_err_set(err, TL_ERANGE, "a path needs 1..%d links, found %d", TL_MAX_HOPS - 2,
                          n_links);
    w->n_links = n_links;
    w->cap = 64;
    w->flow = malloc(w->cap * sizeof *w->flow);
    w->is_fg = malloc(w->cap * sizeof *w->is_fg);
    if (with_keys) {
        w->src_key = malloc(w->cap * sizeof *w->src_key);
        w->dst_key = malloc(w->cap * sizeof *w->dst_key);
    }
    if (!w->flow || !w->is_fg || (with_keys && (!w->src_key || !w->dst_key))) {
        m3_pathwl_fini(w);
        return tl_err_nomem(err);
    }
    return 0;
}

void m3_pathwl_fini(m3_pathwl *w)
{
    free(w->flow), free(w->is_fg), free(w->src_key), free(w->dst_key);
    memset(w, 0, sizeof *w);
}

void m3_pathwl_release(m3_pathwl *w)
{
    free(w->flow), free(w->is_fg), free(w->src_key), free(w->dst_key);
    w->flow = NULL, w->is_fg = NULL, w->src_key = w->dst_key = NULL, w->cap = 0;
}

static int grow(void **p, size_t n, size_t elem)
{
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

int m3_pathwl_reserve(m3_pathwl *w, size_t n, tl_err *err)
{
    if (n <= w->cap)
        return 0;
    if (grow((void **)&w->flow, n, sizeof *w->flow) ||
        grow((void **)&w->is_fg, n, sizeof *w->is_fg) ||
        (w->src_key && (grow((void **)&w->src_key, n, sizeof *w->src_key) ||
                        grow((void **)&w->dst_key, n, sizeof *w->dst_key))))
        return tl_err_nomem(err);
    w->cap = n;
    return 0;
}

int m3_pathwl_add(m3_pathwl *w, const tl_fs_path_flow *f, int is_fg, uint16_t src_key,
                  uint16_t dst_key, tl_err *err)
{
    int rc = w->n_flows == w->cap ? m3_pathwl_reserve(w, w->cap * 2, err) : 0;
    if (rc)
        return rc;
    w->flow[w->n_flows] = *f;
    w->is_fg[w->n_flows] = (uint8_t)(is_fg != 0);
    if (w->src_key) {
        w->src_key[w->n_flows] = src_key;
        w->dst_key[w->n_flows] = dst_key;
    }
    w->n_flows++;
    w->n_fg += is_fg != 0;
    return 0;
}

/* Sort keys travel with an index so the side arrays follow the flows. */
typedef struct order {
    int64_t start;
    uint64_t size;
    uint32_t first_last, idx;
} order;

static int order_cmp(const void *a, const void *b)
{
    const order *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->first_last != y->first_last)
        return x->first_last < y->first_last ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

int m3_pathwl_sort(m3_pathwl *w, tl_err *err)
{
    size_t n = w->n_flows;
    /* Built in start order (m3_paths_workload) it usually is sorted already:
     * by (start, first/last, size), ties kept in insertion order as the
     * index key below keeps them. */
    size_t j = 1;
    for (; j < n; j++) {
        const tl_fs_path_flow *a = &w->flow[j - 1], *b = &w->flow[j];
        uint32_t fa = (uint32_t)a->first << 16 | a->last, fb = (uint32_t)b->first << 16 | b->last;
        if (a->start_ps != b->start_ps ? a->start_ps > b->start_ps
            : fa != fb                 ? fa > fb
                                       : a->size_bytes > b->size_bytes)
            break;
    }
    if (j >= n)
        return 0;
    order *o = malloc((n + 1) * sizeof *o);
    tl_fs_path_flow *f = malloc((n + 1) * sizeof *f);
    uint8_t *fg = malloc(n + 1);
    uint16_t *sk = w->src_key ? malloc((n + 1) * sizeof *sk) : NULL;
    uint16_t *dk = w->src_key ? malloc((n + 1) * sizeof *dk) : NULL;
    if (!o || !f || !fg || (w->src_key && (!sk || !dk))) {
        free(o), free(f), free(fg), free(sk), free(dk);
        return tl_err_nomem(err);
    }
    for (size_t i = 0; i < n; i++)
        o[i] = (order){w->flow[i].start_ps, w->flow[i].size_bytes,
                       (uint32_t)w->flow[i].first << 16 | w->flow[i].last, (uint32_t)i};
    qsort(o, n, sizeof *o, order_cmp);
    for (size_t i = 0; i < n; i++) {
        f[i] = w->flow[o[i].idx];
        fg[i] = w->is_fg[o[i].idx];
        if (sk)
            sk[i] = w->src_key[o[i].idx], dk[i] = w->dst_key[o[i].idx];
    }
    free(w->flow), free(w->is_fg), free(w->src_key), free(w->dst_key);
    w->flow = f, w->is_fg = fg, w->src_key = sk, w->dst_key = dk;
    w->cap = n + 1;
    free(o);
    return 0;
}
