/* tailor inspect SCENARIO: what the scenario builds, before any engine runs:
 * node and link counts, oversubscription per tier, the workload, its
 * path-length histogram and the offered load per link. */
#include <stdio.h>

#include "cli.h"
#include "tailor/pktsim.h"
#include "tailor/units.h"

static void print_topology(const cli_world *w)
{
    tl_topo_summary s;
    tl_topo_summarize(w->topo, &s);
    printf("topology: %u nodes (%u hosts, %u switches), %u links", s.n_nodes, s.n_hosts,
           s.n_switches, s.n_links);
    if (s.n_failed)
        printf(" (%u failed)", s.n_failed);
    printf(", %u racks in %u pods", s.n_racks, s.n_pods);
    if (s.n_dcs > 1)
        printf(", %u data centers", s.n_dcs);
    printf("\noversubscription per tier (capacity down : up):\n");
    for (uint32_t t = 1; t < s.n_tiers; t++) {
        if (!s.tier_switches[t])
            continue;
        printf("  tier %u: %5u switches  ", t, s.tier_switches[t]);
        if (s.tier_up_bps[t] > 0)
            printf("%.2f:1  (%.0f Gbps down, %.0f Gbps up)\n",
                   s.tier_down_bps[t] / s.tier_up_bps[t], s.tier_down_bps[t] / 1e9,
                   s.tier_up_bps[t] / 1e9);
        else
            printf("top tier  (%.0f Gbps down)\n", s.tier_down_bps[t] / 1e9);
    }
}

static int print_workload(const cli_world *w, int is_from_file, int n_threads, tl_err *err)
{
    tl_workload_summary s;
    double means[256] = {0};
    const double *cm = NULL;
    if (!is_from_file && w->sc.workload.n_classes <= 256) {
        for (uint32_t c = 0; c < w->sc.workload.n_classes; c++)
            means[c] = tl_sizedist_mean(&w->sc.workload.classes[c].sizes);
        cm = means;
    }
    int rc = tl_workload_summarize(&w->flows, w->routes, n_threads, cm, &s, err);
    if (rc)
        return rc;
    printf("workload: %zu flows in %u class%s, %.6g s of arrivals, mean size %.0f B\n", s.n_flows,
           w->flows.n_classes, w->flows.n_classes == 1 ? "" : "es", s.span_s, s.mean_size_bytes);
    for (uint32_t c = 0; c < w->flows.n_classes; c++) {
        size_t n = 0;
        double bytes = 0;
        for (size_t i = 0; i < w->flows.n; i++)
            if (w->flows.v[i].class_idx == c) {
                n++;
                bytes += (double)w->flows.v[i].size_bytes;
            }
        printf("  class %-12s %10zu flows, mean size %.0f B, %.4g flows/s\n",
               w->flows.class_names[c], n, n ? bytes / (double)n : 0,
               s.span_s > 0 ? (double)n / s.span_s : 0);
    }
    printf("path length (hops: flows):\n");
    for (int h = 0; h <= TL_MAX_HOPS; h++)
        if (s.hops_hist[h])
            printf("  %2d: %10llu  (%.1f%%)\n", h, (unsigned long long)s.hops_hist[h],
                   100.0 * (double)s.hops_hist[h] / (double)(s.n_flows ? s.n_flows : 1));
    uint32_t c = s.max_load_chan;
    printf("offered load per directed link (fraction of capacity):\n"
           "  realized (flow bytes / arrival span):   max %.3f, top-10%% mean %.3f, mean %.3f\n",
           s.load_max, s.load_top10_mean, s.load_mean);
    if (cm)
        printf("  expected (flows x class mean size):     max %.3f, top-10%% mean %.3f, mean %.3f\n",
               s.expected_max, s.expected_top10_mean, s.expected_mean);
    if (s.load_max > 0)
        printf("  most loaded: link %u, node %u -> node %u\n", tl_chan_link(c),
               tl_topo_chan_from(w->topo, c), tl_topo_chan_to(w->topo, c));
    return 0;
}

/* The fabric-wide references pktsim sizes by (tl_fabric_ref), so that a
 * knob left at "from the fabric" (0) shows what it becomes. */
static int print_fabric(const cli_world *w, tl_err *err)
{
    tl_fabric_ref f;
    int rc = tl_fabric_ref_of(w->topo, (uint32_t)tl_knob(&w->sc.params, TL_K_NIC_MTU_BYTES), &f,
                              err);
    if (rc)
        return rc;
    uint64_t buf = tl_pktsim_buffer_bytes(&w->sc.params, f.nic_bps);
    printf("fabric: largest base RTT %.2f us and BDP %llu B (HPCC's T, dctcp-rate's window); "
           "switch buffer %.3g MiB%s\n",
           (double)f.rtt_ps * 1e-6, (unsigned long long)f.bdp_bytes, (double)buf / 1048576,
           tl_knob(&w->sc.params, TL_K_SW_BUFFER_BYTES) == 0 ? " (from the host links)" : "");
    return 0;
}

/* Shared with `tailor demo`. is_from_file: the flows came from --flows, not
 * from the scenario's classes (whose mean sizes then say nothing). */
int inspect_print(const cli_world *w, int is_from_file, int n_threads, tl_err *err)
{
    printf("scenario: %s (%s), seed %llu, cc %s\n", w->sc.name, w->sc.source,
           (unsigned long long)w->sc.seed, w->sc.cc);
    print_topology(w);
    int rc = print_fabric(w, err);
    return rc ? rc : print_workload(w, is_from_file, n_threads, err);
}

int cmd_inspect(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, "inspect", "flows,seed,cc,set,preset,preset-file,threads,quiet,flow-count", &o);
    if (rc)
        return rc;
    tl_err err;
    tl_err_clear(&err);
    tl_progress ps, *prog = cli_progress(&o, &ps);
    cli_world w;
    rc = cli_world_build(&o, &w, prog, &err);
    cli_progress_done(prog);
    if (!rc)
        rc = inspect_print(&w, o.flows != NULL, o.n_threads, &err);
    if (rc) {
        cli_print_err("inspect", &err);
        cli_world_fini(&w);
        return cli_exit_code(&err);
    }
    cli_world_fini(&w);
    return 0;
}
