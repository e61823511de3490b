/* cc_probe.h: one bottleneck under a congestion control. */
#include "cc_probe.h"

#include <stdio.h>
#include <string.h>

#include "tailor/pktsim.h"
#include "tailor/world.h"

#define SAMPLE_PS 10000000LL /* 10 us between queue samples */

typedef struct probe {
    const cc_probe_case *c;
    uint32_t bneck, nic[CC_PROBE_MAX_SRC], down[CC_PROBE_MAX_SRC];
    uint64_t b0, b1, n0[CC_PROBE_MAX_SRC], n1[CC_PROBE_MAX_SRC];
    uint64_t d0[CC_PROBE_MAX_SRC], d1[CC_PROBE_MAX_SRC];
    double q_sum, q_max;
    uint64_t n_q;
} probe;

static int sample(void *ctx, tl_pktsim *s, int64_t now)
{
    probe *pr = ctx;
    if (now < pr->c->t1_ps || now > pr->c->t2_ps)
        return 0;
    tl_port_stats ps;
    tl_pktsim_port_stats(s, pr->bneck, &ps);
    int is_start = now < pr->c->t1_ps + SAMPLE_PS;
    if (is_start || now + SAMPLE_PS > pr->c->t2_ps)
        (is_start ? &pr->b0 : &pr->b1)[0] = ps.bytes_tx;
    pr->q_sum += (double)ps.queue_bytes_now;
    pr->q_max = pr->q_max > (double)ps.queue_bytes_now ? pr->q_max : (double)ps.queue_bytes_now;
    pr->n_q++;
    for (int i = 0; i < pr->c->n_src && (is_start || now + SAMPLE_PS > pr->c->t2_ps); i++) {
        tl_pktsim_port_stats(s, pr->nic[i], &ps);
        (is_start ? pr->n0 : pr->n1)[i] = ps.bytes_tx;
        tl_pktsim_port_stats(s, pr->down[i], &ps);
        (is_start ? pr->d0 : pr->d1)[i] = ps.bytes_tx;
    }
    return 0;
}

/* Flow 2 shares flow 0's second channel and nothing else of flows 0, 1. */
static int is_park_path(const tl_pktsim *s)
{
    int h[3];
    const uint32_t *p[3];
    for (int i = 0; i < 3; i++)
        p[i] = tl_pktsim_flow_path(s, (size_t)i, &h[i]);
    if (h[0] < 2 || h[2] < 2 || p[2][1] != p[0][1])
        return 0;
    for (int j = 0; j < h[2]; j++)
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < h[i]; k++)
                if (p[2][j] == p[i][k] && !(i == 0 && k == 1))
                    return 0;
    return 1;
}

int cc_probe_run(const cc_probe_case *c, cc_probe_out *out)
{
    memset(out, 0, sizeof *out);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"seed\": 1, \"topology\": {\"type\": \"fat_tree\", \"k\": 8, \"host_link_bps\": "
             "\"%dGbps\", \"fabric_link_bps\": \"%dGbps\", \"link_delay_ns\": 1000}, \"workload\": "
             "{\"flows\": %d, \"classes\": [{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": "
             "1000}, \"spatial\": {\"type\": \"permutation\"}, \"arrival\": {\"process\": "
             "\"simultaneous\"}}]}, \"transport\": {\"cc\": \"%s\"%s%s}}",
             c->gbps, c->gbps, c->n_src, c->cc, c->knobs ? ", " : "", c->knobs ? c->knobs : "");
    tl_world w;
    tl_err err;
    tl_err_clear(&err);
    if (tl_world_from_json(&w, json, 1, &err)) {
        fprintf(stderr, "cc_probe: %s %s\n", err.path, err.msg);
        return 1;
    }
    const uint32_t *hosts = tl_topo_hosts(w.topo);
    /* long enough not to finish by t2 at line rate */
    uint64_t size = (uint64_t)((double)c->gbps * 1e9 / 8 * ((double)c->t2_ps * 1e-12 + 1e-3));
    probe pr = {.c = c, .bneck = tl_topo_host_chan(w.topo, hosts[c->dst[0]], 1)};
    tl_pktsim *s = NULL;
    /* ECMP hashes the flow id: a park takes the first id of flow 2 whose
     * path makes two bottlenecks in a row */
    for (uint64_t id2 = 2;; id2++) {
        if (c->is_park && id2 > 1000) {
            fprintf(stderr, "cc_probe: no flow id makes two bottlenecks in a row\n");
            tl_world_fini(&w);
            return 1;
        }
        for (int i = 0; i < c->n_src; i++) {
            w.flows.v[i] = (tl_flow){.id = i == 2 ? id2 : (uint64_t)i, .src = hosts[c->src[i]],
                                     .dst = hosts[c->dst[i]], .size_bytes = size, .start_ps = 0};
            pr.nic[i] = tl_topo_host_chan(w.topo, hosts[c->src[i]], 0);
            pr.down[i] = tl_topo_host_chan(w.topo, hosts[c->dst[i]], 1);
        }
        w.flows.n = (size_t)c->n_src;
        tl_pktsim_destroy(s);
        s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc, 1, &err);
        if (!s || !c->is_park || is_park_path(s))
            break;
    }
    int rc = !s || tl_pktsim_set_control(s, SAMPLE_PS, sample, &pr, &err) ||
             tl_pktsim_run(s, c->t2_ps, NULL, &err);
    if (rc) {
        fprintf(stderr, "cc_probe: %s\n", err.msg);
    } else {
        tl_pktsim_stats st;
        tl_pktsim_get_stats(s, &st);
        for (uint32_t ch = 0; ch < 2 * tl_topo_n_links(w.topo); ch++) {
            tl_port_stats ps;
            tl_pktsim_port_stats(s, ch, &ps);
            out->pauses += ps.n_pauses;
            out->backlog += ps.queue_bytes_now;
        }
        out->drops = st.n_drops;
        out->timeouts = st.n_timeouts;
        double secs = (double)(c->t2_ps - c->t1_ps) * 1e-12;
        double cap = (double)c->gbps * 1e9 * secs / 8;
        out->util = (double)(pr.b1 - pr.b0) / cap;
        for (int i = 0; i < c->n_src; i++) {
            out->nic[i] = (double)(pr.n1[i] - pr.n0[i]) / cap;
            out->down[i] = (double)(pr.d1[i] - pr.d0[i]) / cap;
        }
        double tot = 0;
        for (int i = 0; i < c->n_src; i++)
            tot += (double)(pr.n1[i] - pr.n0[i]);
        for (int i = 0; i < c->n_src; i++)
            out->share[i] = tot > 0 ? (double)(pr.n1[i] - pr.n0[i]) / tot : 0;
        out->q_mean = pr.n_q ? pr.q_sum / (double)pr.n_q : 0;
        out->q_max = pr.q_max;
    }
    tl_pktsim_destroy(s);
    tl_world_fini(&w);
    return rc;
}
