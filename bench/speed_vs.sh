#!/bin/sh
# pktsim speed of this build against another commit's, measured in one run
# so the machine's load affects both alike (issue 43): builds REV's
# bench_pktsim in a scratch worktree, then runs the two builds alternately
# and prints link-hops/s and the ratio new / old per scenario.
#   bench/speed_vs.sh REV [ROUNDS]     (run from the repo root after make build)
#   SCENARIOS="perm:5" bench/speed_vs.sh REV 9     (one scenario: name:argument)
set -eu
REV=$1
ROUNDS=${2:-3}
W=$(mktemp -d)
trap 'git worktree remove --force "$W/src" >/dev/null 2>&1; rm -rf "$W"' EXIT
git worktree add --detach -q "$W/src" "$REV"
cmake -S "$W/src" -B "$W/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$W/build" --target bench_pktsim -j2 >/dev/null
cmake --build build --target bench_pktsim -j2 >/dev/null
export TAILOR_DATA=${TAILOR_DATA:-data}
hops() { "$1" "$2" "$3" | awk '$1 == "pktsim.link_hops_per_s" { print $2 }'; }
for sc in ${SCENARIOS:-perm:5 default:200000}; do
    set -- $(echo "$sc" | tr : " ")
    old=0 new=0
    for r in $(seq "$ROUNDS"); do
        o=$(hops "$W/build/bench_pktsim" "$1" "$2")
        n=$(hops build/bench_pktsim "$1" "$2")
        echo "  $1 round $r: old $o new $n hops/s"
        old="$old $o" new="$new $n"
    done
    mo=$(echo $old | tr ' ' '\n' | sed 1d | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    mn=$(echo $new | tr ' ' '\n' | sed 1d | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    awk -v sc="$1" -v o="$mo" -v n="$mn" -v r="$ROUNDS" 'BEGIN {
        printf "%-8s old %.3g  new %.3g link-hops/s (median of %d)  new/old %.3f\n", sc, o, n, r, n / o }'
done
