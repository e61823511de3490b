/* Progress reporting: the library calls back, only cli/ prints (STYLE.md).
 * Callers may pass NULL to stay silent. */
#ifndef TAILOR_PROGRESS_H
#define TAILOR_PROGRESS_H

typedef struct tl_progress_info {
    const char *phase; /* short name: "generate", "pktsim" */
    double done, total; /* in unit */
    const char *unit;   /* "flows" */
    double sim_time_s;  /* simulators: simulated time reached; < 0 if not applicable */
    double n_events;    /* simulators: events processed so far; < 0 if not applicable */
} tl_progress_info;

typedef struct tl_progress {
    void (*fn)(void *ctx, const tl_progress_info *info);
    void *ctx;
} tl_progress;

static inline void tl_progress_report(tl_progress *p, const char *phase, double done, double total,
                                      const char *unit)
{
    if (p && p->fn) {
        tl_progress_info info = {phase, done, total, unit, -1, -1};
        p->fn(p->ctx, &info);
    }
}

static inline void tl_progress_report_sim(tl_progress *p, const char *phase, double done,
                                          double total, const char *unit, double sim_time_s,
                                          double n_events)
{
    if (p && p->fn) {
        tl_progress_info info = {phase, done, total, unit, sim_time_s, n_events};
        p->fn(p->ctx, &info);
    }
}

#endif
