/* PARALEON's runtime monitor over a pktsim run (tailor/tune.h,
 * docs/paraleon.md). Every monitor interval, one run-time control:
 *   1. reads and resets each ToR's sketch, updates its flows' ternary states
 *      and sums the ToRs' distributions into the network's (§III-A);
 *   2. does the same for the baselines (naive Elastic Sketch; NetFlow at its
 *      exports) and the exact truth;
 *   3. decides the KL trigger (§III-A, Table III's theta);
 *   4. computes Eq. (1)'s runtime metrics from port counters and RTT samples.
 * The taps only observe: the run's packets and FCTs are the same with and
 * without the monitor. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../pktsim/tap/esketch.h"
#include "../pktsim/tap/flowtruth.h"
#include "../pktsim/tap/netflow.h"
#include "flowstate.h"
#include "monitor_int.h"
#include "tailor/tune.h"

/* ---- attach ---- */

static int step(void *ctx, tl_pktsim *s, int64_t now);
static void on_rtt(void *ctx, uint32_t flow, int64_t rtt_ps, int64_t now);

/* The switches hosts attach to, with their egress channels. */
static int find_tors(tl_monitor *m, tl_err *err)
{
    const tl_topo *t = m->topo;
    uint32_t n = tl_topo_n_nodes(t);
    m->tor_of_node = malloc(n * sizeof *m->tor_of_node);
    m->tor_node = malloc(n * sizeof *m->tor_node);
    if (!m->tor_of_node || !m->tor_node)
        return tl_err_nomem(err);
    for (uint32_t v = 0; v < n; v++)
        m->tor_of_node[v] = UINT32_MAX;
    const uint32_t *hosts = tl_topo_hosts(t);
    for (uint32_t h = 0; h < tl_topo_n_hosts(t); h++) {
        uint32_t nc;
        const uint32_t *cs = tl_topo_out_chans(t, hosts[h], &nc);
        for (uint32_t k = 0; k < nc; k++) {
            uint32_t sw = tl_topo_chan_to(t, cs[k]);
            if (tl_topo_node(t, sw)->kind == TL_NODE_SWITCH && m->tor_of_node[sw] == UINT32_MAX) {
                m->tor_of_node[sw] = m->n_tors;
                m->tor_node[m->n_tors++] = sw;
            }
        }
    }
    return 0;
}

/* Adds tap name on the egress channels of ToR i (i == n_tors: all ToRs). */
static int add_tap(tl_monitor *m, const char *name, uint32_t i, tl_err *err)
{
    uint32_t n_chans = 0;
    uint32_t *chans = m->chan_buf;
    for (uint32_t k = i == m->n_tors ? 0 : i; k < (i == m->n_tors ? m->n_tors : i + 1); k++) {
        uint32_t nc;
        const uint32_t *c = tl_topo_out_chans(m->topo, m->tor_node[k], &nc);
        memcpy(chans + n_chans, c, nc * sizeof *c);
        n_chans += nc;
    }
    return tl_pktsim_add_tap(m->sim, name, chans, n_chans, 0, err);
}

