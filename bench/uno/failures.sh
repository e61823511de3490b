#!/bin/sh
# UnoRC under failures (issue 47, uno.txt §5.2.1 and §5.3, docs/uno.md):
#   Fig. 9    the permutation (data/uno/custom_256_5mb.cm: 256 flows of 1 MB) with
#             8 and 128 WAN links: Uno+ECMP, Uno (UnoLB, no coding, as the
#             artifact), Gemini, MPRDMA+BBR: mean and p99 FCT;
#   Fig. 13A  8 inter-DC flows of 5 MB, one WAN link blackholed from the start
#             (examples/uno/fail-one-link.json), SEEDS runs per scheme: spraying,
#             PLB and UnoLB, each with and without erasure coding (8,2);
#   Fig. 13B  one inter-DC flow of 5 MB under Table 1's random loss
#             (examples/uno/random-loss.json), SEEDS runs per scheme;
#   Fig. 13C  one iteration of an 8 x 35 MB collective across the DCs with one
#             blackholed link and random loss, 4x WAN delay
#             (examples/uno/ai-collective.json), SEEDS iterations per scheme:
#             runtime (slowest flow) over the ideal, and the artifact's metric
#             (mean FCT - ideal) / ideal.
# A run is one seed (ECMP hash, load-balancer draws, losses). Runs go two at a
# time (both cores). Prints per scheme the distribution over runs of the mean
# and the slowest FCT, writes the per-run CSVs and box plots (PNG) to OUTDIR.
#   bench/uno/failures.sh [OUTDIR] [BUILD] [SEEDS]   (defaults: out/uno-rc, build, 100)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SELF="$ROOT/bench/uno/failures.sh"

# one_run NAME SEED: prints "name seed mean_ms max_ms mean_ideal_ms max_ideal_ms unfinished"
one_run() {
    d="$OUT/runs/$1-s$2"
    "$W" run "$OUT/runs/$1.json" -o "$d" --seed "$2" --quiet >/dev/null 2>&1 || { echo "$1 $2 fail"; return; }
    awk -F, -v n="$1" -v s="$2" 'NR > 1 { k++; i += $7; if ($7 > mi) mi = $7
        if ($6 < 0) u++; else { f += $6; if ($6 > mf) mf = $6 } }
        END { printf "%s %s %.4f %.4f %.4f %.4f %d\n", n, s, f / (k - u) / 1e6, mf / 1e6,
              i / k / 1e6, mi / 1e6, u }' "$d/fct.csv"
    rm -rf "$d"
}
# (xargs runs this script again for each run)
if [ "${1:-}" = --one ]; then
    one_run "$2" "$3"
    exit 0
fi

OUT=${1:-out/uno-rc}
BUILD=${2:-build}
SEEDS=${3:-100}
case $BUILD in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
W="$BUILD/tailor"
[ -x "$W" ] || { echo "failures.sh: build tailor first" >&2; exit 2; }
mkdir -p "$OUT/runs"
OUT=$(cd "$OUT" && pwd)
export TAILOR_DATA=${TAILOR_DATA:-$ROOT/data}
export OUT W
SCHEMES="spray/sack spray/ec plb/sack plb/ec unolb/sack unolb/ec"

# variant EXAMPLE LB PROTOCOL NAME: the example with another LB and transport
variant() {
    sed "s/\"lb\": \"unolb\"/\"lb\": \"$2\"/; s/\"protocol\": \"ec\"/\"protocol\": \"$3\"/;
         s#\"\\.\\./\\.\\./data/#\"$ROOT/data/#" "$ROOT/examples/uno/$1.json" >"$OUT/runs/$4.json"
}

# runs EXAMPLE TAG: every scheme x seed, two at a time, into $OUT/TAG.csv
runs() {
    for sc in $SCHEMES; do variant "$1" "${sc%/*}" "${sc#*/}" "$2-${sc%/*}-${sc#*/}"; done
    for sc in $SCHEMES; do
        s=1
        while [ $s -le "$SEEDS" ]; do echo "$2-${sc%/*}-${sc#*/} $s"; s=$((s + 1)); done
    done | xargs -P 2 -n 2 sh "$SELF" --one >"$OUT/$2.raw"
    sort -k1,1 -k2,2n "$OUT/$2.raw" | awk 'BEGIN { print "run,seed,mean_ms,max_ms,ideal_mean_ms,ideal_max_ms,unfinished" }
        { $1 = $1; gsub(/ /, ","); print }' >"$OUT/$2.csv"
    rm -f "$OUT/$2.raw"
}

# table TAG METRIC_COL LABEL: per scheme, the distribution over runs
table() {
    printf "%-22s %5s %8s %8s %8s %8s %8s %6s\n" "scheme ($3)" runs p10 median mean p90 max unfin
    for sc in $SCHEMES; do
        awk -F, -v r="$1-${sc%/*}-${sc#*/}" -v c="$2" -v l="$sc" '$1 == r { v[n++] = $c; u += $7 }
            END { if (!n) exit
                  for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
                  for (i = 0; i < n; i++) m += v[i]
                  printf "%-22s %5d %8.3f %8.3f %8.3f %8.3f %8.3f %6d\n", l, n,
                         v[int(0.1 * (n - 1))], v[int(0.5 * (n - 1))], m / n, v[int(0.9 * (n - 1))], v[n - 1], u }' "$OUT/$1.csv"
    done
}

