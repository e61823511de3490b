/* The monitor's knobs (paraleon.txt Table III where it gives them; the rest
 * are the choices docs/paraleon.md explains). Neutral: they change what is
 * observed, not the network. */
#include "tailor/tune.h"

#define MON(name) "monitor." name
const tl_param_def tl_monitor_knobs[TL_MON_N_KNOBS] = {
    [TL_MON_INTERVAL] = {MON("interval_ps"), TL_UNIT_PS, 1e9, 1e6, 1e13, 1, TL_DIR_NEUTRAL,
                         "Monitor interval lambda_MI: sketches are read and reset, states and "
                         "metrics computed once per interval (paraleon.txt Table III: 1 ms)."},
    [TL_MON_TAU] = {MON("tau_bytes"), TL_UNIT_BYTES, 1e6, 1, 1e15, 1, TL_DIR_NEUTRAL,
                    "Elephant threshold tau: a flow that has sent this much is an elephant "
                    "(Table III: 1 MB, decimal)."},
    [TL_MON_DELTA] = {MON("delta"), TL_UNIT_NONE, 3, 1, 250, 1, TL_DIR_NEUTRAL,
                      "Window delta: a flow below tau active in each of the last delta intervals "
                      "is a potential elephant (Table III: 3)."},
    [TL_MON_THETA] = {MON("theta"), TL_UNIT_NONE, 0.01, 0, 100, 0, TL_DIR_NEUTRAL,
                      "KL trigger: tuning starts when KL(now || reference) exceeds theta "
                      "(Table III: 0.01, natural log)."},
    [TL_MON_W_TP] = {MON("w_tp"), TL_UNIT_NONE, 0.2, 0, 1, 0, TL_DIR_NEUTRAL,
                     "Weight of O_TP (uplink utilization) in the utility U (Table III: 0.2)."},
    [TL_MON_W_RTT] = {MON("w_rtt"), TL_UNIT_NONE, 0.5, 0, 1, 0, TL_DIR_NEUTRAL,
                      "Weight of O_RTT (base delay / RTT) in U (Table III: 0.5)."},
    [TL_MON_W_PFC] = {MON("w_pfc"), TL_UNIT_NONE, 0.3, 0, 1, 0, TL_DIR_NEUTRAL,
                      "Weight of O_PFC (1 - pause share) in U (Table III: 0.3)."},
    [TL_MON_BUCKETS] = {MON("heavy_buckets"), TL_UNIT_NONE, 2400, 1, 1e8, 1, TL_DIR_NEUTRAL,
                        "Buckets of each ToR's Elastic Sketch heavy part (the Elastic Sketch "
                        "code's 2400)."},
    [TL_MON_SLOTS] = {MON("heavy_slots"), TL_UNIT_NONE, 7, 1, 16, 1, TL_DIR_NEUTRAL,
                      "Flow slots per heavy bucket sharing one vote- (1 = the paper's bucket; "
                      "the Elastic Sketch code's 7)."},
    [TL_MON_LIGHT_BYTES] = {MON("light_bytes"), TL_UNIT_BYTES, 450e3, 1, 1e10, 1, TL_DIR_NEUTRAL,
                            "SRAM of each ToR's light part, a count-min row (the Elastic Sketch "
                            "code's 450 KB)."},
    [TL_MON_LIGHT_BITS] = {MON("light_bits"), TL_UNIT_NONE, 16, 8, 16, 1, TL_DIR_NEUTRAL,
                           "Bits per light counter, 8 or 16; counters count MTUs and saturate."},
    [TL_MON_EVICT] = {MON("evict_ratio"), TL_UNIT_NONE, 8, 1, 1e6, 0, TL_DIR_NEUTRAL,
                      "Ostracism: a heavy entry is evicted to the light part when its bucket's "
                      "vote-/vote+ reaches this (Elastic Sketch: 8)."},
    [TL_MON_IDLE] = {MON("idle_intervals"), TL_UNIT_NONE, 1, 1, 1000, 1, TL_DIR_NEUTRAL,
                     "A flow not seen for this many intervals is forgotten (Fig. 4 drops f3 at "
                     "once)."},
    [TL_MON_WARMUP] = {MON("warmup"), TL_UNIT_NONE, 10, 0, 1e6, 1, TL_DIR_NEUTRAL,
                       "Intervals before the KL reference is set and accuracy is averaged."},
    [TL_MON_MIN_FLOWS] = {MON("min_flows"), TL_UNIT_NONE, 20, 0, 1e9, 1, TL_DIR_NEUTRAL,
                          "The trigger decides only on intervals with at least this many active "
                          "flows."},
    [TL_MON_KL_SUCCESSIVE] = {MON("kl_successive"), TL_UNIT_BOOL, 0, 0, 1, 1, TL_DIR_NEUTRAL,
                              "1: compare each interval with the one before (the paper's "
                              "R_t vs R_t-1) instead of with the reference tuning settled on."},
    [TL_MON_LIGHT_MICE] = {MON("light_mice"), TL_UNIT_BOOL, 1, 0, 1, 1, TL_DIR_NEUTRAL,
                           "1: flows seen only in the light part count as mice (estimated by "
                           "linear counting of its non-zero counters)."},
    [TL_MON_RTT_ONEWAY] = {MON("rtt_base_oneway"), TL_UNIT_BOOL, 0, 0, 1, 1, TL_DIR_NEUTRAL,
                           "1: O_RTT's base delay counts the forward hops only (n x d, literally); "
                           "0: the round trip's hops, so an idle path scores about 1."},
    [TL_MON_NETFLOW_RATE] = {MON("netflow_rate"), TL_UNIT_NONE, 100, 1, 1e9, 1, TL_DIR_NEUTRAL,
                             "NetFlow baseline: one data packet in this many is sampled "
                             "(paraleon.txt §IV-B3: 1:100)."},
    [TL_MON_NETFLOW_EXPORT] = {MON("netflow_export_ps"), TL_UNIT_PS, 1e12, 1e6, 1e15, 1,
                               TL_DIR_NEUTRAL,
                               "NetFlow baseline: flow records are exported this often (§IV-B3: "
                               "1 s); between exports the last one holds."},
    [TL_MON_BASELINES] = {MON("baselines"), TL_UNIT_BOOL, 1, 0, 1, 1, TL_DIR_NEUTRAL,
                          "1: run the naive Elastic Sketch and NetFlow baselines beside "
                          "PARALEON's monitor (Fig. 10); 0: PARALEON's alone."},
};