tl_monitor *tl_monitor_attach(tl_pktsim *s, const tl_topo *t, const tl_flows *f,
                              const tl_params *p, tl_err *err)
{
    tl_monitor *m = calloc(1, sizeof *m);
    if (!m) {
        tl_err_nomem(err);
        return NULL;
    }
    m->sim = s;
    m->topo = t;
    m->flows = f;
    memcpy(m->k, tl_params_table(p, tl_monitor_knobs), sizeof m->k);
    double w = m->k[TL_MON_W_TP] + m->k[TL_MON_W_RTT] + m->k[TL_MON_W_PFC];
    if (fabs(w - 1) > 1e-9) {
        tl_err_set(err, TL_ERANGE,
                   "monitor.w_tp + monitor.w_rtt + monitor.w_pfc must sum to 1 (Eq. 1's utility "
                   "is a weighted mean), found %g + %g + %g = %g",
                   m->k[TL_MON_W_TP], m->k[TL_MON_W_RTT], m->k[TL_MON_W_PFC], w);
        free(m);
        return NULL;
    }
    m->interval_ps = (int64_t)m->k[TL_MON_INTERVAL];
    m->tau = m->k[TL_MON_TAU];
    m->is_baselines = m->k[TL_MON_BASELINES] != 0;
    m->ref_p = NAN;
    m->last_p = NAN;
    m->p_netflow = NAN;
    m->next_export_ps = (int64_t)m->k[TL_MON_NETFLOW_EXPORT];
    uint32_t n_chans = 2 * tl_topo_n_links(t);
    int rc = find_tors(m, err);
    if (!rc && !(m->chan_buf = malloc((n_chans ? n_chans : 1) * sizeof *m->chan_buf)))
        rc = tl_err_nomem(err);
    if (!rc && !m->n_tors)
        rc = tl_err_set(err, TL_EINVAL, "monitor: no switch has hosts attached, so there is no "
                                        "ToR to place a sketch at");
    if (!rc) {
        m->tor = calloc(m->n_tors, sizeof *m->tor);
        m->prev_bytes = calloc(n_chans ? n_chans : 1, sizeof *m->prev_bytes);
        m->prev_paused = calloc(n_chans ? n_chans : 1, sizeof *m->prev_paused);
        m->d_bytes = calloc(n_chans ? n_chans : 1, sizeof *m->d_bytes);
        m->d_paused = calloc(n_chans ? n_chans : 1, sizeof *m->d_paused);
        m->rtt_sum = calloc(f->n ? f->n : 1, sizeof *m->rtt_sum);
        m->rtt_n = calloc(f->n ? f->n : 1, sizeof *m->rtt_n);
        m->rtt_touched = malloc((f->n ? f->n : 1) * sizeof *m->rtt_touched);
        if (!m->tor || !m->prev_bytes || !m->prev_paused || !m->d_bytes || !m->d_paused ||
            !m->rtt_sum || !m->rtt_n ||
            !m->rtt_touched)
            rc = tl_err_nomem(err);
    }
    for (uint32_t i = 0; !rc && i < m->n_tors; i++) {
        tl_monitor_tor *r = &m->tor[i];
        r->naive_tap = -1;
        rc = tl_flowstate_init(&r->fs, m->tau, (int)m->k[TL_MON_DELTA],
                               (int)m->k[TL_MON_IDLE], err);
        if (!rc)
            rc = (r->tap = add_tap(m, "esketch", i, err)) < 0 ? r->tap : 0;
        if (!rc && m->is_baselines)
            rc = (r->naive_tap = add_tap(m, "esketch-naive", i, err)) < 0 ? r->naive_tap : 0;
    }
    if (!rc)
        rc = (m->truth_tap = add_tap(m, "flowtruth", m->n_tors, err)) < 0 ? m->truth_tap : 0;
    if (!rc && m->is_baselines)
        rc = (m->netflow_tap = add_tap(m, "netflow", m->n_tors, err)) < 0 ? m->netflow_tap : 0;
    if (!rc)
        rc = tl_pktsim_set_control(s, m->interval_ps, step, m, err);
    if (rc) {
        tl_monitor_destroy(m);
        return NULL;
    }
    tl_pktsim_set_rtt_observer(s, on_rtt, m);
    /* Eq. (1)'s d: the smallest propagation delay of any link. */
    m->d_min_ps = INT64_MAX;
    for (uint32_t l = 0; l < tl_topo_n_links(t); l++)
        if (tl_topo_link(t, l)->delay_ps < m->d_min_ps)
            m->d_min_ps = tl_topo_link(t, l)->delay_ps;
    return m;
}

void tl_monitor_destroy(tl_monitor *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; m->tor && i < m->n_tors; i++)
        tl_flowstate_fini(&m->tor[i].fs);
    free(m->tor);
    free(m->tor_of_node);
    free(m->tor_node);
    free(m->chan_buf);
    free(m->prev_bytes);
    free(m->prev_paused);
    free(m->d_bytes);
    free(m->d_paused);
    free(m->rtt_sum);
    free(m->rtt_n);
    free(m->rtt_touched);
    free(m->keys);
    free(m->rows);
    free(m);
}

