#!/bin/sh
# Issue 45: tailor's pktsim next to Uno's htsim fork on the artifact's matrices:
# CASE tm500 (500 flows, examples/uno/tm500.json) or mix40 (the 5,000-flow mix at
# 40% load, examples/uno/mix40.json), SCHEME uno (Uno+ECMP), gemini or mprdma-bbr
# with the artifact's Fig. 10 flags (stored runs: artifact_CASE_SCHEME.csv; the
# fork is not needed here). Prints FCT mean and p99 (nearest rank), intra- and
# inter-DC apart, tailor's next to the artifact's.
#
# The two measure a flow's end differently: htsim when the sender gets the last
# ACK, tailor when the receiver has the last byte; tailor's figures here are
# at the sender (bench/uno/sender_fct.sh adds the last ACK's way back).
#   bench/uno/compare.sh [BUILD] [CASE] [SCHEME]   (defaults build, tm500, uno; from anywhere)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${1:-build}
CASE=${2:-tm500}
SCHEME=${3:-uno}
case $CASE in tm500 | mix40) ;; *) echo "compare.sh: CASE is tm500 or mix40" >&2; exit 2 ;; esac
THEIRS="$HERE/artifact_${CASE}_$SCHEME.csv"
[ -f "$THEIRS" ] || { echo "compare.sh: no stored artifact run $THEIRS" >&2; exit 2; }
case $BUILD in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
TAILOR="$BUILD/tailor"
[ -x "$TAILOR" ] || { echo "compare.sh: no tailor binary at $TAILOR" >&2; exit 2; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
# the artifact's Fig. 10-12 flags: Gemini's delay threshold 5 ms (preset gemini.fig10)
case $SCHEME in gemini) preset="--preset gemini.fig10" ;; *) preset= ;; esac
# shellcheck disable=SC2086
TAILOR_DATA=${TAILOR_DATA:-$ROOT/data} "$TAILOR" run "$ROOT/examples/uno/$CASE.json" --cc "$SCHEME" $preset -o "$TMP/o" \
    --quiet > "$TMP/log" 2>&1 || { cat "$TMP/log" >&2; exit 1; }
sh "$HERE/sender_fct.sh" "$TMP/o/fct.csv" > "$TMP/ours"
awk -F, '!/^#/ && NR > 2 { print (($2 < 128) != ($3 < 128) ? "inter" : "intra"), $6, 1 }' \
    "$THEIRS" > "$TMP/theirs"
printf "%-6s %5s %11s %11s %11s %11s %6s %6s\n" class flows tailor_mean tailor_p99 htsim_mean \
    htsim_p99 mean_r p99_r
sh "$HERE/class_stats.sh" < "$TMP/ours" > "$TMP/ours.st"
sh "$HERE/class_stats.sh" < "$TMP/theirs" > "$TMP/theirs.st"
for c in intra inter; do
    set -- $(awk -v c=$c '$1 == c' "$TMP/ours.st") $(awk -v c=$c '$1 == c' "$TMP/theirs.st")
    awk -v c=$c -v n=$2 -v tm=$3 -v tp=$4 -v hm=${9} -v hp=${10} 'BEGIN {
        printf "%-6s %5d %11.1f %11.1f %11.1f %11.1f %6.3f %6.3f\n", c, n, tm, tp, hm, hp, tm / hm, tp / hp}'
done
echo "FCT in us at the sender; ratio = tailor / htsim; $(grep pktsim: "$TMP/log" | sed 's/^ *//')"
