/* Features of one path (m3.txt §3.4): flowsim's slowdowns of the path's
 * foreground and background flows, summarized as fixed-size quantile maps
 * that a gradient-boosted model can read, plus the network configuration
 * vector (m3.txt Table 4) and per-hop load statistics. Layout in
 * docs/m3.md "Features"; M3_FEATURE_SCHEMA changes whenever it does. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "m3/m3_int.h"
#include "tailor/cc.h"
#include "tailor/quantile.h"

/* ECN's Kmin: a feature, and what the reference's queue term reads
 * (m3_queue_ps). */
static const char KMIN[] = "switch.kmin_bytes_per_gbps";
static const char KMAX[] = "switch.kmax_bytes_per_gbps";

const double m3_q[M3_N_Q] = {0.01, 0.10, 0.25, 0.50, 0.75, 0.90,
                             0.95, 0.97, 0.98, 0.99, 0.995, 0.999};

/* m3's ten input size buckets: [0,250), [250,500), ..., [50000,inf) bytes. */
#define N_IN 10
static const uint64_t in_edge[N_IN - 1] = {250, 500, 750, 1000, 2000, 5000, 7500, 10000, 50000};
static const double in_q[3] = {0.50, 0.90, 0.99};

static int in_bucket(uint64_t size) /* 0 .. N_IN - 1 */
{
    int b = 0;
    while (b < N_IN - 1 && size >= in_edge[b])
        b++;
    return b;
}

/* ---- shared layout ---- */
enum {
    F_HOPS = 0, F_RATE_MIN, F_RATE_MAX, F_RTT, F_BDP, F_BUFFER, F_WINDOW, F_PFC,
    F_CC_DCTCP, F_CC_DCTCP_RATE, F_CC_DCQCN, F_CC_HPCC, F_CC_TIMELY,
    F_KMIN, F_KMAX, F_PMAX, F_HPCC_ETA, F_HPCC_AI, F_TIMELY_TLOW, F_TIMELY_THIGH, F_MTU,
    F_LOAD_MAX, F_LOAD_FIRST, F_LOAD_LAST, F_LOAD_MEAN, F_LOAD_MAX_POS,
    F_IAT_CV_MAX, F_SIZE_MEAN_MAX,
    F_BG = 28,          /* background maps: 3 hops (first, last, busiest middle) x 3 quantiles */
    F_BN_MEAN = 37,     /* busiest-link flows: mean slowdown, */
    F_BN_MAP = 38,      /* N_IN input buckets x 3 quantiles, */
    F_BN_FRAC_IN = 68,  /* N_IN size fractions */
    F_END = 78,
};
_Static_assert(F_END == M3_N_SHARED, "shared feature layout");
_Static_assert(F_BN_MAP == F_BN_MEAN + 1 && F_BN_FRAC_IN == F_BN_MAP + 3 * N_IN,
               "feature map layout");

/* The one-hot columns cover the CC ids the models were trained on
 * (tl_cc_desc.id); a CC's model_knobs go to its pair of columns, fractions
 * as they are, rates in Mb/s, times in us. */
#define N_CC_COLS (F_KMIN - F_CC_DCTCP)
_Static_assert(F_CC_DCTCP + TL_CC_TIMELY == F_CC_TIMELY && F_CC_DCTCP + TL_CC_HPCC == F_CC_HPCC &&
                   F_CC_DCTCP + TL_CC_DCQCN == F_CC_DCQCN,
               "one-hot columns follow the CC ids");
static const int knob_cols[N_CC_COLS] = {[TL_CC_HPCC] = F_HPCC_ETA, [TL_CC_TIMELY] = F_TIMELY_TLOW};

static float model_knob(const tl_cc_desc *d, const tl_params *p, int j)
{
    const tl_param_def *def = &d->knobs[d->model_knobs[j]];
    double v = tl_cc_knobs(d, p)[d->model_knobs[j]];
    return (float)(def->unit == TL_UNIT_BPS || def->unit == TL_UNIT_PS ? v / 1e6 : v);
}

