/* Ternary flow states (flowstate.h). The table is rebuilt at each close,
 * which drops forgotten flows without tombstones; it runs once per interval,
 * off the per-packet path. */
#include "flowstate.h"

#include <stdlib.h>
#include <string.h>

#include "tailor/rng.h"

static size_t home(uint32_t flow, size_t cap) { return (size_t)tl_mix64(flow) & (cap - 1); }

static tl_fs_entry *alloc_tab(size_t cap)
{
    tl_fs_entry *t = malloc(cap * sizeof *t);
    if (t)
        for (size_t i = 0; i < cap; i++)
            t[i].flow = TL_FS_FREE;
    return t;
}

int tl_flowstate_init(tl_flowstate *fs, double tau, int delta, int idle_intervals, tl_err *err)
{
    memset(fs, 0, sizeof *fs);
    fs->tau = tau;
    fs->delta = delta;
    fs->idle_intervals = idle_intervals;
    fs->cap = 64;
    if (!(fs->tab = alloc_tab(fs->cap)))
        return tl_err_nomem(err);
    return 0;
}

void tl_flowstate_fini(tl_flowstate *fs)
{
    free(fs->tab);
    memset(fs, 0, sizeof *fs);
}

static tl_fs_entry *slot(tl_fs_entry *tab, size_t cap, uint32_t flow)
{
    size_t i = home(flow, cap);
    while (tab[i].flow != TL_FS_FREE && tab[i].flow != flow)
        i = (i + 1) & (cap - 1);
    return &tab[i];
}

/* Moves the kept entries into a table of cap slots. */
static int rehash(tl_flowstate *fs, size_t cap, int is_drop_forgotten, tl_err *err)
{
    tl_fs_entry *t = alloc_tab(cap);
    if (!t)
        return tl_err_nomem(err);
    size_t n = 0;
    for (size_t i = 0; i < fs->cap; i++) {
        const tl_fs_entry *e = &fs->tab[i];
        if (e->flow == TL_FS_FREE || (is_drop_forgotten && e->idle >= fs->idle_intervals))
            continue;
        *slot(t, cap, e->flow) = *e;
        n++;
    }
    free(fs->tab);
    fs->tab = t;
    fs->cap = cap;
    fs->n = n;
    return 0;
}

int tl_flowstate_add(tl_flowstate *fs, uint32_t flow, uint64_t bytes, tl_err *err)
{
    if (2 * (fs->n + 1) > fs->cap) {
        int rc = rehash(fs, 2 * fs->cap, 0, err);
        if (rc)
            return rc;
    }
    tl_fs_entry *e = slot(fs->tab, fs->cap, flow);
    if (e->flow == TL_FS_FREE) {
        memset(e, 0, sizeof *e);
        e->flow = flow;
        fs->n++;
    }
    e->phi += bytes;
    e->is_seen = 1;
    return 0;
}

int tl_flowstate_close(tl_flowstate *fs, tl_fs_counts *c, tl_err *err)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < fs->cap; i++) {
        tl_fs_entry *e = &fs->tab[i];
        if (e->flow == TL_FS_FREE)
            continue;
        if (!e->is_seen) { /* a gap breaks the run of active intervals */
            e->run = 0;
            if (e->idle < UINT8_MAX)
                e->idle++;
            continue;
        }
        e->is_seen = 0;
        e->idle = 0;
        if (e->run < UINT8_MAX)
            e->run++;
        if (e->state == TL_FS_E || (double)e->phi >= fs->tau)
            e->state = TL_FS_E;
        else
            e->state = e->run >= fs->delta ? TL_FS_PE : TL_FS_M;
        switch (e->state) {
        case TL_FS_E: c->n_e++; break;
        case TL_FS_PE:
            c->n_pe++;
            c->sum_w += (double)e->phi / fs->tau;
            break;
        default: c->n_m++;
        }
    }
    size_t cap = fs->cap;
    while (cap > 64 && 8 * fs->n < cap) /* shrink after a burst of flows has gone */
        cap /= 2;
    return rehash(fs, cap, 1, err);
}

const tl_fs_entry *tl_flowstate_get(const tl_flowstate *fs, uint32_t flow)
{
    const tl_fs_entry *e = slot(fs->tab, fs->cap, flow);
    return e->flow == flow ? e : NULL;
}
