/* How each congestion control holds one bottleneck (issue 44, "cc-fidelity"):
 * on a k = 8 fat tree with every link at 10 or 100 Gb/s, long flows into one
 * host (the bottleneck is its ToR's downlink) from senders 2 hops away (same
 * rack), 6 hops away (another pod), one of each, a lone 6-hop sender, or 16
 * senders in other pods (incast). Between 5 and 10 ms of simulated time it
 * measures the bottleneck's utilization, each sender's share (the first two),
 * the queue's mean and maximum, and over the run the PAUSE frames, drops and
 * timeouts (bench/cc_probe.c; tests/test_cc_fidelity.c asserts them).
 * Then two bottlenecks in a row ("park"): flow A from host 64 to host 0,
 * B from host 1 to host 0 (sharing host 0's link with A) and C from host
 * 65 to host 100 in another pod, on a path that shares only A's ToR uplink;
 * max-min fairness gives each half the link.
 *   bench_cc_fidelity [CC ...]      (default: every CC pktsim implements)
 *   CC_KNOBS='"dcqcn": {"ai_rate_bps": 2e7}' bench_cc_fidelity dcqcn
 *   CC_T1_MS=20 CC_T2_MS=30 bench_cc_fidelity timely   (another window)
 * Prints one row per case; never passes or fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_probe.h"
#include "tailor/cc.h"

/* A case with the environment's window and knobs. */
static cc_probe_case base_case(const char *cc, int gbps, int n_src)
{
    const char *t1 = getenv("CC_T1_MS"), *t2 = getenv("CC_T2_MS");
    return (cc_probe_case){.cc = cc, .gbps = gbps, .n_src = n_src, .knobs = getenv("CC_KNOBS"),
                           .t1_ps = (int64_t)((t1 ? atof(t1) : 5) * 1e9),
                           .t2_ps = (int64_t)((t2 ? atof(t2) : 10) * 1e9)};
}

static int one_case(const char *cc, int gbps, const char *kind, const uint32_t *src, int n_src)
{
    cc_probe_case c = base_case(cc, gbps, n_src);
    memcpy(c.src, src, (size_t)n_src * sizeof *src);
    cc_probe_out o;
    if (cc_probe_run(&c, &o))
        return 1;
    printf("%-11s %4d %-7s %6.1f%%  %5.1f%% %5.1f%%  %8.1f %8.1f KB  %8llu  %6llu  %6llu  %8.1f KB\n", cc,
           gbps, kind, 100 * o.util, 100 * o.share[0], n_src > 1 ? 100 * o.share[1] : 0.0,
           o.q_mean / 1e3, o.q_max / 1e3, (unsigned long long)o.pauses,
           (unsigned long long)o.drops, (unsigned long long)o.timeouts, (double)o.backlog / 1e3);
    return 0;
}

/* A = the link into host 0 less B; B and C = their NICs. */
static int park(const char *cc, int gbps)
{
    cc_probe_case c = base_case(cc, gbps, 3);
    static const uint32_t src[] = {64, 1, 65}, dst[] = {0, 0, 100};
    memcpy(c.src, src, sizeof src);
    memcpy(c.dst, dst, sizeof dst);
    c.is_park = 1;
    cc_probe_out o;
    if (cc_probe_run(&c, &o))
        return 1;
    printf("%-11s %4d park    A %5.1f%%  B %5.1f%%  C %5.1f%% of the line (max-min: 50 each)\n",
           cc, gbps, 100 * (o.down[0] - o.nic[1]), 100 * o.nic[1], 100 * o.nic[2]);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *kind;
        uint32_t src[CC_PROBE_MAX_SRC];
        int n;
    } cases[] = {
        {"lone-6", {64}, 1},    /* host 64: pod 2 of the k = 8 tree, 6 hops from host 0 */
        {"2+2", {1, 2}, 2},     /* hosts 1, 2: host 0's rack, 2 hops */
        {"6+6", {64, 100}, 2},  /* other pods */
        {"2+6", {1, 64}, 2},    /* one of each: share[0] is the 2-hop flow's */
        {"16-1", {16, 23, 30, 37, 44, 51, 58, 65, 72, 79, 86, 93, 100, 107, 114, 121}, 16},
    };
    printf("%-11s %4s %-7s %7s  %6s %6s  %8s %8s    %8s  %6s  %6s  %8s\n", "cc", "Gb/s", "case", "util",
           "share0", "share1", "q mean", "q max", "pauses", "drops", "RTOs", "backlog");
    for (size_t k = 0; k < tl_cc_count(); k++) {
        const tl_cc_desc *d = tl_cc_get(k);
        if (!d->ops)
            continue;
        int is_chosen = argc < 2;
        for (int a = 1; a < argc; a++)
            is_chosen |= strcmp(argv[a], d->name) == 0;
        if (!is_chosen)
            continue;
        for (int g = 0; g < 2; g++) {
            for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
                if (one_case(d->name, g ? 100 : 10, cases[c].kind, cases[c].src, cases[c].n))
                    return 1;
            if (park(d->name, g ? 100 : 10))
                return 1;
        }
    }
    return 0;
}
