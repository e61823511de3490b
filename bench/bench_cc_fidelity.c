/* How each congestion control holds one bottleneck (issue 44, "cc-fidelity"):
 * on a k = 8 fat tree with every link at 10 or 100 Gb/s, long flows into one
 * host (the bottleneck is its ToR's downlink) from senders 2 hops away (same
 * rack), 6 hops away (another pod), one of each, or a lone 6-hop sender.
 * Between 5 and 10 ms of simulated time it measures the bottleneck's
 * utilization, each sender's share of what it carried, the queue at the end,
 * PAUSE frames and drops.
 *   bench_cc_fidelity [CC ...]      (default: every CC pktsim implements)
 * Prints one row per case; never passes or fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/cc.h"
#include "tailor/pktsim.h"
#include "tailor/world.h"

#define T1_PS 5000000000LL  /* 5 ms: the measurement starts */
#define T2_PS 10000000000LL /* 10 ms: and ends */

typedef struct probe {
    uint32_t bneck, nic[2]; /* channels: the bottleneck, the senders' NICs */
    int n_src;
    uint64_t b0, n0[2], b1, n1[2];
    uint64_t q_end, pauses;
} probe;

static int sample(void *ctx, tl_pktsim *s, int64_t now)
{
    probe *pr = ctx;
    tl_port_stats ps;
    tl_pktsim_port_stats(s, pr->bneck, &ps);
    int is_start = now <= T1_PS;
    (is_start ? &pr->b0 : &pr->b1)[0] = ps.bytes_tx;
    if (!is_start)
        pr->q_end = ps.queue_bytes_now;
    for (int i = 0; i < pr->n_src; i++) {
        tl_pktsim_port_stats(s, pr->nic[i], &ps);
        (is_start ? pr->n0 : pr->n1)[i] = ps.bytes_tx;
    }
    return 0;
}

static int one_case(const char *cc, int gbps, const char *kind, const uint32_t *src_idx, int n_src)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"seed\": 1, \"topology\": {\"type\": \"fat_tree\", \"k\": 8, \"host_link_bps\": "
             "\"%dGbps\", \"fabric_link_bps\": \"%dGbps\", \"link_delay_ns\": 1000}, \"workload\": "
             "{\"flows\": 2, \"classes\": [{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 1000}, "
             "\"spatial\": {\"type\": \"permutation\"}, \"arrival\": {\"process\": "
             "\"simultaneous\"}}]}, \"transport\": {\"cc\": \"%s\"}}",
             gbps, gbps, cc);
    tl_world w;
    tl_err err;
    tl_err_clear(&err);
    if (tl_world_from_json(&w, json, 1, &err)) {
        fprintf(stderr, "bench_cc_fidelity: %s %s\n", err.path, err.msg);
        return 1;
    }
    const uint32_t *hosts = tl_topo_hosts(w.topo);
    uint32_t dst = hosts[0];
    /* long enough not to finish by T2 at line rate */
    uint64_t size = (uint64_t)gbps * 1000000000ull / 8 / 50;
    for (int i = 0; i < n_src; i++) {
        w.flows.v[i].src = hosts[src_idx[i]];
        w.flows.v[i].dst = dst;
        w.flows.v[i].size_bytes = size;
        w.flows.v[i].start_ps = 0;
    }
    w.flows.n = (size_t)n_src;
    probe pr = {.n_src = n_src};
    /* the bottleneck: the link into dst from its switch */
    for (uint32_t c = 0; c < 2 * tl_topo_n_links(w.topo); c++)
        if (tl_topo_chan_to(w.topo, c) == dst)
            pr.bneck = c;
    for (int i = 0; i < n_src; i++) {
        uint32_t s = hosts[src_idx[i]];
        for (uint32_t c = 0; c < 2 * tl_topo_n_links(w.topo); c++)
            if (tl_topo_chan_from(w.topo, c) == s)
                pr.nic[i] = c;
    }
    tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc, 1, &err);
    if (!s || tl_pktsim_set_control(s, T1_PS, sample, &pr, &err) ||
        tl_pktsim_run(s, T2_PS, NULL, &err)) {
        fprintf(stderr, "bench_cc_fidelity: %s\n", err.msg);
        return 1;
    }
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    for (uint32_t c = 0; c < 2 * tl_topo_n_links(w.topo); c++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(s, c, &ps);
        pr.pauses += ps.n_pauses;
    }
    double secs = (double)(T2_PS - T1_PS) * 1e-12;
    double util = (double)(pr.b1 - pr.b0) * 8 / secs / (gbps * 1e9);
    double tot = 0, share[2] = {0, 0};
    for (int i = 0; i < n_src; i++)
        tot += (double)(pr.n1[i] - pr.n0[i]);
    for (int i = 0; i < n_src; i++)
        share[i] = tot > 0 ? (double)(pr.n1[i] - pr.n0[i]) / tot : 0;
    printf("%-11s %4d %-7s %6.1f%%  %5.1f%% %5.1f%%  %8.1f KB  %8llu  %6llu  %6llu\n", cc, gbps, kind,
           100 * util, 100 * share[0], n_src > 1 ? 100 * share[1] : 0.0, (double)pr.q_end / 1e3,
           (unsigned long long)pr.pauses, (unsigned long long)st.n_drops,
           (unsigned long long)st.n_timeouts);
    tl_pktsim_destroy(s);
    tl_world_fini(&w);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *kind;
        uint32_t src[2];
        int n;
    } cases[] = {
        {"lone-6", {64, 0}, 1},   /* host 64: pod 2 of the k = 8 tree, 6 hops from host 0 */
        {"2+2", {1, 2}, 2},       /* hosts 1, 2: host 0's rack, 2 hops */
        {"6+6", {64, 100}, 2},    /* other pods */
        {"2+6", {1, 64}, 2},      /* one of each: share[0] is the 2-hop flow's */
    };
    printf("%-11s %4s %-7s %7s  %6s %6s  %11s  %8s  %6s  %6s\n", "cc", "Gb/s", "case", "util",
           "share0", "share1", "queue@10ms", "pauses", "drops", "RTOs");
    for (size_t k = 0; k < tl_cc_count(); k++) {
        const tl_cc_desc *d = tl_cc_get(k);
        if (!d->ops)
            continue;
        int is_chosen = argc < 2;
        for (int a = 1; a < argc; a++)
            is_chosen |= strcmp(argv[a], d->name) == 0;
        if (!is_chosen)
            continue;
        for (int g = 0; g < 2; g++)
            for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
                if (one_case(d->name, g ? 100 : 10, cases[c].kind, cases[c].src, cases[c].n))
                    return 1;
    }
    return 0;
}
