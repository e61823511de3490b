#!/usr/bin/env bash
# Parsimon accuracy suite (issue "parsimon", docs/accuracy.md): scenarios on
# the 32-rack fabric drawn from parsimon.txt's Table 3 sample space
# (oversubscription 1:1/2:1/4:1 x matrices A/B/C x WebServer/Hadoop/
# CacheFollower x sigma 1/2 x max load 26-83%), each simulated with pktsim
# (the truth) and estimated with Parsimon, then compared.
#
#   bench/accuracy.sh [OUTDIR] [FLOWS]      defaults: out/accuracy, 200000
#
# The scenarios are the fixed list below (not drawn at run time), so a rerun
# repeats them exactly; each has its own seed. Writes OUTDIR/NAME/{pktsim,
# parsimon}/ (the runs), OUTDIR/results.csv (one row per scenario: p99
# slowdown of all flows, truth and estimate, error, wall times) and prints
# the error distribution. Only what is missing is recomputed, so a cut-short
# run can be resumed. Needs ./build/tailor (make build).
set -u
out=${1:-out/accuracy}
flows=${2:-200000}
bin=${TAILOR:-./build/tailor}
mkdir -p "$out"

# name       over matrix sizes          sigma load  cc
scenarios="
s01 1 A webserver     1 0.31 dctcp-rate
s02 1 B hadoop        2 0.45 dctcp-rate
s03 1 C cachefollower 1 0.58 dctcp-rate
s04 1 A hadoop        2 0.72 dctcp-rate
s05 1 B webserver     2 0.80 dctcp-rate
s06 1 C webserver     2 0.39 dctcp-rate
s07 1 B cachefollower 2 0.63 dctcp-rate
s08 1 C hadoop        1 0.27 dctcp-rate
s09 2 A cachefollower 2 0.35 dctcp-rate
s10 2 B webserver     2 0.50 dctcp-rate
s11 2 C hadoop        2 0.66 dctcp-rate
s12 2 A webserver     1 0.76 dctcp-rate
s13 2 B hadoop        1 0.29 dctcp-rate
s14 2 C cachefollower 2 0.47 dctcp-rate
s15 2 A hadoop        1 0.55 dctcp-rate
s16 2 B cachefollower 1 0.83 dctcp-rate
s17 4 A webserver     2 0.26 dctcp-rate
s18 4 B cachefollower 1 0.42 dctcp-rate
s19 4 C webserver     1 0.61 dctcp-rate
s20 4 A cachefollower 1 0.69 dctcp-rate
s21 4 B hadoop        2 0.78 dctcp-rate
s22 4 C hadoop        2 0.33 dctcp-rate
s23 4 A hadoop        2 0.52 dctcp-rate
s24 4 B webserver     1 0.64 dctcp-rate
d01 2 B webserver     2 0.45 dcqcn
d02 1 A hadoop        1 0.56 dcqcn
d03 4 C webserver     2 0.67 dcqcn
t01 2 B webserver     2 0.45 timely
t02 1 A hadoop        1 0.56 timely
t03 4 C webserver     2 0.67 timely
"

now() { date +%s.%N; }

echo "name,over,matrix,sizes,sigma,load,cc,flows,p99_pktsim,p99_parsimon,p99_error,p50_error,pktsim_s,parsimon_s" \
    >"$out/results.csv"
seed=100
while read -r name over matrix sizes sigma load cc; do
    [ -z "$name" ] && continue
    seed=$((seed + 1))
    dir="$out/$name"
    mkdir -p "$dir"
    cat >"$dir/scenario.json" <<EOF
{
  "name": "$name",
  "seed": $seed,
  "topology": {"type": "fabric", "pods": 2, "racks_per_pod": 16, "hosts_per_rack": 8,
               "planes": 2, "oversubscription": $over,
               "host_link_bps": "10Gbps", "fabric_link_bps": "40Gbps", "link_delay_ns": 1000},
  "workload": {"flows": $flows, "classes": [{"name": "c", "sizes": {"cdf": "$sizes"},
    "spatial": {"type": "matrix", "matrix": "$matrix"},
    "arrival": {"process": "lognormal", "sigma": $sigma},
    "load": {"max_link_load": $load}}]},
  "transport": {"cc": "$cc"}
}
EOF
    for eng in pktsim parsimon; do
        if [ ! -s "$dir/$eng/summary.json" ]; then
            t0=$(now)
            "$bin" run "$dir/scenario.json" --engine "$eng" -o "$dir/$eng" --quiet >"$dir/$eng.log" 2>&1 ||
                { echo "$name: $eng failed (see $dir/$eng.log)" >&2; continue 2; }
            awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.2f\n", a - b }' >"$dir/$eng.seconds"
        fi
    done
    "$bin" compare "$dir/pktsim" "$dir/parsimon" -o "$dir" --quiet >"$dir/compare.txt" || continue
    row=$(python3 - "$dir/compare.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["buckets"]["all"]
print("%.6g,%.6g,%.6g,%.6g" % (c["ref"]["p99"], c["est"]["p99"], c["error"]["p99"], c["error"]["p50"]))
PY
)
    echo "$name,$over,$matrix,$sizes,$sigma,$load,$cc,$flows,$row,$(cat "$dir/pktsim.seconds"),$(cat "$dir/parsimon.seconds")" \
        >>"$out/results.csv"
    echo "$name: $(tail -1 "$out/results.csv")"
done <<<"$scenarios"

python3 - "$out/results.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def dist(sel, label):
    e = sorted(abs(float(r["p99_error"])) for r in sel)
    s = sorted(float(r["p99_error"]) for r in sel)
    if not e:
        return
    p90 = e[min(len(e) - 1, int(0.9 * len(e)))]
    print("%-22s n=%2d  median |err| %5.1f%%  p90 %5.1f%%  max %5.1f%%  within 10%%: %3.0f%%  (signed: min %+.1f%%, max %+.1f%%)"
          % (label, len(e), 100 * statistics.median(e), 100 * p90, 100 * e[-1],
             100 * sum(x <= 0.10 for x in e) / len(e), 100 * s[0], 100 * s[-1]))
dist([r for r in rows if r["cc"] == "dctcp-rate"], "dctcp-rate")
dist([r for r in rows if r["cc"] == "dcqcn"], "dcqcn")
dist([r for r in rows if r["cc"] == "timely"], "timely")
tp = sum(float(r["pktsim_s"]) for r in rows)
te = sum(float(r["parsimon_s"]) for r in rows)
print("wall time: pktsim %.0f s, parsimon %.0f s (%.2fx)" % (tp, te, te / tp if tp else 0))
PY
