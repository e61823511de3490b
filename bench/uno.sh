#!/bin/sh
# Uno's experiments (issue 45, docs/uno.md) that tailor runs so far: the mixed
# incast (uno.txt Fig. 3 and 8: 4 intra-DC + 4 inter-DC flows of 1 GiB into
# one host) under UnoCC, Uno with its artifact's settings, Gemini and MPRDMA +
# BBR, as send
# rates over time (one PNG per CC) and a table of class means; then the
# artifact's 500-flow matrix beside Uno's htsim fork (bench/uno/compare.sh).
#   bench/uno.sh [OUTDIR] [BUILD]     (defaults: out/uno, build; about 40 s)
# Needs bench_uno (cmake --build BUILD --target bench_uno) and gnuplot for the PNGs.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-out/uno}
BUILD=${2:-build}
case $BUILD in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
[ -x "$BUILD/bench_uno" ] || { echo "uno.sh: build bench_uno first (cmake --build $BUILD --target bench_uno)" >&2; exit 2; }
mkdir -p "$OUT"
ART='"preset": "uno.artifact", "uno": {"ewma_gain": 0.65}, "phantom": {"drain_frac": 0.952381}'
printf '%-14s %7s %18s %18s %18s\n' case t_ms "intra mean (Gb/s)" "inter mean (Gb/s)" "max/min flow"
for c in uno uno-artifact gemini mprdma-bbr; do
    case $c in
    uno-artifact) cc=uno knobs=$ART ;;
    *) cc=$c knobs= ;;
    esac
    "$BUILD/bench_uno" incast "$cc" "$knobs" 700 5000 > "$OUT/incast-$c.dat"
    for t in 100.00 300.00 500.00; do
        awk -v c="$c" -v t="$t" '$1 == t {
            e = ($2 + $3 + $4 + $5) / 4; a = ($6 + $7 + $8 + $9) / 4; lo = 1e9; hi = 0
            for (i = 2; i <= 9; i++) { lo = $i < lo ? $i : lo; hi = $i > hi ? $i : hi }
            printf "%-14s %7s %18.1f %18.1f %18.1f\n", c, t, a, e, (lo > 0 ? hi / lo : 0) }' "$OUT/incast-$c.dat"
    done
    if command -v gnuplot >/dev/null; then
        gnuplot -e "set terminal pngcairo size 900,500; set output '$OUT/incast-$c.png';
            set title 'Mixed incast, $c: send rate per flow (5 ms bins)'; set xlabel 'time (ms)';
            set ylabel 'Gb/s'; set yrange [0:40]; set key outside right;
            plot for [i=2:9] '$OUT/incast-$c.dat' every ::1 using 1:i with lines title columnhead(i)"
    fi
done
echo
sh "$ROOT/bench/uno/compare.sh" "$BUILD"
echo "time series and plots in $OUT/ (incast-CASE.dat: t_ms, 8 rates, queue KB, 8 windows KB)"
