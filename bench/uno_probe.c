/* uno_probe.h: Uno's incasts on its two-DC network. */
#include "uno_probe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/pktsim.h"
#include "tailor/world.h"

typedef struct probe {
    const uno_probe_case *c;
    uno_probe_out *o;
    uint32_t bneck, nic[UNO_PROBE_MAX_SRC];
    uint64_t last_tx[UNO_PROBE_MAX_SRC];
    int k;
} probe;

static int sample(void *ctx, tl_pktsim *s, int64_t now)
{
    probe *pr = ctx;
    uno_probe_out *o = pr->o;
    if (pr->k >= o->n_samples)
        return 0;
    double secs = (double)pr->c->sample_ps * 1e-12;
    for (int i = 0; i < o->n_flows; i++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(s, pr->nic[i], &ps);
        o->rate_gbps[pr->k * o->n_flows + i] = (double)(ps.bytes_tx - pr->last_tx[i]) * 8 / secs / 1e9;
        pr->last_tx[i] = ps.bytes_tx;
        uint64_t w, r;
        tl_pktsim_flow_cc(s, (size_t)i, &w, &r);
        o->cwnd_bytes[pr->k * o->n_flows + i] = w == UINT64_MAX ? NAN : (double)w;
    }
    tl_port_stats ps;
    tl_pktsim_port_stats(s, pr->bneck, &ps);
    o->queue_bytes[pr->k] = (double)ps.queue_bytes_now;
    pr->k++;
    return 0;
}

/* Sender j of each kind, as the artifact's mixed incast (4_4_1000MB.cm):
 * inter from DC 0's hosts 0, 10, 20, ...; intra from DC 1's 130, 140, ...
 * (then 131, 141, ...), never host 240's rack. */
static uint32_t inter_host(int j) { return (uint32_t)(10 * (j % 13) + j / 13); }
static uint32_t intra_host(int j) { return (uint32_t)(130 + 10 * (j % 11) + j / 11); }

void uno_probe_free(uno_probe_out *o)
{
    free(o->rate_gbps);
    free(o->cwnd_bytes);
    free(o->queue_bytes);
    free(o->rpc_fct_us);
    free(o->rpc_ideal_us);
    memset(o, 0, sizeof *o);
}

