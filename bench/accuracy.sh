#!/usr/bin/env bash
# Parsimon accuracy suite (issue "parsimon", docs/accuracy.md): scenarios on
# the 32-rack fabric drawn from parsimon.txt's Table 3 sample space
# (oversubscription 1:1/2:1/4:1 x matrices A/B/C x WebServer/Hadoop/
# CacheFollower x sigma 1/2 x max load 26-83%), each simulated with pktsim
# (the truth) and estimated with Parsimon, then compared.
#
#   bench/accuracy.sh [OUTDIR] [FLOWS] [ENGINE]
#       defaults: out/accuracy, 200000, parsimon
#
# ENGINE is parsimon, m3 (with data/models/m3-CC.model for a scenario's CC
# where one exists, else data/models/m3.model; or $M3_MODEL for all),
# flowsim-m3 (m3's path sampling and flowsim without the model: what the
# model adds is the difference between the two) or m3-paths (pktsim on each
# drawn path instead of the model: the error a perfect model would keep,
# m3.txt section 5.5; slow). M3_PATHS=N draws N paths for the m3 engines
# (default 500); use a fresh OUTDIR when changing it. BUCKET_RATIO=X writes
# "engine": {"bucket_ratio": X} into the scenarios (Parsimon's x), and
# ENGINE_OPTS='"cluster": true, "cluster_scale": 4' any engine keys; use a
# fresh OUTDIR for either, or link the pktsim runs of another one.
#
# The scenarios are the fixed list below (not drawn at run time), so a rerun
# repeats them exactly; each has its own seed. Writes OUTDIR/NAME/{pktsim,
# ENGINE}/ (the runs), OUTDIR/results-ENGINE.csv (one row per scenario: p99
# slowdown of all flows, truth and estimate, error, wall times; p99 error
# per size bucket) and prints the error distribution. Only what is missing is recomputed, so a cut-short
# run can be resumed. ONLY=REGEX keeps the scenarios whose name matches
# (for example ONLY='^(d|t)0'); the summary then covers those alone.
# WRITE_ONLY=1 writes the scenarios' OUTDIR/NAME/scenario.json and runs
# nothing (bench_parsimon_error reads them).
# Needs ./build/tailor (make build).
set -u
out=${1:-out/accuracy}
flows=${2:-200000}
engine=${3:-parsimon}
case $engine in
parsimon) eargs=(--engine parsimon) ;;
m3) eargs=(--engine m3 ${M3_MODEL:+--model "$M3_MODEL"}) ;;
flowsim-m3) eargs=(--engine m3 --no-model) ;;
m3-paths) eargs=(--engine m3 --path-pktsim) ;;
*) echo "accuracy.sh: unknown engine '$engine' (parsimon, m3, flowsim-m3, m3-paths)" >&2; exit 2 ;;
esac
[ -n "${M3_PATHS:-}" ] && [ "$engine" != parsimon ] && eargs+=(--paths "$M3_PATHS")
res="$out/results-$engine.csv"
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
h01 2 B webserver     2 0.45 hpcc
h02 4 C webserver     2 0.67 hpcc
h03 1 C hadoop        1 0.38 hpcc
d04 1 C cachefollower 2 0.35 dcqcn
d05 2 A webserver     1 0.62 dcqcn
d06 4 B hadoop        2 0.50 dcqcn
t04 1 C cachefollower 2 0.35 timely
t05 2 A webserver     1 0.62 timely
t06 4 B hadoop        2 0.50 timely
h04 2 A cachefollower 1 0.55 hpcc
h05 1 B webserver     1 0.72 hpcc
h06 4 A hadoop        2 0.30 hpcc
d07 1 B cachefollower 1 0.48 dcqcn
d08 2 C hadoop        2 0.38 dcqcn
d09 4 A webserver     1 0.55 dcqcn
d10 1 A webserver     2 0.70 dcqcn
d11 2 B cachefollower 2 0.60 dcqcn
d12 4 C hadoop        1 0.42 dcqcn
t07 1 B cachefollower 1 0.48 timely
t08 2 C hadoop        2 0.38 timely
t09 4 A webserver     1 0.55 timely
t10 1 A webserver     2 0.70 timely
t11 2 B cachefollower 2 0.60 timely
t12 4 C hadoop        1 0.42 timely
h07 1 B cachefollower 1 0.48 hpcc
h08 2 C hadoop        2 0.38 hpcc
h09 4 A webserver     1 0.55 hpcc
h10 1 A webserver     2 0.70 hpcc
h11 2 B cachefollower 2 0.60 hpcc
h12 4 C hadoop        1 0.42 hpcc
"

now() { date +%s.%N; }