/* The knobs read here are listed again in m3_knob_is_read. */
void m3_features_config(const m3_pathwl *w, const tl_params *p, const char *cc, m3_feat *ft)
{
    float *x = ft->shared;
    double rmin = INFINITY, rmax = 0, delay = 0;
    for (int l = 0; l < w->n_links; l++) {
        rmin = fmin(rmin, (double)w->link[l].rate_bps);
        rmax = fmax(rmax, (double)w->link[l].rate_bps);
        delay += (double)w->link[l].delay_ps;
    }
    double rtt_s = 2 * delay * 1e-12;
    x[F_HOPS] = (float)w->n_links;
    x[F_RATE_MIN] = (float)(rmin / 1e9);
    x[F_RATE_MAX] = (float)(rmax / 1e9);
    x[F_RTT] = (float)(rtt_s * 1e6);
    x[F_BDP] = (float)(rmin * rtt_s / 8 / 1000);
    double mtu = tl_knob(p, TL_K_NIC_MTU_BYTES);
    /* the buffer and window pktsim takes when their knobs say "from the
     * fabric" (0): the network's references, or this path's own */
    tl_fabric_ref fab = w->fabric;
    if (!fab.rtt_ps) {
        for (int l = 0; l < w->n_links; l++)
            fab.rtt_ps += 2 * w->link[l].delay_ps +
                          (int64_t)(mtu * 8e12 / (double)w->link[l].rate_bps);
        fab.bdp_bytes = (uint64_t)((double)fab.rtt_ps * 1e-12 * rmin / 8);
        fab.nic_bps = w->link[0].rate_bps;
    }
    x[F_BUFFER] = (float)((double)tl_pktsim_buffer_bytes(p, fab.nic_bps) / 1000);
    const tl_cc_desc *d = tl_cc_lookup(cc);
    /* DCQCN, HPCC and TIMELY run without a window here */
    x[F_WINDOW] = d && d->window_knob >= 0
                      ? (float)(tl_cc_start_window_bytes(d, p, mtu, (double)fab.bdp_bytes) / 1000)
                      : NAN;
    x[F_PFC] = (float)tl_knob(p, TL_K_SW_PFC);
    for (int i = 0; i < N_CC_COLS; i++)
        x[F_CC_DCTCP + i] = (float)(d && d->id == i);
    x[F_KMIN] = (float)(tl_knob(p, TL_K_SW_KMIN_BYTES_PER_GBPS) / 1000);
    x[F_KMAX] = (float)(tl_knob(p, TL_K_SW_KMAX_BYTES_PER_GBPS) / 1000);
    x[F_PMAX] = (float)tl_knob(p, TL_K_SW_PMAX);
    x[F_HPCC_ETA] = x[F_HPCC_AI] = x[F_TIMELY_TLOW] = x[F_TIMELY_THIGH] = NAN;
    int col = d && d->id >= 0 && d->id < N_CC_COLS ? knob_cols[d->id] : 0;
    for (int j = 0; col && j < 2; j++)
        x[col + j] = model_knob(d, p, j);
    x[F_MTU] = (float)mtu;
}

uint32_t m3_schema_first(const char *cc)
{
    /* schema 8: DCQCN's arrivals (reads_iat_cv); 7: DCQCN's queue term; 6:
     * TIMELY's (tl_cc_desc.m3_schema).
     * Schema 5 (TIMELY's burst queue) left the others' features as schema 4
     * had them, but their shipped models were retrained under 5 and nothing
     * older is kept */
    const tl_cc_desc *d = tl_cc_lookup(cc);
    return d && d->m3_schema ? d->m3_schema : M3_SCHEMA_OLDEST;
}

/* Whether name is knob k (an index into d->knobs, -1 none) of d. */
static int is_knob(const char *name, const tl_cc_desc *d, int k)
{
    return d && k >= 0 && !strcmp(name, d->knobs[k].name);
}

int m3_knob_changes_features(const char *name, const char *cc)
{
    /* the MTU and headers shape flowsim's ideal times; tau the burst queue */
    const tl_cc_desc *d = tl_cc_lookup(cc);
    return !strcmp(name, "nic.mtu_bytes") || !strcmp(name, "nic.header_bytes") ||
           (d && d->queue == TL_CC_QUEUE_DELAY && is_knob(name, d, d->delay_knob));
}

int m3_knob_changes_reference(const char *name, const char *cc)
{
    const tl_cc_desc *d = tl_cc_lookup(cc);
    return !strcmp(name, KMIN) || (d && d->queue == TL_CC_QUEUE_KMIN_KMAX && !strcmp(name, KMAX));
}

int m3_knob_is_read(const char *name, const char *cc)
{
    /* the knobs m3_features_config reads: change both together (test_m3
     * knob_read_list_matches_config moves every knob and compares) */
    static const char *const any_cc[] = {"switch.buffer_bytes", "switch.pfc", KMIN, KMAX,
                                         "switch.pmax"};
    if (m3_knob_changes_features(name, cc) || m3_knob_changes_reference(name, cc))
        return 1;
    for (size_t i = 0; i < sizeof any_cc / sizeof *any_cc; i++)
        if (!strcmp(name, any_cc[i]))
            return 1;
    const tl_cc_desc *d = tl_cc_lookup(cc);
    if (!d)
        return 0;
    int has_cols = d->id >= 0 && d->id < N_CC_COLS && knob_cols[d->id];
    return is_knob(name, d, d->window_knob) ||
           (has_cols &&
            (is_knob(name, d, d->model_knobs[0]) || is_knob(name, d, d->model_knobs[1])));
}

