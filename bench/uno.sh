#!/bin/sh
# Uno's experiments (issue 45, docs/uno.md) on its two-DC network, each beside
# the paper's published figure (bench/uno/paper.txt):
#   Fig. 3/8  mixed incast: 4 intra-DC + 4 inter-DC flows of 1 GiB into one host,
#             send rate over time per flow (one PNG per scheme) and class means;
#   Fig. 4    phantom queues vs RED on the physical queue, 8 inter-DC 1 GB flows
#             into host 240 and 4-16 KB messages from its rack neighbour:
#             bottleneck queue over time (PNG) and the messages' FCTs;
#   Fig. 10   the realistic mix at 40% (the artifact's file) and 40%/60% (drawn by
#             tailor with the artifact's recipe): FCT mean and p99, all/intra/inter;
#   Fig. 11   the 40% mix with inter/intra RTT ratios 8, 32, 128, 512: slowdown;
#   Fig. 12   the 40% mix with 175 KB intra-DC and 2.24 MB WAN port buffers;
# then the artifact's matrices beside Uno's htsim fork (bench/uno/compare.sh), and
# UnoRC's Fig. 9 and 13A-C (bench/uno/failures.sh; FAIL_SEEDS, default 100, about
# 3 minutes).
# Schemes: uno (UnoCC + ECMP, tailor's defaults), gemini (preset gemini.fig10 in the
# mixes, as the artifact's Fig. 10-12 scripts), mprdma-bbr. FCTs are
# taken at the sender, as the artifact measures them (bench/uno/sender_fct.sh).
#   bench/uno.sh [OUTDIR] [BUILD]     (defaults: out/uno, build; about 4 minutes)
# PAPER_MIX=1 adds Fig. 10 with the workloads the paper names (web search intra-DC,
# Alibaba WAN inter-DC; the artifact's files use others): 6 runs of about 1-2 minutes.
# Needs tailor and bench_uno (cmake --build BUILD --target tailor bench_uno) and
# gnuplot for the PNGs.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-out/uno}
BUILD=${2:-build}
case $BUILD in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
[ -x "$BUILD/bench_uno" ] && [ -x "$BUILD/tailor" ] ||
    { echo "uno.sh: build tailor and bench_uno first (cmake --build $BUILD --target tailor bench_uno)" >&2; exit 2; }
mkdir -p "$OUT/runs"
OUT=$(cd "$OUT" && pwd)
PAPER="$ROOT/bench/uno/paper.txt"
export TAILOR_DATA=${TAILOR_DATA:-$ROOT/data}
SCHEMES="uno gemini mprdma-bbr"
plot() { command -v gnuplot >/dev/null && gnuplot -e "set terminal pngcairo size 900,500; $1" || echo "uno.sh: gnuplot failed ($1)" >&2; }

echo "== Fig. 3/8: mixed incast (4 intra + 4 inter flows of 1 GiB into host 240)"
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
    plot "set output '$OUT/incast-$c.png';
        set title 'Mixed incast, $c: send rate per flow (5 ms bins)'; set xlabel 'time (ms)';
        set ylabel 'Gb/s'; set yrange [0:40]; set key outside right;
        plot for [i=2:9] '$OUT/incast-$c.dat' every ::1 using 1:i with lines title columnhead(i)"
done

echo
echo "== Fig. 4: phantom queues vs RED (10-80% of 1 MB) on the physical queue; 1,000 RPCs of 4-16 KB"
RED='"queue_policy": {"dc": "red", "wan": "red"}'
REDSW='"kmin_bytes_per_gbps": 1000, "kmax_bytes_per_gbps": 8000, "pmax": 1'
"$BUILD/bench_uno" rpc uno "" 41 10 > "$OUT/rpc-phantom.dat"
"$BUILD/bench_uno" rpc uno "$RED" 41 10 "$REDSW" > "$OUT/rpc-red.dat"
printf '%-8s %16s %16s %14s %14s %16s %16s\n' queue rpc_avg_us rpc_p99_us queue_avg_KB queue_max_KB \
    paper_avg_us paper_p99_us
for c in red phantom; do
    # the messages' way back to their sender: 2 links of 1 us and a 64 B ACK's serialization
    q=$(awk 'NR > 1 && $1 + 0 >= 15 && $1 + 0 <= 40 {s += $10; n++; if ($10 > m) m = $10}
        END {printf "%.1f %.0f", s / n, m}' "$OUT/rpc-$c.dat")
    awk -v c=$c -v q="$q" '$1 == "rpc" { back = 2 + 2 * 64 * 8 / 100e3; split(q, Q, " ")
        while ((getline l < P) > 0) { split(l, f, " "); if (f[1] == "fig4" && f[2] == c) { pa = f[3]; pp = f[4] } }
        printf "%-8s %16.2f %16.2f %14s %14s %16s %16s\n", c, $5 + back, $7 + back, Q[1], Q[2], pa, pp }' \
        P="$PAPER" "$OUT/rpc-$c.dat"
