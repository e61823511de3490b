/* Event heap for the simulators: a 4-ary min-heap of 24-byte events stored by
 * value, ordered by (t_ps, seq). seq is the insertion order, so simultaneous
 * events pop first-in first-out (DESIGN.md) and a timer is cancelled by
 * forgetting its seq, never by searching (STYLE.md "Hot path").
 *
 * Invariants (checked by tl_heap_check):
 *   1. every node is <= each of its (up to 4) children under (t_ps, seq);
 *   2. n <= cap; seq values are unique and next_seq exceeds all of them. */
#ifndef TAILOR_HEAP_H
#define TAILOR_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"

typedef struct tl_event {
    int64_t t_ps;
    uint64_t seq;    /* insertion order: breaks ties and names the event */
    uint32_t target; /* port, flow or timer index */
    uint16_t kind;   /* engine-defined event kind */
    uint16_t aux;    /* engine-defined small payload */
} tl_event;
_Static_assert(sizeof(tl_event) == 24, "events stay 24 bytes");

typedef struct tl_heap {
    tl_event *ev; /* (cap) */
    size_t n, cap;
    uint64_t next_seq;
} tl_heap;

/* cap_hint events are preallocated; the heap grows by doubling beyond it (growth
 * is amortized and happens only while the event population is still rising). */
int tl_heap_init(tl_heap *h, size_t cap_hint, tl_err *err);
void tl_heap_fini(tl_heap *h);

/* Pushes an event at t_ps; returns its seq, or 0 when growth failed (seqs
 * start at 1, so 0 never names an event). O(log4 n). */
uint64_t tl_heap_push(tl_heap *h, int64_t t_ps, uint32_t target, uint16_t kind, uint16_t aux);

/* The same with seq given (a seq taken from another heap with
 * tl_heap_take_seq, so that two heaps hold one (t_ps, seq) order: a
 * simulator keeps its many long timers apart, and its busy heap shallow).
 * Returns seq, or 0 when growth failed. */
uint64_t tl_heap_push_seq(tl_heap *h, int64_t t_ps, uint64_t seq, uint32_t target, uint16_t kind,
                          uint16_t aux);
/* A fresh seq of h's, for an event pushed elsewhere. */
static inline uint64_t tl_heap_take_seq(tl_heap *h) { return h->next_seq++; }
/* 1 if event a comes before event b: (t_ps, seq) order. */
static inline int tl_event_before(const tl_event *a, const tl_event *b)
{
    return a->t_ps < b->t_ps || (a->t_ps == b->t_ps && a->seq < b->seq);
}
/* Removes the earliest event into *out; returns 0 if the heap was empty. O(log4 n). */
int tl_heap_pop(tl_heap *h, tl_event *out);

/* Earliest event without removing it, or NULL if empty. */
static inline const tl_event *tl_heap_peek(const tl_heap *h) { return h->n ? &h->ev[0] : NULL; }

/* Asserts the invariants above (O(n); for tests and debug builds). */
void tl_heap_check(const tl_heap *h);

#endif