/* Quantiles of xs[0..n) at qs into out (NaN for n == 0); sorts xs. */
static void quantiles(double *xs, size_t n, const double *qs, int nq, double *out)
{
    tl_quantiles(xs, n, qs, out, (size_t)nq, NULL); /* qs are constants in [0, 1] */
}

static void quantiles_f(double *xs, size_t n, const double *qs, int nq, float *out)
{
    double v[M3_N_Q];
    quantiles(xs, n, qs, nq, v);
    for (int i = 0; i < nq; i++)
        out[i] = (float)v[i];
}

/* Slowdowns of the flows idx[0..m) grouped by bucket(size), in one
 * counting pass: bucket b's are buf[off[b] .. off[b+1]), in idx order. */
static void group(const m3_pathwl *w, const uint32_t *idx, size_t m, const double *sd,
                  int (*bucket)(uint64_t), int nb, double *buf, size_t *off)
{
    size_t fill[N_IN + 1] = {0};
    for (size_t j = 0; j < m; j++)
        fill[bucket(w->flow[idx[j]].size_bytes) + 1]++;
    for (int b = 0; b < nb; b++)
        fill[b + 1] += fill[b];
    memcpy(off, fill, (size_t)(nb + 1) * sizeof *off);
    for (size_t j = 0; j < m; j++)
        buf[fill[bucket(w->flow[idx[j]].size_bytes)]++] = sd[idx[j]];
}

/* A flow's bytes on the wire: its payload plus a header per MTU packet. */
static double wire_bytes(uint64_t size, uint32_t mtu, uint32_t hdr)
{
    uint64_t pk = (size + mtu - 1) / mtu;
    return (double)(size + pk * hdr);
}

/* Per-hop load statistics over the path workload's arrival span. */
static void hop_stats(const m3_pathwl *w, uint32_t mtu, uint32_t hdr, double *load)
{
    double span_s = w->n_flows > 1
                        ? (double)(w->flow[w->n_flows - 1].start_ps - w->flow[0].start_ps) * 1e-12
                        : 0;
    double bytes[TL_MAX_HOPS] = {0};
    for (size_t i = 0; i < w->n_flows; i++) {
        const tl_fs_path_flow *f = &w->flow[i];
        double wire = wire_bytes(f->size_bytes, mtu, hdr);
        for (int l = f->first; l <= f->last; l++)
            bytes[l] += wire;
    }
    for (int l = 0; l < w->n_links; l++)
        load[l] = span_s > 0 ? bytes[l] * 8 / (span_s * (double)w->link[l].rate_bps) : 0;
}

/* Coefficient of variation of the inter-arrival times of the flows idx[0..m)
 * (in start order). */
static double iat_cv(const m3_pathwl *w, const uint32_t *idx, size_t m)
{
    double sum = 0, sum2 = 0, n = 0;
    for (size_t j = 1; j < m; j++) {
        double d = (double)(w->flow[idx[j]].start_ps - w->flow[idx[j - 1]].start_ps);
        sum += d, sum2 += d * d, n++;
    }
    if (n < 2 || sum <= 0)
        return NAN;
    double mean = sum / n, var = sum2 / n - mean * mean;
    return sqrt(var > 0 ? var : 0) / mean;
}

double m3_queue_ps(const tl_params *p, const char *cc)
{
    /* TIMELY raises its rate while the RTT is below T_low, so competing
     * flows keep the path's queueing delay near it (schema 6) */
    const tl_cc_desc *d = tl_cc_lookup(cc);
    if (d && d->queue == TL_CC_QUEUE_DELAY)
        return M3_TIMELY_QUEUE_SHARE * tl_cc_knobs(d, p)[d->delay_knob];
    int is_dcqcn = d && d->queue == TL_CC_QUEUE_KMIN_KMAX;
    if (!is_dcqcn && !(d && d->queue == TL_CC_QUEUE_KMIN))
        return 0; /* HPCC holds no standing ECN queue */
    /* DCQCN marks with a probability that rises from Kmin to Kmax, and its
     * slow rate cuts let the queue climb into that range: its queue is
     * taken at the middle of it (schema 7) */
    double k = tl_knob(p, TL_K_SW_KMIN_BYTES_PER_GBPS), share = M3_QUEUE_SHARE;
    if (is_dcqcn)
        k = (k + tl_knob(p, TL_K_SW_KMAX_BYTES_PER_GBPS)) / 2, share = M3_DCQCN_QUEUE_SHARE;
    /* K KB per Gb/s at r Gb/s drain in K x 8 us whatever r (the training
     * data were made with this order of operations; halving k before or
     * after the share gives the same bits) */
    return share * k / 1000 * 8e6;
}