echo "name,over,matrix,sizes,sigma,load,cc,flows,p99_pktsim,p99_est,p99_error,p50_error,err_0_1k,err_1_10k,err_10_50k,err_50k,pktsim_s,est_s" \
    >"$res"
seed=100
engine_json=""
opts=${ENGINE_OPTS:-}
[ -n "${BUCKET_RATIO:-}" ] && opts="\"bucket_ratio\": $BUCKET_RATIO${opts:+, $opts}"
[ -n "$opts" ] && engine_json=$(printf ',\n  "engine": {%s}' "$opts")
while read -r name over matrix sizes sigma load cc; do
    [ -z "$name" ] && continue
    seed=$((seed + 1))
    [ -n "${ONLY:-}" ] && ! [[ $name =~ $ONLY ]] && continue
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
  "transport": {"cc": "$cc"}$engine_json
}
EOF
    [ -n "${WRITE_ONLY:-}" ] && continue
    for eng in pktsim "$engine"; do
        if [ ! -s "$dir/$eng/summary.json" ]; then
            t0=$(now)
            if [ "$eng" = pktsim ]; then args=(--engine pktsim); else args=("${eargs[@]}"); fi
            "$bin" run "$dir/scenario.json" "${args[@]}" -o "$dir/$eng" --quiet >"$dir/$eng.log" 2>&1 ||
                { echo "$name: $eng failed (see $dir/$eng.log)" >&2; continue 2; }
            awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.2f\n", a - b }' >"$dir/$eng.seconds"
        fi
    done
    cmp="$dir/compare-$engine"
    "$bin" compare "$dir/pktsim" "$dir/$engine" -o "$cmp" --quiet >"$cmp.txt" || continue
    row=$(python3 - "$cmp/compare.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["buckets"]
c = b["all"]
per = ",".join("%.6g" % b[k]["error"]["p99"] if k in b else "nan"
               for k in ("0-1KB", "1-10KB", "10-50KB", "50KB+"))
print("%.6g,%.6g,%.6g,%.6g,%s" % (c["ref"]["p99"], c["est"]["p99"], c["error"]["p99"], c["error"]["p50"], per))
PY
)
    echo "$name,$over,$matrix,$sizes,$sigma,$load,$cc,$flows,$row,$(cat "$dir/pktsim.seconds"),$(cat "$dir/$engine.seconds")" \
        >>"$res"
    echo "$name: $(tail -1 "$res")"
done <<<"$scenarios"

python3 - "$res" "$engine" <<'PY'
import csv, math, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def dist(sel, label, col="p99_error"):
    v = [float(r[col]) for r in sel if not math.isnan(float(r[col]))]
    e, s = sorted(abs(x) for x in v), sorted(v)
    if not e:
        return
    p90 = e[min(len(e) - 1, int(0.9 * len(e)))]
    print("%-22s n=%2d  mean |err| %5.1f%%  median %5.1f%%  p90 %5.1f%%  max %5.1f%%  within 10%%: %3.0f%%  (signed: min %+.1f%%, max %+.1f%%)"
          % (label, len(e), 100 * sum(e) / len(e), 100 * statistics.median(e), 100 * p90, 100 * e[-1],
             100 * sum(x <= 0.10 for x in e) / len(e), 100 * s[0], 100 * s[-1]))
print("p99 slowdown error of %s against pktsim, all flows:" % sys.argv[2])
for cc in ("dctcp-rate", "dcqcn", "hpcc", "timely"):
    dist([r for r in rows if r["cc"] == cc], cc)
dist([r for r in rows if r["cc"] != "dctcp-rate"], "other CCs")
print("per size bucket, dctcp-rate scenarios:")
buckets = ("err_0_1k", "err_1_10k", "err_10_50k", "err_50k")
for col in buckets:
    dist([r for r in rows if r["cc"] == "dctcp-rate"], "  " + col[4:], col)
# The other CCs have twelve scenarios each: pool their four bucket p99s, the
# "per bucket" figures of docs/accuracy.md.
print("per size bucket, the four buckets pooled:")
for cc in ("dcqcn", "hpcc", "timely"):
    e = [abs(float(r[c])) for r in rows if r["cc"] == cc for c in buckets if not math.isnan(float(r[c]))]
    if e:
        print("  %-20s n=%2d  mean |err| %5.1f%%  max %5.1f%%" % (cc, len(e), 100 * sum(e) / len(e), 100 * max(e)))
tp = sum(float(r["pktsim_s"]) for r in rows)
te = sum(float(r["est_s"]) for r in rows)
print("wall time: pktsim %.0f s, %s %.0f s (%.2fx)" % (tp, sys.argv[2], te, te / tp if tp else 0))
PY