const tl_monitor_row *tl_monitor_rows(const tl_monitor *m, size_t *n)
{
    *n = m->n_rows;
    return m->rows;
}

void tl_monitor_set_reference(tl_monitor *m) { m->ref_p = m->last_p; }

/* ---- per interval ---- */

static void on_rtt(void *ctx, uint32_t flow, int64_t rtt_ps, int64_t now)
{
    tl_monitor *m = ctx;
    if (!m->rtt_n[flow]++)
        m->rtt_touched[m->n_rtt_touched++] = flow;
    m->rtt_sum[flow] += (double)rtt_ps;
}

typedef struct heavy_ctx {
    tl_monitor *m;
    tl_flowstate *fs;
    uint64_t n, n_e; /* naive: entries, entries >= tau */
    int rc;
    tl_err *err;
} heavy_ctx;

static void add_to_states(void *vc, uint32_t flow, uint64_t bytes)
{
    heavy_ctx *c = vc;
    if (!c->rc)
        c->rc = tl_flowstate_add(c->fs, flow, bytes, c->err);
}

static void count_naive(void *vc, uint32_t flow, uint64_t bytes)
{
    heavy_ctx *c = vc;
    c->n++;
    c->n_e += (double)bytes >= c->m->tau;
}

/* 1: PARALEON's distribution, summed over the ToRs. */
static int read_paraleon(tl_monitor *m, tl_monitor_row *row, tl_err *err)
{
    double light = 0;
    for (uint32_t i = 0; i < m->n_tors; i++) {
        tl_esketch *sk = &((tl_esketch_tap *)tl_pktsim_tap_state(m->sim, m->tor[i].tap))->sk;
        heavy_ctx c = {.m = m, .fs = &m->tor[i].fs, .err = err};
        tl_esketch_each_heavy(sk, add_to_states, &c);
        if (c.rc)
            return c.rc;
        if (m->k[TL_MON_LIGHT_MICE])
            light += tl_esketch_light_flows(sk);
        m->n_inserted_pkts += sk->n_pkts;
        m->n_inserted_bytes += sk->n_bytes;
        tl_esketch_reset(sk);
        tl_fs_counts fc;
        int rc = tl_flowstate_close(&m->tor[i].fs, &fc, err);
        if (rc)
            return rc;
        row->n_e += fc.n_e;
        row->n_pe += fc.n_pe;
        row->n_m += fc.n_m;
        row->sum_w += fc.sum_w;
    }
    row->light_mice = light;
    double n = (double)(row->n_e + row->n_pe + row->n_m) + light;
    row->n_flows = (uint64_t)llround(n);
    row->p_paraleon = n > 0 ? ((double)row->n_e + row->sum_w) / n : NAN;
    return 0;
}

/* 2: the baselines and the truth. */
static void read_others(tl_monitor *m, tl_monitor_row *row, int64_t now)
{
    row->p_naive = row->p_netflow = NAN;
    if (m->is_baselines) {
        heavy_ctx c = {.m = m};
        double light = 0;
        for (uint32_t i = 0; i < m->n_tors; i++) {
            tl_esketch *sk =
                &((tl_esketch_tap *)tl_pktsim_tap_state(m->sim, m->tor[i].naive_tap))->sk;
            tl_esketch_each_heavy(sk, count_naive, &c);
            if (m->k[TL_MON_LIGHT_MICE])
                light += tl_esketch_light_flows(sk);
            tl_esketch_reset(sk);
        }
        double n = (double)c.n + light;
        row->p_naive = n > 0 ? (double)c.n_e / n : NAN;
        if (now >= m->next_export_ps) {
            tl_netflow *nf = tl_pktsim_tap_state(m->sim, m->netflow_tap);
            uint64_t n_e = 0;
            for (size_t i = 0; i < nf->sampled.n_touched; i++)
                n_e += (double)nf->sampled.bytes[nf->sampled.touched[i]] * (double)nf->rate >= m->tau;
            m->p_netflow = nf->sampled.n_touched ? (double)n_e / (double)nf->sampled.n_touched : NAN;
            tl_flowlist_clear(&nf->sampled);
            m->next_export_ps += (int64_t)m->k[TL_MON_NETFLOW_EXPORT];
        }
        row->p_netflow = m->p_netflow;
    }
    tl_flowtruth *ft = tl_pktsim_tap_state(m->sim, m->truth_tap);
    uint64_t n_e = 0;
    for (size_t i = 0; i < ft->now.n_touched; i++)
        n_e += (double)m->flows->v[ft->now.touched[i]].size_bytes >= m->tau;
    row->n_true = ft->now.n_touched;
    row->p_true = ft->now.n_touched ? (double)n_e / (double)ft->now.n_touched : NAN;
    tl_flowlist_clear(&ft->now);
}