/* Whether cc's model reads the busiest hop's arrival burstiness
 * (tl_cc_desc.m3_flat_arrivals). DCQCN's does not (schema 8): in its
 * training fabrics the coefficient of variation of the busiest hop's
 * inter-arrival times lies in 0.88-1.22 (10th-90th percentile; 1.42 at the
 * 99th on two-hop paths), while a busy rack that keeps its flows to itself
 * under burstier arrivals (matrix C, sigma 2) shows more; the model's answer
 * is flat from 1.5 up, as for the burstiest training paths, and put d04's
 * small flows at twice their p90. Held at 1, the held-out pinball loss fell
 * a little (0.05867 against 0.05872) and the suite's DCQCN error from 18.8%
 * to 13.9% (docs/m3.md). */
static int reads_iat_cv(const char *cc)
{
    const tl_cc_desc *d = tl_cc_lookup(cc);
    return !(d && d->m3_flat_arrivals);
}

/* The rate a flow can take on its own: its slowest link on the path or in
 * its private access links. */
static double flow_cap_bps(const m3_pathwl *w, const tl_fs_path_flow *f)
{
    uint64_t cap = UINT64_MAX; /* (fmin is a library call here: integers) */
    for (int l = f->first; l <= f->last; l++)
        cap = w->link[l].rate_bps < cap ? w->link[l].rate_bps : cap;
    if (f->src.rate_bps && f->src.rate_bps < cap)
        cap = f->src.rate_bps;
    if (f->dst.rate_bps && f->dst.rate_bps < cap)
        cap = f->dst.rate_bps;
    return (double)cap;
}

/* A hop's latest completions so far, latest first, kept only as far as the
 * shortest prefix of at least two flows whose rates add up to the hop's
 * (is_full once there is one). The flows active at a time t are a prefix
 * of all completions ordered so, so the hop is saturated at t exactly when
 * that shortest prefix is full and its last completion is after t; what
 * lies beyond it can never matter. It holds about rate / (a flow's rate)
 * entries: four on a 40 Gb/s hop of 10 Gb/s hosts. */
typedef struct hop_ends {
    int64_t *end;
    double *cap, rate;
    size_t n, room;
    int is_full;
} hop_ends;

static int hop_ends_add(hop_ends *h, int64_t end, double cap, tl_err *err)
{
    if (h->n == h->room) {
        size_t room = h->room ? 2 * h->room : 8;
        int64_t *e = realloc(h->end, room * sizeof *e);
        if (e)
            h->end = e;
        double *c = e ? realloc(h->cap, room * sizeof *c) : NULL;
        if (!c)
            return tl_err_nomem(err);
        h->cap = c, h->room = room;
    }
    size_t i = h->n++;
    for (; i > 0 && h->end[i - 1] < end; i--) /* starts are in order: ends mostly come late */
        h->end[i] = h->end[i - 1], h->cap[i] = h->cap[i - 1];
    h->end[i] = end, h->cap[i] = cap;
    double sum = 0; /* sums of whole bits per second: exact */
    for (size_t k = 0; k < h->n; k++) {
        sum += h->cap[k];
        if (k >= 1 && sum >= h->rate) {
            h->n = k + 1, h->is_full = 1;
            break;
        }
    }
    return 0;
}

/* The slowdowns of the reference (docs/m3.md "Features"): flowsim shares
 * links but holds no queues, so in flowsim a small flow takes about its
 * ideal time however busy its links are. Under DCTCP or DCQCN a flow that
 * arrives at a saturated switch port waits behind the queue its senders hold
 * near Kmin, and the reference adds m3_queue_ps over the flow's ideal FCT
 * per such hop. hits[i] counts the switch hops of the path (links 1..; link
 * 0 is the source's NIC, which does not mark) where, at flow i's start in
 * flowsim's run, at least two other flows that cross the hop are active and
 * the rates they can take on their own add up to the hop's rate or more.
 * (Two flows of 10 Gb/s hosts leave a 40 Gb/s hop partly idle: counting them
 * made the reference meet queues on fabric hops that pktsim does not have.)
 * Every flow tests every hop, including hops it does not cross: the
 * reference stands for the foreground, which crosses them all, while most of
 * the busiest link's flows leave the path after it (on a rack-local path the
 * source NIC's flows go elsewhere; testing only the hops they cross gave the
 * reference a tenth of the queue hits pktsim gives the foreground). One pass
 * in start order. */