int uno_probe_run(const uno_probe_case *c, uno_probe_out *o)
{
    memset(o, 0, sizeof *o);
    int n = c->n_inter + c->n_intra + c->n_late;
    if (n < 1 || n > UNO_PROBE_MAX_SRC || c->sample_ps <= 0 || c->n_rpc < 0 ||
        (c->n_rpc && (c->rpc_gap_ps <= 0 || c->rpc_min_bytes < 1 || c->rpc_max_bytes < c->rpc_min_bytes))) {
        fprintf(stderr, "uno_probe: 1..%d senders and a sample interval, please\n", UNO_PROBE_MAX_SRC);
        return 1;
    }
    char json[2048];
    snprintf(json, sizeof json,
             "{\"seed\": 1, \"topology\": {\"type\": \"two_dc\", \"k\": 8, \"inter_dc_links\": 8, "
             "\"host_link_bps\": \"100Gbps\", \"fabric_link_bps\": \"100Gbps\", \"wan_link_bps\": "
             "\"100Gbps\", \"link_delay_ns\": 1000, \"wan_delay_ns\": \"%.3fus\"}, \"workload\": "
             "{\"flows\": %d, \"classes\": [{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": "
             "1000}, \"spatial\": {\"type\": \"permutation\"}, \"arrival\": {\"process\": "
             "\"simultaneous\"}}]}, \"transport\": {\"cc\": \"%s\", \"lb\": \"spray\", \"nic\": "
             "{\"mtu_bytes\": 4096, \"header_bytes\": 64, \"ack_bytes\": 64, \"rto_ps\": \"420us\", \"wan_rto_extra_ps\": \"252us\"}, \"switch\": "
             "{\"port_buffer_bytes\": 1048576%s%s}%s%s}}",
             c->wan_delay_us, n + c->n_rpc, c->cc, c->switch_knobs ? ", " : "",
             c->switch_knobs ? c->switch_knobs : "", c->knobs ? ", " : "", c->knobs ? c->knobs : "");
    tl_world w;
    tl_err err;
    tl_err_clear(&err);
    if (tl_world_from_json(&w, json, 1, &err)) {
        fprintf(stderr, "uno_probe: %s %s\n", err.path, err.msg);
        return 1;
    }
    const uint32_t *hosts = tl_topo_hosts(w.topo);
    o->n_flows = n;
    o->n_samples = (int)(c->end_ps / c->sample_ps);
    o->rate_gbps = calloc((size_t)o->n_samples * (size_t)n, sizeof *o->rate_gbps);
    o->cwnd_bytes = calloc((size_t)o->n_samples * (size_t)n, sizeof *o->cwnd_bytes);
    o->queue_bytes = calloc((size_t)o->n_samples, sizeof *o->queue_bytes);
    o->n_rpc = c->n_rpc;
    o->rpc_fct_us = calloc((size_t)c->n_rpc + 1, sizeof *o->rpc_fct_us);
    o->rpc_ideal_us = calloc((size_t)c->n_rpc + 1, sizeof *o->rpc_ideal_us);
    probe pr = {.c = c, .o = o, .bneck = tl_topo_host_chan(w.topo, hosts[UNO_PROBE_DST], 1)};
    for (int i = 0; i < n; i++) {
        o->is_inter[i] = i < c->n_inter;
        uint32_t h = i < c->n_inter ? inter_host(i) : intra_host(i - c->n_inter);
        int64_t start = i < c->n_inter + c->n_intra ? 0 : c->late_ps;
        w.flows.v[i] = (tl_flow){.id = (uint64_t)i, .src = hosts[h], .dst = hosts[UNO_PROBE_DST],
                                 .size_bytes = c->size_bytes, .start_ps = start};
        pr.nic[i] = tl_topo_host_chan(w.topo, hosts[h], 0);
    }
    /* The RPCs' sizes: a 64-bit LCG (Knuth's MMIX constants), seeded once,
     * so every CC and queue policy sees the same messages. */
    uint64_t lcg = 45;
    for (int i = 0; i < c->n_rpc; i++) {
        lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t span = c->rpc_max_bytes - c->rpc_min_bytes + 1;
        w.flows.v[n + i] = (tl_flow){.id = (uint64_t)(n + i), .src = hosts[UNO_PROBE_RPC_SRC],
                                     .dst = hosts[UNO_PROBE_DST],
                                     .size_bytes = c->rpc_min_bytes + (lcg >> 33) % span,
                                     .start_ps = c->rpc_start_ps + i * c->rpc_gap_ps};
    }
    w.flows.n = (size_t)(n + c->n_rpc);
    tl_pktsim_opts opts;
    tl_scenario_pktsim_opts(&w.sc, &opts);
    tl_pktsim *s = tl_pktsim_create_opts(w.topo, w.routes, &w.flows, &w.sc.params, &opts, 1, &err);
    int rc = !o->rate_gbps || !o->cwnd_bytes || !o->queue_bytes || !o->rpc_fct_us ||
             !o->rpc_ideal_us || !s ||
             tl_pktsim_set_control(s, c->sample_ps, sample, &pr, &err) ||
             tl_pktsim_run(s, c->end_ps, NULL, &err);
    if (rc) {
        fprintf(stderr, "uno_probe: %s\n", err.msg);
    } else {
        tl_pktsim_stats st;
        tl_pktsim_get_stats(s, &st);
        o->drops = st.n_drops;
        o->timeouts = st.n_timeouts;
        tl_port_stats ps;
        tl_pktsim_port_stats(s, pr.bneck, &ps);
        o->bneck_bytes = ps.bytes_tx;
        tl_fabric_ref f;
        tl_fabric_ref_of(w.topo, 4096, &f, &err);
        o->intra_rtt_ps = f.intra_rtt_ps;
        const tl_flow_result *r = tl_pktsim_results(s);
        for (int i = 0; i < c->n_rpc; i++) {
            o->rpc_fct_us[i] = r[n + i].fct_ps < 0 ? NAN : (double)r[n + i].fct_ps * 1e-6;
            o->rpc_ideal_us[i] = (double)r[n + i].ideal_ps * 1e-6;
        }
    }
    tl_pktsim_destroy(s);
    tl_world_fini(&w);
    if (rc)
        uno_probe_free(o);
    return rc;
}

int uno_probe_fair_from(const uno_probe_out *o, double line_gbps, double tol)
{
    int n_active = o->n_flows;
    double fair = line_gbps / n_active;
    int from = -1;
    for (int k = 0; k < o->n_samples; k++) {
        int is_fair = 1;
        for (int i = 0; i < o->n_flows; i++)
            is_fair &= fabs(o->rate_gbps[k * o->n_flows + i] - fair) <= tol * fair;
        if (!is_fair)
            from = -1;
        else if (from < 0)
            from = k;
    }
    return from;
}

void uno_probe_fig4(uno_probe_case *c)
{
    c->n_inter = 8, c->n_intra = 0, c->n_late = 0, c->size_bytes = 1000000000;
    c->end_ps = 41000000000;
    c->n_rpc = 1000, c->rpc_start_ps = 15000000000, c->rpc_gap_ps = 25000000;
    c->rpc_min_bytes = 4000, c->rpc_max_bytes = 16000;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int uno_probe_rpc_stats(const uno_probe_out *o, uno_rpc_stats *st)
{
    double sum = 0, ideal = 0, *v = malloc(((size_t)o->n_rpc + 1) * sizeof *v);
    if (!v)
        return -1;
    int done = 0;
    for (int i = 0; i < o->n_rpc; i++)
        if (!isnan(o->rpc_fct_us[i]))
            v[done++] = o->rpc_fct_us[i], sum += o->rpc_fct_us[i], ideal += o->rpc_ideal_us[i];
    qsort(v, (size_t)done, sizeof *v, cmp_double);
    /* nearest rank: the 99th percentile of 1,000 is the 990th */
    int r = (int)ceil(0.99 * done);
    *st = (uno_rpc_stats){NAN, NAN, NAN, NAN};
    if (done)
        *st = (uno_rpc_stats){sum / done, v[r - 1], v[done - 1], ideal / done};
    free(v);
    return done;
}
