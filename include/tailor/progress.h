/* Progress reporting: the library calls back, only cli/ prints (STYLE.md).
 * Callers may pass NULL to stay silent. */
#ifndef TAILOR_PROGRESS_H
#define TAILOR_PROGRESS_H

typedef struct tl_progress {
    /* phase: short name ("generate", "route"); done/total in the phase's unit. */
    void (*fn)(void *ctx, const char *phase, double done, double total, const char *unit);
    void *ctx;
} tl_progress;

static inline void tl_progress_report(tl_progress *p, const char *phase, double done, double total,
                                      const char *unit)
{
    if (p && p->fn)
        p->fn(p->ctx, phase, done, total, unit);
}

#endif