static int saturated_hops(const m3_pathwl *w, const tl_flow_result *res, int max_hits,
                          uint8_t *hits, tl_err *err)
{
    memset(hits, 0, w->n_flows * sizeof *hits);
    hop_ends h[TL_MAX_HOPS];
    memset(h, 0, sizeof h);
    for (int l = 1; l < w->n_links; l++)
        h[l].rate = (double)w->link[l].rate_bps;
    int rc = 0;
    for (size_t i = 0; i < w->n_flows && !rc; i++) {
        const tl_fs_path_flow *f = &w->flow[i];
        for (int l = 1; l < w->n_links; l++)
            hits[i] += hits[i] < max_hits && h[l].is_full && h[l].end[h[l].n - 1] > f->start_ps;
        if (f->last < 1)
            continue;
        double cap = flow_cap_bps(w, f);
        for (int l = f->first > 1 ? f->first : 1; l <= f->last && !rc; l++)
            rc = hop_ends_add(&h[l], f->start_ps + res[i].fct_ps, cap, err);
    }
    for (int l = 1; l < w->n_links; l++)
        free(h[l].end), free(h[l].cap);
    return rc;
}

int m3_queue_hops_max(const char *cc)
{
    /* DCTCP and DCQCN mark at each switch, so each saturated hop holds its
     * own queue; TIMELY reacts to the whole path's RTT, so the
     * path holds one T_low's worth however many of its hops are saturated */
    const tl_cc_desc *d = tl_cc_lookup(cc);
    return d && d->queue == TL_CC_QUEUE_DELAY ? 1 : TL_MAX_HOPS;
}

double m3_burst_tau_ps(const tl_params *p, const char *cc)
{
    /* TIMELY's rate keeps rising while the RTT is below T_low. DCQCN would
     * wait for a queue of Kmin and a CNP (about 40 us), but its model did
     * worse with the term (docs/m3.md "Known limits"); DCTCP's window bounds
     * a burst, HPCC reacts within an RTT. */
    const tl_cc_desc *d = tl_cc_lookup(cc);
    return d && d->queue == TL_CC_QUEUE_DELAY ? tl_cc_knobs(d, p)[d->delay_knob] : 0;
}

typedef struct burst_end {
    int64_t t;
    double bps;
} burst_end;

static int burst_end_cmp(const void *a, const void *b)
{
    int64_t x = ((const burst_end *)a)->t, y = ((const burst_end *)b)->t;
    return (x > y) - (x < y);
}

/* The burst queue (docs/m3.md "Features"): TIMELY starts a flow at its line
 * rate and slows it only once its RTT samples tell it to, about tau later
 * (m3_burst_tau_ps), so flows that arrive together queue at a switch port although
 * flowsim, which shares links at once, gives them no queue at all. At every
 * switch hop (links 1 and on), each crossing flow sends its first
 * min(size, rate x tau) bytes at its own rate (its slowest link) into a
 * fluid queue; the queue drains at what the rest of the bytes (each flow's
 * beyond its burst, at the hop's offered load) leave of the hop's rate, at
 * least a tenth. delay_ps[i] (for every flow: the reference stands for the
 * foreground, which crosses every hop) sums over the hops the time the
 * queue met at flow i's start takes to drain at the hop's rate. */