done
plot "set output '$OUT/rpc-queue.png'; set title 'Fig. 4: queue at host 240 (8 inter-DC flows + RPCs)';
    set xlabel 'time (ms) (messages from 15 ms)'; set ylabel 'KB'; set xrange [0:41];
    plot '$OUT/rpc-red.dat' every ::1 using 1:10 with lines title 'RED on the physical queue',
         '$OUT/rpc-phantom.dat' every ::1 using 1:10 with lines title 'phantom queues'"

# mix NAME SCENARIO WAN_DELAY_US CC [tailor run options...]: one run, its class
# statistics (bench/uno/class_stats.sh) into runs/NAME.st
mix() {
    name=$1 scen=$2 wan=$3 cc=$4; shift 4
    # the artifact's Fig. 10-12 flags: Gemini's delay threshold 5 ms
    [ "$cc" = gemini ] && set -- --preset gemini.fig10 "$@"
    "$BUILD/tailor" run "$scen" --cc "$cc" "$@" -o "$OUT/runs/$name" --quiet > "$OUT/runs/$name.log" 2>&1 ||
        { cat "$OUT/runs/$name.log" >&2; exit 1; }
    sh "$ROOT/bench/uno/sender_fct.sh" "$OUT/runs/$name/fct.csv" "$wan" | sh "$ROOT/bench/uno/class_stats.sh" \
        > "$OUT/runs/$name.st"
}
# fct_row LABEL NAME PAPERKEY [DAT]: FCT means and p99s of run NAME, then the paper's
# line; with DAT, also "NAME all_avg paper_all_avg inter_p99 paper_inter_p99" into DAT
fct_row() {
    [ -n "${4:-}" ] && awk -v n="$2" -v k="$3" '
        FILENAME != P { m[$1] = $3; p[$1] = $4; next }
        { key = $1 " " $2 " " $3 } key == k { pa = $4; pp = $9 }
        END { printf "%s %.3f %s %.2f %s\n", n, m["all"] / 1e3, pa, p["inter"] / 1e3, pp }' \
        P="$PAPER" "$OUT/runs/$2.st" "$PAPER" >> "$4"
    awk -v l="$1" -v k="$3" '
        FILENAME != P { m[$1] = $3; p[$1] = $4; next }
        { key = $1 " " $2 " " $3 } key == k { pl = sprintf("%9s %9s %9s %9s %9s %9s", $4, $5, $6, $7, $8, $9) }
        END { printf "%-22s %9.3f %9.1f %9.2f %9.2f %9.0f %9.2f | %s\n", l, m["all"] / 1e3, m["intra"],
                  m["inter"] / 1e3, p["all"] / 1e3, p["intra"], p["inter"] / 1e3, pl }' \
        P="$PAPER" "$OUT/runs/$2.st" "$PAPER"
}
fct_head() {
    printf '%-22s %9s %9s %9s %9s %9s %9s | %s\n' "$1" all_avg intra_avg inter_avg all_p99 intra_p99 \
        inter_p99 "the paper's, same columns"
    printf '%-22s %9s %9s %9s %9s %9s %9s |\n' "" ms us ms ms us ms
}
scen_at() { # scenario file with another WAN delay and an absolute workload path
    sed -e "s|\"wan_delay_ns\": \"886.5us\"|\"wan_delay_ns\": \"$2us\"|" \
        -e "s|\"\\.\\./\\.\\./data/uno/|\"$ROOT/data/uno/|" "$ROOT/examples/uno/$1.json" > "$OUT/runs/$1-$2.json"
    echo "$OUT/runs/$1-$2.json"
}

# bars NAME TITLE: NAME.dat's tailor/paper pairs as clustered bars, NAME.png
bars() {
    plot "set output '$OUT/$1.png'; set title '$2 (tailor beside the paper)';
        set style data histograms; set style histogram clustered gap 1; set style fill solid 0.8;
        set ylabel 'ms'; set key top left;
        plot '$OUT/$1.dat' using 2:xtic(1) title 'all, mean', '' using 3 title 'paper: all, mean',
             '' using 4 title 'inter-DC, p99', '' using 5 title 'paper: inter-DC, p99'"
}

echo
echo "== Fig. 10: realistic mix (intra AliStorage, inter WebSearch, as the artifact's files)"
fct_head "load / scheme"
: > "$OUT/fig10.dat"
for s in $SCHEMES; do
    mix "m40-$s" "$(scen_at mix40 886.5)" 886.5 "$s"
    fct_row "40% file / $s" "m40-$s" "fig10 40 $s" "$OUT/fig10.dat"
done
bars fig10 "Fig. 10: the 40% mix of the artifact"
# DCTCP as a reference, with selective repeat (its default go-back-N resends whole
# windows on the WAN)
sed 's|"cc": "uno", "lb": "ecmp",|"cc": "dctcp", "lb": "ecmp", "protocol": "sack",|' \
    "$(scen_at mix40 886.5)" > "$OUT/runs/mix40-dctcp.json"
