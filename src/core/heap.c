/* 4-ary implicit min-heap of events by value (see tailor/heap.h). Four
 * children share a cache line pair, which makes sift-down cheaper than in a
 * binary heap for the push-pop pattern of discrete-event simulation. */
#include "tailor/heap.h"

#include <assert.h>
#include <stdlib.h>

static inline int ev_less(const tl_event *a, const tl_event *b)
{
    return a->t_ps < b->t_ps || (a->t_ps == b->t_ps && a->seq < b->seq);
}

int tl_heap_init(tl_heap *h, size_t cap_hint, tl_err *err)
{
    h->n = 0;
    h->cap = cap_hint ? cap_hint : 64;
    h->next_seq = 1;
    h->ev = malloc(h->cap * sizeof *h->ev);
    if (!h->ev)
        return tl_err_nomem(err);
    return 0;
}

void tl_heap_fini(tl_heap *h)
{
    if (!h)
        return;
    free(h->ev);
    h->ev = NULL;
    h->n = h->cap = 0;
}

uint64_t tl_heap_push(tl_heap *h, int64_t t_ps, uint32_t target, uint16_t kind, uint16_t aux)
{
    if (h->n == h->cap) {
        tl_event *bigger = realloc(h->ev, 2 * h->cap * sizeof *h->ev);
        if (!bigger)
            return 0;
        h->ev = bigger;
        h->cap *= 2;
    }
    tl_event e = {.t_ps = t_ps, .seq = h->next_seq++, .target = target, .kind = kind, .aux = aux};
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 4;
        if (!ev_less(&e, &h->ev[parent]))
            break;
        h->ev[i] = h->ev[parent];
        i = parent;
    }
    h->ev[i] = e;
    return e.seq;
}

int tl_heap_pop(tl_heap *h, tl_event *out)
{
    if (h->n == 0)
        return 0;
    *out = h->ev[0];
    tl_event last = h->ev[--h->n];
    size_t n = h->n, i = 0;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = c, end = c + 4 < n ? c + 4 : n;
        for (size_t j = c + 1; j < end; j++)
            if (ev_less(&h->ev[j], &h->ev[best]))
                best = j;
        if (!ev_less(&h->ev[best], &last))
            break;
        h->ev[i] = h->ev[best];
        i = best;
    }
    if (n > 0)
        h->ev[i] = last;
    return 1;
}

void tl_heap_check(const tl_heap *h)
{
    assert(h->n <= h->cap);
    for (size_t i = 1; i < h->n; i++) {
        assert(!ev_less(&h->ev[i], &h->ev[(i - 1) / 4]));
        assert(h->ev[i].seq < h->next_seq);
    }
    (void)h;
}