/* KL(p || q) of two two-bin distributions, natural log, smoothed so that an
 * empty bin does not make it infinite. */
double tl_monitor_kl2(double p, double q)
{
    const double eps = 1e-9;
    double a[2] = {p + eps, 1 - p + eps}, b[2] = {q + eps, 1 - q + eps};
    double kl = 0;
    for (int i = 0; i < 2; i++)
        kl += a[i] / (1 + 2 * eps) * log((a[i] / (1 + 2 * eps)) / (b[i] / (1 + 2 * eps)));
    return kl;
}

/* 3: the trigger. The reference is the distribution tuning last settled on:
 * without a tuner attached, the one the trigger last fired on (or the
 * first after the warm-up). */
static void decide(tl_monitor *m, tl_monitor_row *row)
{
    row->kl = NAN;
    double p = row->p_paraleon;
    if (isnan(p) || (double)row->n_flows < m->k[TL_MON_MIN_FLOWS] ||
        (double)m->n_rows + 1 < m->k[TL_MON_WARMUP])
        return;
    m->last_p = p;
    if (isnan(m->ref_p)) {
        m->ref_p = p;
        return;
    }
    row->kl = tl_monitor_kl2(p, m->ref_p);
    row->ref_p = m->ref_p;
    row->is_trigger = row->kl > m->k[TL_MON_THETA];
    if (row->is_trigger || m->k[TL_MON_KL_SUCCESSIVE])
        m->ref_p = p;
}

static int cmp_key(const void *a, const void *b)
{
    const rtt_key *x = a, *y = b;
    if (x->pair != y->pair)
        return x->pair < y->pair ? -1 : 1;
    return x->flow < y->flow ? -1 : x->flow > y->flow;
}

