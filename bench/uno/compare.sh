#!/bin/sh
# Issue 45: tailor's pktsim next to Uno's htsim fork on the artifact's matrices
# with Uno+ECMP: CASE tm500 (500 flows, examples/uno/tm500.json) or mix40 (the
# 5,000-flow mix at 40% load, examples/uno/mix40.json). Prints FCT mean and p99
# (nearest rank), intra- and inter-DC apart, tailor's next to the artifact's
# (stored in artifact_CASE_uno_ecmp.csv; the fork is not needed here).
#
# The two measure a flow's end differently: htsim when the sender gets the last
# ACK, tailor when the receiver has the last byte. tailor's column "sender" adds
# the last ACK's way back (1 us per link, the WAN link 886.5 us, a 64 B ACK's
# serialization per hop): 2/4/6 links within a rack/pod/DC, 10 across DCs.
#   bench/uno/compare.sh [BUILD] [CASE]   (defaults build, tm500; run from anywhere)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${1:-build}
CASE=${2:-tm500}
case $CASE in tm500 | mix40) ;; *) echo "compare.sh: CASE is tm500 or mix40" >&2; exit 2 ;; esac
case $BUILD in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
TAILOR="$BUILD/tailor"
[ -x "$TAILOR" ] || { echo "compare.sh: no tailor binary at $TAILOR" >&2; exit 2; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
TAILOR_DATA=${TAILOR_DATA:-$ROOT/data} "$TAILOR" run "$ROOT/examples/uno/$CASE.json" -o "$TMP/o" \
    --quiet > "$TMP/log" 2>&1 || { cat "$TMP/log" >&2; exit 1; }
# tailor's node ids: DC 0's hosts 0-127, then 80 switches, DC 1's hosts 208-335
awk -F, 'NR > 1 {
    s = $2 < 128 ? $2 : $2 - 80; d = $3 < 128 ? $3 : $3 - 80
    if ((s < 128) != (d < 128)) { links = 10; back = 9 + 886.5 }
    else { links = int(s / 4) == int(d / 4) ? 2 : int(s / 16) == int(d / 16) ? 4 : 6; back = links }
    back += links * 64 * 8 / 100e3
    print ((s < 128) != (d < 128) ? "inter" : "intra"), $6 / 1000, $6 / 1000 + back
}' "$TMP/o/fct.csv" > "$TMP/ours"
awk -F, '!/^#/ && NR > 2 { print (($2 < 128) != ($3 < 128) ? "inter" : "intra"), $6 }' \
    "$HERE/artifact_${CASE}_uno_ecmp.csv" > "$TMP/theirs"
stats() { sort -g | awk '{a[NR] = $1; s += $1} END {r = int(0.99 * NR); if (r < 0.99 * NR) r++;
    printf "%d %.1f %.1f\n", NR, s / NR, a[r]}'; }
printf "%-6s %5s %11s %11s %11s %11s %11s %11s %6s %6s\n" class flows tailor_mean tailor_p99 \
    sender_mean sender_p99 htsim_mean htsim_p99 mean_r p99_r
for c in intra inter; do
    set -- $(awk -v c=$c '$1 == c {print $2}' "$TMP/ours" | stats)
    n=$1 tm=$2 tp=$3
    set -- $(awk -v c=$c '$1 == c {print $3}' "$TMP/ours" | stats)
    sm=$2 sp=$3
    set -- $(awk -v c=$c '$1 == c {print $2}' "$TMP/theirs" | stats)
    awk -v c=$c -v n=$n -v tm=$tm -v tp=$tp -v sm=$sm -v sp=$sp -v hm=$2 -v hp=$3 'BEGIN {
        printf "%-6s %5d %11.1f %11.1f %11.1f %11.1f %11.1f %11.1f %6.3f %6.3f\n", c, n, tm, tp, sm,
            sp, hm, hp, sm / hm, sp / hp}'
done
echo "FCT in us; ratio = tailor (sender side) / htsim; $(grep pktsim: "$TMP/log" | sed 's/^ *//')"