static int burst_delay(const m3_pathwl *w, uint32_t mtu, uint32_t hdr, double tau_ps,
                       double *delay_ps, tl_err *err)
{
    size_t n = w->n_flows;
    memset(delay_ps, 0, n * sizeof *delay_ps);
    if (tau_ps <= 0 || n < 2)
        return 0;
    double span_ps = (double)(w->flow[n - 1].start_ps - w->flow[0].start_ps);
    burst_end *ends = malloc(n * sizeof *ends);
    double *rate = malloc(n * sizeof *rate), *burst = malloc(n * sizeof *burst);
    if (!ends || !rate || !burst) {
        free(ends), free(rate), free(burst);
        return tl_err_nomem(err);
    }
    /* a flow's rate and burst (bits) are the same at every hop it crosses */
    for (size_t i = 0; i < n; i++) {
        rate[i] = flow_cap_bps(w, &w->flow[i]);
        burst[i] = 8 * wire_bytes(w->flow[i].size_bytes, mtu, hdr);
    }
    for (int l = 1; l < w->n_links; l++) {
        double c_bps = (double)w->link[l].rate_bps, rest_bits = 0;
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            const tl_fs_path_flow *f = &w->flow[i];
            if (f->first > l || f->last < l)
                continue;
            double b = fmin(burst[i], rate[i] * tau_ps * 1e-12);
            rest_bits += burst[i] - b;
            ends[m++] = (burst_end){f->start_ps + (int64_t)llround(b / rate[i] * 1e12), rate[i]};
        }
        qsort(ends, m, sizeof *ends, burst_end_cmp);
        double rho = span_ps > 0 ? rest_bits / (span_ps * 1e-12 * c_bps) : 0;
        double drain_bps = c_bps * fmax(0.1, 1 - rho);
        double q_bits = 0, in_bps = 0;
        int64_t now = w->flow[0].start_ps;
        size_t e = 0;
        for (size_t i = 0; i < n; i++) {
            const tl_fs_path_flow *f = &w->flow[i];
            /* piecewise constant input: advance through the bursts that end first */
            for (;;) {
                int64_t t = e < m && ends[e].t <= f->start_ps ? ends[e].t : f->start_ps;
                q_bits = fmax(0, q_bits + (in_bps - drain_bps) * (double)(t - now) * 1e-12);
                now = t;
                if (!(e < m && ends[e].t <= f->start_ps))
                    break;
                in_bps -= ends[e++].bps;
            }
            delay_ps[i] += q_bits / c_bps * 1e12;
            if (f->first <= l && f->last >= l)
                in_bps += rate[i];
        }
    }
    free(ends), free(rate), free(burst);
    return 0;
}

/* A reference flow's slowdown: flowsim's plus q_ps over its ideal time per
 * saturated hop (added hop by hop, so that a kept reference re-queued under
 * the same Kmin gives the same bits). */
static double queued(double sd, uint8_t hits, double q_ps, double ideal_ps)
{
    for (int k = 0; k < hits; k++)
        sd += q_ps / ideal_ps;
    return sd;
}

void m3_refkeep_fini(m3_refkeep *k)
{
    free(k->sd), free(k->ideal_ps), free(k->hits);
    memset(k, 0, sizeof *k);
}

/* The busiest link's flows (bn[0..m)) grouped by output bucket as group()
 * orders them, with what a requeue needs. */
static int keep_reference(const m3_pathwl *w, const uint32_t *bn, size_t m, const double *sd,
                          const tl_flow_result *res, const uint8_t *hits, m3_refkeep *k,
                          tl_err *err)
{
    k->sd = malloc((m + 1) * sizeof *k->sd);
    k->ideal_ps = malloc((m + 1) * sizeof *k->ideal_ps);
    k->hits = malloc(m + 1);
    if (!k->sd || !k->ideal_ps || !k->hits) {
        m3_refkeep_fini(k);
        return tl_err_nomem(err);
    }
    uint32_t fill[M3_N_OUT + 1] = {0};
    for (size_t j = 0; j < m; j++)
        fill[tl_bucket_of(w->flow[bn[j]].size_bytes) + 1]++;
    for (int b = 0; b < M3_N_OUT; b++)
        fill[b + 1] += fill[b];
    memcpy(k->off, fill, sizeof k->off);
    for (size_t j = 0; j < m; j++) {
        uint32_t i = bn[j], at = fill[tl_bucket_of(w->flow[i].size_bytes)]++;
        k->sd[at] = sd[i], k->ideal_ps[at] = (double)res[i].ideal_ps, k->hits[at] = hits[i];
    }
    return 0;
}

int m3_feat_requeue(m3_feat *ft, const m3_refkeep *k, double q_ps, tl_err *err)
{
    uint32_t m = k->off[M3_N_OUT];
    double *buf = malloc((m + 1) * sizeof *buf);
    if (!buf)
        return tl_err_nomem(err);
    for (uint32_t i = 0; i < m; i++)
        buf[i] = queued(k->sd[i], k->hits[i], q_ps, k->ideal_ps[i]);
    for (int b = 0; b < M3_N_OUT; b++)
        quantiles(buf + k->off[b], k->off[b + 1] - k->off[b], m3_q, M3_N_Q, ft->ref_q[b]);
    free(buf);
    return 0;
}

int m3_features(const m3_pathwl *w, const tl_params *p, const char *cc, m3_feat *ft,
                tl_err *err)
{
    return m3_features_keep(w, p, cc, ft, NULL, err);
}