/* 4: Eq. (1). */
static void metrics(tl_monitor *m, tl_monitor_row *row)
{
    const tl_topo *t = m->topo;
    double lam = (double)m->interval_ps;
    tl_flowtruth *ft = tl_pktsim_tap_state(m->sim, m->truth_tap);
    /* each port's counters once: this interval's bytes sent and time paused */
    uint32_t n_nodes = tl_topo_n_nodes(t), n_chans = 2 * tl_topo_n_links(t);
    for (uint32_t c = 0; c < n_chans; c++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(m->sim, c, &ps);
        m->d_bytes[c] = ps.bytes_tx - m->prev_bytes[c];
        m->d_paused[c] = ps.paused_ps - m->prev_paused[c];
        m->prev_bytes[c] = ps.bytes_tx;
        m->prev_paused[c] = ps.paused_ps;
    }
    /* O_TP: the host uplinks that carried data in the interval. */
    double tp = 0;
    const uint32_t *hosts = tl_topo_hosts(t);
    uint32_t n_up = 0;
    for (uint32_t h = 0; h < tl_topo_n_hosts(t); h++) {
        uint32_t nc, n_active = 0;
        const uint32_t *cs = tl_topo_out_chans(t, hosts[h], &nc);
        for (uint32_t k = 0; k < nc; k++) {
            uint32_t c = cs[k];
            if (!ft->chan_active[c])
                continue;
            tp += (double)m->d_bytes[c] * 8 /
                  ((double)tl_topo_link(t, tl_chan_link(c))->rate_bps * lam * 1e-12);
            n_up++;
            n_active = 1;
            ft->chan_active[c] = 0;
        }
        row->n_active_hosts += n_active;
    }
    row->o_tp = n_up ? tp / n_up : NAN;
    /* O_PFC: each device's pause time is the longest any of its ports was
     * paused (a device with one paused port is paused that long). */
    double paused = 0;
    for (uint32_t v = 0; v < n_nodes; v++) {
        uint32_t nc;
        const uint32_t *cs = tl_topo_out_chans(t, v, &nc);
        int64_t worst = 0;
        for (uint32_t k = 0; k < nc; k++)
            if (m->d_paused[cs[k]] > worst)
                worst = m->d_paused[cs[k]];
        paused += (double)(worst < m->interval_ps ? worst : m->interval_ps);
    }
    row->o_pfc = 1 - paused / ((double)n_nodes * lam);
    /* O_RTT: per pair of NICs that took RTT samples, base delay over their
     * mean RTT, the pair's flows pooled: the touched flows sorted by pair. */
    size_t n = m->n_rtt_touched;
    rtt_key *key = m->keys;
    double gamma = 0;
    for (size_t i = 0; i < n; i++) {
        const tl_flow *fl = &m->flows->v[m->rtt_touched[i]];
        key[i] = (rtt_key){((uint64_t)fl->src << 32) | fl->dst, m->rtt_touched[i]};
    }
    qsort(key, n, sizeof *key, cmp_key);
    double hops_mult = m->k[TL_MON_RTT_ONEWAY] ? 1 : 2;
    for (size_t i = 0; i < n;) {
        double sum = 0, cnt = 0, base = 0;
        size_t j = i;
        for (; j < n && key[j].pair == key[i].pair; j++) {
            int hops;
            tl_pktsim_flow_path(m->sim, key[j].flow, &hops);
            sum += m->rtt_sum[key[j].flow];
            cnt += m->rtt_n[key[j].flow];
            base = hops_mult * hops * (double)m->d_min_ps;
        }
        gamma += base / (sum / cnt);
        row->n_active_pairs++;
        i = j;
    }
    for (size_t i = 0; i < n; i++) {
        m->rtt_sum[m->rtt_touched[i]] = 0;
        m->rtt_n[m->rtt_touched[i]] = 0;
    }
    m->n_rtt_touched = 0;
    row->o_rtt = row->n_active_pairs ? gamma / row->n_active_pairs : NAN;
    row->u = m->k[TL_MON_W_TP] * row->o_tp + m->k[TL_MON_W_RTT] * row->o_rtt +
             m->k[TL_MON_W_PFC] * row->o_pfc;
}

static int step(void *ctx, tl_pktsim *s, int64_t now)
{
    tl_monitor *m = ctx;
    tl_err err;
    tl_err_clear(&err);
    if (m->n_rows == m->cap_rows) {
        size_t cap = m->cap_rows ? 2 * m->cap_rows : 256;
        tl_monitor_row *r = realloc(m->rows, cap * sizeof *r);
        if (!r)
            return TL_ENOMEM;
        m->rows = r;
        m->cap_rows = cap;
    }
    if (m->n_rtt_touched > m->cap_keys) {
        free(m->keys);
        m->cap_keys = m->n_rtt_touched * 2;
        if (!(m->keys = malloc(m->cap_keys * sizeof *m->keys)))
            return TL_ENOMEM;
    }
    tl_monitor_row *row = &m->rows[m->n_rows];
    memset(row, 0, sizeof *row);
    row->t_ps = now;
    int rc = read_paraleon(m, row, &err);
    if (rc)
        return rc;
    read_others(m, row, now);
    decide(m, row);
    metrics(m, row);
    m->n_rows++;
    return 0;
}
