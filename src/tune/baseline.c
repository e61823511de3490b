/* The automatic-tuning baselines of paraleon.txt §IV-B, as rules a run-time
 * control applies every monitor interval (docs/paraleon.md "Baselines"):
 *   - ACC-like: ECN thresholds from queueing and utilization signals. ACC
 *     (Yan et al., SIGCOMM'21) learns the rule per switch with deep RL;
 *     this is a fixed rule over the network's signals in its place:
 *     queueing beyond the base delay lowers Kmin/Kmax and raises Pmax
 *     (mark earlier); busy links with short queues, where marking costs
 *     throughput, do the opposite; otherwise the thresholds hold.
 *   - DCQCN+-like: rate-increase steps and timer scaled by the incast
 *     degree (Gao et al., IWQoS'18), which DCQCN+ infers at each reaction
 *     point from the CNP period; here the network's knobs follow the mean
 *     number of CNP-receiving flows per marking port in the interval. */
#include <math.h>
#include <string.h>

#include "tailor/tune.h"

static const char *const acc_knobs[] = {"switch.kmin_bytes_per_gbps",
                                        "switch.kmax_bytes_per_gbps", "switch.pmax"};
static const char *const plus_knobs[] = {"dcqcn.ai_rate_bps", "dcqcn.hai_rate_bps",
                                         "dcqcn.rpg_time_reset_ps"};

/* Rule constants (ours; ACC and DCQCN+ publish no such table). */
#define ACC_RTT_HIGH 0.5  /* O_RTT below this: the RTT is over twice the base: mark earlier */
#define ACC_RTT_LOW 0.8   /* O_RTT above this on busy links: mark later */
#define ACC_UTIL_HIGH 0.9 /* O_TP above this counts as busy */
#define ACC_STEP 1.25     /* thresholds move by this factor */
#define ACC_PMAX_STEP 0.05

int tl_tune_scheme_find(const char *name)
{
    if (!strcmp(name, "paraleon") || !strcmp(name, "naive"))
        return TL_TUNE_PARALEON;
    if (!strcmp(name, "acc"))
        return TL_TUNE_ACC;
    if (!strcmp(name, "dcqcn-plus"))
        return TL_TUNE_DCQCN_PLUS;
    return -1;
}

const char *const *tl_baseline_knobs(int scheme, size_t *n)
{
    *n = 3;
    return scheme == TL_TUNE_ACC ? acc_knobs : plus_knobs;
}

void tl_baseline_next(int scheme, const tl_baseline_signals *sig, const double *start,
                      const double *cur, double *next)
{
    memcpy(next, cur, 3 * sizeof *next);
    if (scheme == TL_TUNE_ACC) {
        if (isnan(sig->o_rtt))
            return; /* nothing measured: hold */
        if (sig->o_rtt < ACC_RTT_HIGH) {
            next[0] = cur[0] / ACC_STEP;
            next[1] = cur[1] / ACC_STEP;
            next[2] = fmin(1, cur[2] + ACC_PMAX_STEP);
        } else if (sig->o_rtt > ACC_RTT_LOW && sig->o_tp > ACC_UTIL_HIGH) {
            next[0] = cur[0] * ACC_STEP;
            next[1] = cur[1] * ACC_STEP;
            next[2] = fmax(0.01, cur[2] - ACC_PMAX_STEP);
        }
        return;
    }
    /* DCQCN+-like: steps / N, timer x N from the starting values */
    double n = sig->incast > 1 ? sig->incast : 1;
    next[0] = start[0] / n;
    next[1] = start[1] / n;
    next[2] = start[2] * n;
}