# boxes TAG COL YLABEL: a box plot (p10, p25, median, p75, p90) per scheme
boxes() {
    command -v gnuplot >/dev/null || return 0
    i=0
    for sc in $SCHEMES; do
        i=$((i + 1))
        awk -F, -v r="$1-${sc%/*}-${sc#*/}" -v c="$2" -v x="$i" -v l="$sc" '$1 == r { v[n++] = $c }
            END { for (a = 0; a < n; a++) for (b = a + 1; b < n; b++) if (v[b] < v[a]) { t = v[a]; v[a] = v[b]; v[b] = t }
                  printf "%d %s %f %f %f %f %f\n", x, l, v[int(0.1 * (n - 1))], v[int(0.25 * (n - 1))],
                         v[int(0.5 * (n - 1))], v[int(0.75 * (n - 1))], v[int(0.9 * (n - 1))] }' "$OUT/$1.csv"
    done >"$OUT/$1.box"
    gnuplot -e "set terminal pngcairo size 900,500; set output '$OUT/$1.png'; set title '$1: $3 per run (box p25-p75, whiskers p10-p90)';
        set ylabel '$3'; set xrange [0.3:6.7]; set boxwidth 0.5; set grid ytics; set yrange [0:*];
        plot '$OUT/$1.box' using 1:4:3:7:6:xticlabels(2) with candlesticks whiskerbars lw 2 notitle,
             '' using 1:5:5:5:5 with candlesticks lt -1 lw 3 notitle" 2>/dev/null ||
        echo "failures.sh: gnuplot failed for $1" >&2
}

t0=$(date +%s)
echo "== Fig. 9: permutation of 256 hosts, 1 MB each (142 inter-DC flows): FCT in ms, mean / p99"
printf "%-22s %14s %14s %14s | %14s %14s %14s\n" "" "8 WAN: all" "intra" "inter" "128 WAN: all" "intra" "inter"
for sc in uno/ecmp uno/unolb gemini/ecmp mprdma-bbr/ecmp; do
    line=""
    for wan in 8 128; do
        sed "s/\"cc\": \"uno\"/\"cc\": \"${sc%/*}\"/; s/\"lb\": \"unolb\"/\"lb\": \"${sc#*/}\"/;
             s/\"inter_dc_links\": 8/\"inter_dc_links\": $wan/; s#\"\\.\\./\\.\\./data/#\"$ROOT/data/#" \
            "$ROOT/examples/uno/permutation.json" >"$OUT/runs/fig9.json"
        "$W" run "$OUT/runs/fig9.json" -o "$OUT/runs/fig9-$wan" --quiet >/dev/null
        for cls in all intra inter; do
            line="$line $(awk -F, -v c="$cls" 'NR > 1 && (c == "all" || $9 == c) { v[n++] = $6 / 1e6; s += $6 / 1e6 }
                END { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
                      printf "%6.2f / %5.2f", s / n, v[int(0.99 * (n - 1))] }' "$OUT/runs/fig9-$wan/fct.csv")"
        done
        [ "$wan" = 8 ] && line="$line |"
    done
    printf "%-22s%s\n" "$(echo "$sc" | sed 's#uno/ecmp#Uno+ECMP#; s#uno/unolb#Uno (UnoLB, no EC)#; s#/ecmp##')" "$line"
done

echo
echo "== Fig. 13A: 8 inter-DC flows of 5 MB, one of 8 WAN links blackholed ($SEEDS seeds per scheme)"
runs fail-one-link fig13a
table fig13a 3 "mean FCT, ms"
table fig13a 4 "slowest FCT, ms"
boxes fig13a 3 "mean FCT (ms)"
t1=$(date +%s)
echo "($(( (SEEDS * 6) )) runs in $((t1 - t0)) s on 2 cores)"

echo
echo "== Fig. 13B: one inter-DC flow of 5 MB, Table 1 random loss ($SEEDS seeds per scheme)"
runs random-loss fig13b
table fig13b 3 "FCT, ms"
boxes fig13b 3 "FCT (ms)"

echo
echo "== Fig. 13C: 8 x 35 MB collective, blackhole + random loss, 4x WAN delay ($SEEDS iterations)"
runs ai-collective fig13c
awk -F, 'NR > 1 { sub(/^fig13c-/, "fig13c-ratio-", $1); printf "%s,%s,%.4f,%.4f\n", $1, $2, $4 / $6, ($3 - $5) / $5 }' "$OUT/fig13c.csv" |
    awk -F, 'BEGIN { print "run,seed,slowest_over_ideal,artifact_metric,x,y,unfinished" } { print $0 ",0,0,0" }' >"$OUT/fig13c-ratio.csv"
table fig13c-ratio 3 "slowest / ideal"
table fig13c-ratio 4 "(mean - ideal) / ideal"
boxes fig13c-ratio 3 "iteration runtime over ideal"
echo "(all of it in $(( $(date +%s) - t0 )) s)"
