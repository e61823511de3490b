/* Uno's incast experiments (issue 45; uno.txt §3 Fig. 4, §5.2.1 Fig. 3 and 8).
 *   bench_uno incast|qa|alone|rpc [CC] [KNOBS_JSON] [END_MS] [SAMPLE_US] [SWITCH_JSON]
 * incast: 4 inter-DC and 4 intra-DC senders of 1 GiB to host 240; qa: one
 * intra-DC flow, joined at 5 ms by 15 more (a sudden 16-to-1 incast);
 * alone: one inter-DC flow; rpc (Fig. 4, the artifact's exp_paper.cm): 8
 * inter-DC senders of 1 GB to host 240 and, from 15 ms, a 4-16 KB message
 * from host 241 to 240 every 25 us (1,000 of them). KNOBS_JSON adds members
 * to "transport", SWITCH_JSON to "transport.switch". Prints each flow's rate
 * (Gb/s) per sample, the bottleneck queue (KB) and each flow's window (KB);
 * rpc adds a line "rpc" with the messages' FCT mean, p99 and max (us, at
 * the receiver) and their mean ideal FCT. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uno_probe.h"

int main(int argc, char **argv)
{
    const char *cc = argc > 2 ? argv[2] : "uno";
    const char *knobs = argc > 3 && argv[3][0] ? argv[3] : NULL;
    double end_ms = argc > 4 ? atof(argv[4]) : 20;
    double sample_us = argc > 5 ? atof(argv[5]) : 100;
    const char *mode = argc > 1 ? argv[1] : "incast";
    const char *switch_knobs = argc > 6 && argv[6][0] ? argv[6] : NULL;
    uno_probe_case c = {.cc = cc, .knobs = knobs, .switch_knobs = switch_knobs, .n_inter = 4, .n_intra = 4,
                        .size_bytes = 1073741824, .wan_delay_us = 886.5,
                        .end_ps = (int64_t)(end_ms * 1e9), .sample_ps = (int64_t)(sample_us * 1e6)};
    if (!strcmp(mode, "qa"))
        c.n_inter = 0, c.n_intra = 1, c.n_late = 15, c.late_ps = 5000000000;
    else if (!strcmp(mode, "alone"))
        c.n_inter = 1, c.n_intra = 0;
    else if (!strcmp(mode, "rpc"))
        uno_probe_fig4(&c), c.end_ps = (int64_t)(end_ms * 1e9);
    else if (strcmp(mode, "incast")) {
        fprintf(stderr, "bench_uno: incast, qa, alone or rpc\n");
        return 2;
    }
    uno_probe_out o;
    if (uno_probe_run(&c, &o))
        return 1;
    printf("t_ms");
    for (int i = 0; i < o.n_flows; i++)
        printf(" %s%d", o.is_inter[i] ? "inter" : "intra", i);
    printf(" queue_KB\n");
    for (int k = 0; k < o.n_samples; k++) {
        printf("%.2f", (k + 1) * sample_us / 1000);
        for (int i = 0; i < o.n_flows; i++)
            printf(" %.1f", o.rate_gbps[k * o.n_flows + i]);
        printf(" %.0f", o.queue_bytes[k] / 1000);
        for (int i = 0; i < o.n_flows; i++)
            printf(" %.0f", o.cwnd_bytes[k * o.n_flows + i] / 1000);
        printf("\n");
    }
    uno_rpc_stats rs;
    int done = o.n_rpc ? uno_probe_rpc_stats(&o, &rs) : 0;
    if (o.n_rpc)
        printf("rpc finished %d/%d mean_us %.2f p99_us %.2f max_us %.2f ideal_mean_us %.2f\n", done,
               o.n_rpc, rs.mean_us, rs.p99_us, rs.max_us, rs.ideal_mean_us);
    printf("drops %llu timeouts %llu fair_from_sample %d\n", (unsigned long long)o.drops,
           (unsigned long long)o.timeouts, uno_probe_fair_from(&o, 100, 0.15));
    uno_probe_free(&o);
    return 0;
}