int m3_features_keep(const m3_pathwl *w, const tl_params *p, const char *cc, m3_feat *ft,
                     m3_refkeep *keep, tl_err *err)
{
    memset(ft, 0, sizeof *ft);
    if (keep)
        m3_refkeep_fini(keep);
    m3_features_config(w, p, cc, ft);
    float *x = ft->shared;
    uint32_t mtu = (uint32_t)tl_knob(p, TL_K_NIC_MTU_BYTES);
    uint32_t hdr = (uint32_t)tl_knob(p, TL_K_NIC_HEADER_BYTES);
    size_t n = w->n_flows;

    tl_flowsim *fs = tl_flowsim_create_path(w->link, w->n_links, w->flow, n, p, err);
    if (!fs)
        return err && err->code ? err->code : TL_ENOMEM;
    int rc = tl_flowsim_run(fs, NULL, err);
    double *sd = malloc((n + 1) * sizeof *sd), *buf = malloc((n + 1) * sizeof *buf);
    double *bg = malloc(3 * (n + 1) * sizeof *bg);
    uint32_t *bn = malloc((n + 1) * sizeof *bn), *fg = malloc((n + 1) * sizeof *fg);
    uint8_t *hits = malloc(n + 1);
    if (rc || !sd || !buf || !bg || !bn || !fg || !hits) {
        rc = rc ? rc : tl_err_nomem(err);
        goto done;
    }
    const tl_flow_result *res = tl_flowsim_results(fs);
    for (size_t i = 0; i < n; i++)
        sd[i] = tl_slowdown(res[i].fct_ps, res[i].ideal_ps);

    /* load and burstiness */
    double load[TL_MAX_HOPS] = {0};
    hop_stats(w, mtu, hdr, load);
    int busiest = 0, mid = -1;
    double sum = 0;
    for (int l = 0; l < w->n_links; l++) {
        sum += load[l];
        if (load[l] > load[busiest])
            busiest = l;
        if (l > 0 && l < w->n_links - 1 && (mid < 0 || load[l] > load[mid]))
            mid = l;
    }
    x[F_LOAD_MAX] = (float)load[busiest];
    x[F_LOAD_FIRST] = (float)load[0];
    x[F_LOAD_LAST] = (float)load[w->n_links - 1];
    x[F_LOAD_MEAN] = (float)(sum / w->n_links);
    x[F_LOAD_MAX_POS] = w->n_links > 1 ? (float)busiest / (float)(w->n_links - 1) : 0;

    /* One pass sorts the flows out (the path workload is megabytes at 2M
     * flows, and a pass per map was a tenth of the run): the busiest link's
     * flows and the foreground as index lists, the background segments'
     * slowdowns at the first hop, the last hop and the busiest middle hop. */
    int hops3[3] = {0, w->n_links - 1, mid};
    size_t n_bg[3] = {0}, n_bn = 0, n_fgf = 0;
    double bytes_busiest = 0;
    for (size_t i = 0; i < n; i++) {
        const tl_fs_path_flow *f = &w->flow[i];
        if (f->first <= busiest && f->last >= busiest) {
            bn[n_bn++] = (uint32_t)i;
            bytes_busiest += (double)f->size_bytes;
        }
        if (w->is_fg[i]) {
            fg[n_fgf++] = (uint32_t)i;
            continue;
        }
        for (int k = 0; k < 3; k++)
            if (hops3[k] >= 0 && f->first <= hops3[k] && f->last >= hops3[k])
                bg[(size_t)k * (n + 1) + n_bg[k]++] = sd[i];
    }
    x[F_IAT_CV_MAX] = reads_iat_cv(cc) ? (float)iat_cv(w, bn, n_bn) : 1;
    x[F_SIZE_MEAN_MAX] = n_bn ? (float)(bytes_busiest / (double)n_bn / 1000) : NAN;

    /* background maps: first hop, last hop, busiest middle hop */
    for (int k = 0; k < 3; k++)
        quantiles_f(bg + (size_t)k * (n + 1), n_bg[k], in_q, 3, x + F_BG + 3 * k);

    /* busiest-link flows: mean, the input-bucket map, the reference */
    double bn_sum = 0;
    size_t off[N_IN + 1];
    group(w, bn, n_bn, sd, in_bucket, N_IN, buf, off);
    for (int b = 0; b < N_IN; b++) {
        size_t m = off[b + 1] - off[b];
        for (size_t i = off[b]; i < off[b + 1]; i++)
            bn_sum += buf[i];
        quantiles_f(buf + off[b], m, in_q, 3, x + F_BN_MAP + 3 * b);
        x[F_BN_FRAC_IN + b] = n_bn ? (float)((double)m / (double)n_bn) : 0;
    }
    x[F_BN_MEAN] = n_bn ? (float)(bn_sum / (double)n_bn) : NAN;
    /* the reference: the busiest link's flows, with the queue term, made
     * the way a Kmin sweep re-makes it (in keep, or a copy dropped here) */
    double q_ps = m3_queue_ps(p, cc);
    m3_refkeep own, *k = keep ? keep : &own;
    memset(&own, 0, sizeof own);
    if (q_ps > 0 || keep)
        rc = saturated_hops(w, res, m3_queue_hops_max(cc), hits, err);
    else
        memset(hits, 0, n);
    /* the burst queue joins the reference's slowdowns (buf: the delays);
     * it does not move with Kmin, which re-queues; a T_low sweep featurizes
     * again (m3_knob_changes_features) */
    rc = rc ? rc : burst_delay(w, mtu, hdr, m3_burst_tau_ps(p, cc), buf, err);
    for (size_t i = 0; i < n && !rc; i++)
        buf[i] = sd[i] + buf[i] / (double)res[i].ideal_ps;
    rc = rc ? rc : keep_reference(w, bn, n_bn, buf, res, hits, k, err);
    rc = rc ? rc : m3_feat_requeue(ft, k, q_ps, err);
    for (int b = 0; b < M3_N_OUT && !rc; b++)
        ft->n_ref[b] = k->off[b + 1] - k->off[b];
    m3_refkeep_fini(&own);
    if (rc)
        goto done;
    /* foreground: flowsim's own estimate (--no-model) and the counts */
    group(w, fg, n_fgf, sd, tl_bucket_of, M3_N_OUT, buf, off);
    for (int b = 0; b < M3_N_OUT; b++) {
        ft->n_fg[b] = (uint32_t)(off[b + 1] - off[b]);
        quantiles(buf + off[b], ft->n_fg[b], m3_q, M3_N_Q, ft->fs_q[b]);
    }
done:
    free(sd), free(buf), free(bg), free(bn), free(fg), free(hits);
    tl_flowsim_destroy(fs);
    return rc;
}

