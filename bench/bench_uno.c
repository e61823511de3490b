/* Uno's incast experiments (issue 45; uno.txt §5.2.1, Fig. 3 and 8).
 *   bench_uno incast [CC] [KNOBS_JSON] [END_MS] [SAMPLE_US]
 * prints each flow's rate (Gb/s) per sample and the bottleneck queue. */
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
    uno_probe_case c = {.cc = cc, .knobs = knobs, .n_inter = 4, .n_intra = 4,
                        .size_bytes = 1073741824, .wan_delay_us = 886.5,
                        .end_ps = (int64_t)(end_ms * 1e9), .sample_ps = (int64_t)(sample_us * 1e6)};
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
    printf("drops %llu timeouts %llu fair_from_sample %d\n", (unsigned long long)o.drops,
           (unsigned long long)o.timeouts, uno_probe_fair_from(&o, 100, 0.15));
    uno_probe_free(&o);
    return 0;
}
