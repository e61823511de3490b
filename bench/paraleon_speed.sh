#!/bin/sh
# The speed goals of PARALEON's tuning (issue 48, docs/paraleon.md):
#   1. the closed loop costs at most 1.3x an untuned pktsim run of the same
#      scenario (examples/paraleon/hadoop.json, 128 servers): CPU seconds of
#      `tailor tune` over `tailor run`, one after the other, ROUNDS rounds;
#   2. offline tuning with Parsimon of a 32-rack fabric (the built-in default
#      scenario under DCQCN, its first 40,000 flows, --cluster) finishes in
#      under 10 minutes: wall time with --threads 2, Table III's schedule
#      (280 candidates) and the two pktsim validation runs.
#   bench/paraleon_speed.sh [BUILD_DIR] [FLOWS] [ROUNDS]
#   (defaults build, 100000, 2; about 12 minutes; run from the repo root)
set -eu
B=${1:-build}
FLOWS=${2:-100000}
ROUNDS=${3:-2}
W="$B/tailor"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export TAILOR_DATA=${TAILOR_DATA:-data}
sed "s/\"flows\": 40000/\"flows\": $FLOWS/" examples/paraleon/hadoop.json >"$T/h.json"

cpu() { sed -n 's/.*(\([0-9.]*\) s CPU).*/\1/p' "$1" | head -1; }

echo "== 1. closed loop vs untuned pktsim: $FLOWS FB_Hadoop flows, $ROUNDS rounds"
printf "%5s %12s %12s %8s %22s\n" round "run CPU s" "tune CPU s" ratio "link-hops/s run / tune"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    "$W" run "$T/h.json" -o "$T/run" --threads 1 --quiet >"$T/run.log"
    "$W" tune "$T/h.json" -o "$T/tune" --threads 1 --quiet >"$T/tune.log"
    a=$(cpu "$T/run.log")
    b=$(cpu "$T/tune.log")
    ha=$(sed -n 's/.* \([0-9.e+]*\) link-hops\/s.*/\1/p' "$T/run.log" | head -1)
    hb=$(sed -n 's/.* \([0-9.e+]*\) link-hops\/s.*/\1/p' "$T/tune.log" | head -1)
    awk -v r="$r" -v a="$a" -v b="$b" -v ha="$ha" -v hb="$hb" \
        'BEGIN { printf "%5d %12.1f %12.1f %7.2fx %10.3g / %9.3g\n", r, a, b, b / a, ha, hb }'
    r=$((r + 1))
done
grep '^tune:' "$T/tune.log" | cut -c1-60

echo
echo "== 2. offline tuning with Parsimon: 32-rack fabric, DCQCN, 40,000 flows, --cluster, 2 threads"
start=$(date +%s)
"$W" tune -o "$T/off" --cc dcqcn --oracle parsimon --cluster --flow-count 40000 --threads 2 \
    --quiet >"$T/off.log"
end=$(date +%s)
sed -n '1,5p' "$T/off.log"
echo "wall time: $((end - start)) s (goal: under 600 s)"