float m3_feat_load(const m3_feat *ft, int which)
{
    return ft->shared[which == 0 ? F_LOAD_MAX : which == 1 ? F_LOAD_FIRST : F_LOAD_LAST];
}

_Static_assert((int)F_PFC == (int)M3_SHARED_PFC, "m3_int.h names the PFC feature's index");
int m3_feat_lossless(const m3_feat *ft) { return ft->shared[F_PFC] != 0; }

void m3_feat_row(const m3_feat *ft, int b, int qi, float *row)
{
    memcpy(row, ft->shared, sizeof ft->shared);
    row[M3_N_SHARED] = (float)b;
    row[M3_N_SHARED + 1] = (float)m3_q[qi];
    row[M3_N_SHARED + 2] = (float)ft->ref_q[b][qi];
}

const char *m3_feature_name(int i, char *buf, size_t n)
{
    static const char *const fixed[F_BG] = {
        "hops", "rate_min_gbps", "rate_max_gbps", "rtt_us", "bdp_kb", "buffer_kb", "window_kb",
        "pfc", "cc_dctcp", "cc_dctcp_rate", "cc_dcqcn", "cc_hpcc", "cc_timely", "kmin_kb_per_gbps",
        "kmax_kb_per_gbps", "pmax", "hpcc_eta", "hpcc_ai_mbps", "timely_tlow_us",
        "timely_thigh_us", "mtu", "load_max", "load_first", "load_last", "load_mean",
        "load_max_pos", "iat_cv_busiest", "size_mean_kb_busiest"};
    static const char *const hop[3] = {"first", "last", "mid"};
    static const char *const qn[3] = {"p50", "p90", "p99"};
    static const char *const extra[3] = {"bucket", "q", "ref_q"};
    if (i < F_BG)
        snprintf(buf, n, "%s", fixed[i]);
    else if (i < F_BN_MEAN)
        snprintf(buf, n, "bg_%s_%s", hop[(i - F_BG) / 3], qn[(i - F_BG) % 3]);
    else if (i == F_BN_MEAN)
        snprintf(buf, n, "bn_mean");
    else if (i < F_BN_FRAC_IN)
        snprintf(buf, n, "bn_in%d_%s", (i - F_BN_MAP) / 3, qn[(i - F_BN_MAP) % 3]);
    else if (i < F_END)
        snprintf(buf, n, "bn_in%d_frac", i - F_BN_FRAC_IN);
    else if (i < M3_N_FEATURES)
        snprintf(buf, n, "%s", extra[i - F_END]);
    else
        snprintf(buf, n, "?");
    return buf;
}