mix m40-dctcp "$OUT/runs/mix40-dctcp.json" 886.5 dctcp
fct_row "40% file / dctcp" m40-dctcp "fig10 40 dctcp"
# load_rows TAG SUFFIX LABEL: examples/uno/mix{40,60}SUFFIX.json under every scheme
load_rows() {
    for l in 40 60; do
        for s in $SCHEMES; do
            mix "$1$l-$s" "$ROOT/examples/uno/mix$l$2.json" 886.5 "$s"
            fct_row "$l% $3 / $s" "$1$l-$s" "fig10 $l $s"
        done
    done
}
load_rows g gen drawn

if [ "${PAPER_MIX:-0}" = 1 ]; then # about 10 minutes more
    echo
    echo "== Fig. 10 with the workloads the paper names: intra web search, inter Alibaba WAN (64 MB mean)"
    fct_head "load / scheme"
    load_rows p paper "paper's"
fi

echo
echo "== Fig. 11: the 40% mix, inter/intra RTT ratio 8-512 (one-way WAN delay 46.5-3574.5 us)"
: > "$OUT/fig11.dat"
printf '%-22s %9s %9s %9s %9s | %s\n' "ratio / scheme" avg_sd p99_sd intra_p99 inter_p99 "the paper's avg_sd p99_sd"
for r in 8:46.5 32:214.5 128:886.5 512:3574.5; do
    ratio=${r%%:*} d=${r#*:}
    for s in $SCHEMES; do
        [ "$ratio" = 128 ] && cp "$OUT/runs/m40-$s.st" "$OUT/runs/r$ratio-$s.st" ||
            mix "r$ratio-$s" "$(scen_at mix40 "$d")" "$d" "$s"
        awk -v l="$ratio / $s" -v k="fig11 $ratio $s" '
            FILENAME != P { a[$1] = $5; p[$1] = $6; next }
            { key = $1 " " $2 " " $3 } key == k { pl = $4 " " $5 }
            END { printf "%-22s %9.2f %9.2f %9.2f %9.2f | %s\n", l, a["all"], p["all"], p["intra"], p["inter"], pl }' \
            P="$PAPER" "$OUT/runs/r$ratio-$s.st" "$PAPER" | tee -a "$OUT/fig11.dat"
    done
done
plot "set output '$OUT/fig11.png'; set title 'Fig. 11: p99 FCT slowdown, all flows, 40% mix';
    set xlabel 'inter/intra-DC RTT ratio'; set ylabel 'p99 slowdown'; set logscale x 2; set key top left;
    plot for [s in '$SCHEMES'] '< grep \" / '.s.' \" $OUT/fig11.dat' using 1:5 with linespoints title s"

echo
echo "== Fig. 12: the 40% mix, intra-DC ports of one intra-DC BDP (175,344 B), WAN ports of 0.1 inter-DC BDP (2,240,051 B); RED at 25-75%"
fct_head scheme
# timeouts as the artifact scales them with the ports: 5 drains of an intra-DC port
# (70.1 us), inter-DC flows 3 drains of a WAN port (537.6 us) more
: > "$OUT/fig12.dat"
BUF="--set switch.port_buffer_bytes=175344 --set switch.wan_port_buffer_bytes=2240051
     --set nic.rto_ps=70138000 --set nic.wan_rto_extra_ps=537612000"
for s in $SCHEMES; do
    case $s in uno) k= ;; *) k="--set switch.kmin_bytes_per_gbps=438.36 --set switch.kmax_bytes_per_gbps=1315.08" ;; esac
    # shellcheck disable=SC2086
    mix "b-$s" "$(scen_at mix40 886.5)" 886.5 "$s" $BUF $k
    fct_row "$s" "b-$s" "fig12 - $s" "$OUT/fig12.dat"
done
bars fig12 "Fig. 12: 40% mix, shallow intra-DC and deep WAN ports"

echo
echo "== Beside Uno's htsim fork (its stored runs): the 500-flow matrix, and the 40% mix where run"
for c in tm500 mix40; do
    for s in $SCHEMES; do
        [ -f "$ROOT/bench/uno/artifact_${c}_$s.csv" ] || continue
        echo "-- $c, $s"
        sh "$ROOT/bench/uno/compare.sh" "$BUILD" "$c" "$s"
    done
done
echo
echo "== UnoRC: Fig. 9 and 13A-C (bench/uno/failures.sh, ${FAIL_SEEDS:-100} seeds per scheme)"
sh "$ROOT/bench/uno/failures.sh" "$OUT/failures" "$BUILD" "${FAIL_SEEDS:-100}"
echo "time series, runs and plots in $OUT/ (incast-CASE.dat: t_ms, 8 rates, queue KB, 8 windows KB)"
