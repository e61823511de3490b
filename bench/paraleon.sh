#!/bin/sh
# PARALEON's runtime monitor (issue 46, docs/paraleon.md), on the paper's
# topology (examples/paraleon/hadoop.json: two-tier 4:1 Clos, 8 ToR, 4 spine,
# 128 servers, 100 Gb/s, 5 us links, 12 MB buffers, DCQCN, FB_Hadoop):
#   1. flow-size-distribution accuracy of PARALEON, the naive Elastic Sketch
#      and NetFlow at 30/50/70% load (Fig. 10a), under both load definitions;
#   2. the effect of the monitor interval lambda_MI (Fig. 11a);
#   3. the cost of monitoring: pktsim link-hops/s with and without it.
# Accuracy is the mean over the intervals inside the arrival window, after
# the first 5 ms, of 1 - |p_est - p_true| (p: elephant share of the active
# flows). NetFlow exports every 5 ms, not every 1 s: a run simulates tens of
# ms, so a 1 s export would give no figure at all.
#   bench/paraleon.sh [BUILD_DIR]   (about 5 minutes; run from the repo root)
set -eu
B=${1:-build}
W="$B/tailor"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export TAILOR_DATA=${TAILOR_DATA:-data}
EX=examples/paraleon/hadoop.json

# scenario LOADKEY DURATION_MS: the example with its load and arrival window
scenario() {
    sed "s/\"max_link_load\": 0.3/$1/; s/\"flows\": 40000,/\"duration_ns\": \"$2ms\",/" "$EX" >"$T/s.json"
}

# acc DIR DURATION_MS: averaged over the intervals in (5 ms, D]: accuracy of
# PARALEON, naive, NetFlow; p_true; intervals; relative error |p - p_true| /
# p_true of PARALEON, naive, NetFlow (in %)
acc() {
    awk -F, -v d="$2" 'function ab(x) { return x < 0 ? -x : x }
        NR > 1 && $1 > 5 && $1 <= d && $5 > 0 {
        n++; a += $6; b += $7; t += $5; ra += ab($2 - $5) / $5; rb += ab($3 - $5) / $5
        if ($8 != "") { c += $8; rc += ab($4 - $5) / $5; m++ } }
        END { printf "%.4f %.4f %s %.4f %d %.1f %.1f %s\n", a / n, b / n,
              m ? sprintf("%.4f", c / m) : "-", t / n, n, 100 * ra / n, 100 * rb / n,
              m ? sprintf("%.1f", 100 * rc / m) : "-" }' "$1/monitor_fsd.csv"
}

echo "== 1. Flow-size-distribution accuracy (Fig. 10a), lambda_MI = 1 ms"
echo "accuracy = 1 - |p - p_true|; rel. error = |p - p_true| / p_true"
printf "%-28s %7s | %8s %8s %8s | %8s %8s %8s | %7s %4s\n" load flows/ms PARALEON naive NetFlow \
    PARALEON naive NetFlow p_true MIs
printf "%-28s %7s | %26s | %26s |\n" "" "" "accuracy" "rel. error of p (%)"
for spec in "max_link_load 0.3 30" "max_link_load 0.5 30" "max_link_load 0.7 30" \
            "per-host 0.3 10" "per-host 0.5 10" "per-host 0.7 10"; do
    set -- $spec
    if [ "$1" = max_link_load ]; then
        key="\"max_link_load\": $2"
        label="max_link_load $2 (stable)"
    else # the paper's: each host offers L x 100 Gb/s (128 hosts)
        key="\"offered_bps\": \"$(awk -v l="$2" 'BEGIN { printf "%.0fGbps", l * 12800 }')\""
        label="per-host $2 (paper's)"
    fi
    scenario "$key" "$3"
    "$W" run "$T/s.json" -o "$T/o" --monitor --quiet --set monitor.netflow_export_ps=5ms >"$T/rep"
    n=$(awk 'END { print NR - 1 }' "$T/o/fct.csv")
    rate=$(awk -v n="$n" -v d="$3" 'BEGIN { print n / d }')
    set -- $(acc "$T/o" "$3")
    printf "%-28s %7.0f | %8s %8s %8s | %8s %8s %8s | %7s %4s\n" "$label" "$rate" "$1" "$2" "$3" \
        "$6" "$7" "$8" "$4" "$5"
done

echo
echo "== 2. Effect of the monitor interval (Fig. 11a), max_link_load 0.3, 60 ms of arrivals"
printf "%-10s %9s %9s %12s %12s %8s %6s %9s\n" lambda_MI "acc PAR" "acc naive" "rel.err PAR" \
    "rel.err nv" p_true MIs triggers
scenario '"max_link_load": 0.3' 60
for lam in 0.5 1 2 5 10; do
    "$W" run "$T/s.json" -o "$T/o" --monitor --quiet --set "monitor.interval_ps=${lam}ms" >"$T/rep"
    set -- $(acc "$T/o" 60)
    trig=$(awk 'END { print NR - 1 }' "$T/o/monitor_triggers.csv")
    printf "%-10s %9s %9s %11s%% %11s%% %8s %6s %9s\n" "${lam} ms" "$1" "$2" "$6" "$7" "$4" "$5" "$trig"
done

echo
echo "== 3. Cost of monitoring: link-hops/s (CPU), max_link_load 0.3, 20000 flows, 3 rounds"
hops() { # args: extra options; prints link-hops/s of the run
    "$W" run "$EX" -o "$T/o" --quiet --flow-count 20000 "$@" |
        sed -n 's/.* link-hops, \([0-9.e+]*\) link-hops\/s.*/\1/p'
}
: >"$T/cost"
for r in 1 2 3; do
    echo "off $(hops)" >>"$T/cost"
    echo "paraleon $(hops --monitor --set monitor.baselines=0)" >>"$T/cost"
    echo "all $(hops --monitor)" >>"$T/cost"
done
awk '{ s[$1] += $2; n[$1]++ }
     END { off = s["off"] / n["off"]
           printf "%-34s %12.3g\n", "no monitor", off
           printf "%-34s %12.3g  %.1f%% slower (goal: under 15%%)\n", "PARALEON monitor",
                  s["paraleon"] / n["paraleon"], 100 * (1 - s["paraleon"] / n["paraleon"] / off)
           printf "%-34s %12.3g  %.1f%% slower\n", "PARALEON + naive sketch + NetFlow",
                  s["all"] / n["all"], 100 * (1 - s["all"] / n["all"] / off) }' "$T/cost"
