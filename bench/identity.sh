#!/bin/sh
# Fingerprints of pktsim, Parsimon and m3 results, one sha256 per case, to
# check that a refactoring leaves results byte-identical (issue 43): run it
# on the old and the new build and compare. Not a golden test: the sums
# change whenever results are meant to change.
#   bench/identity.sh [BUILD_DIR]      (default: build; run from the repo root)
set -eu
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export TAILOR_DATA=${TAILOR_DATA:-data}
sum() { sha256sum | cut -c1-16; }
run() { # name, then tailor run arguments; hashes fct.csv and links.csv
    name=$1; shift
    "$B/tailor" run "$@" -o "$T/o" --quiet >"$T/log" 2>&1 || { cat "$T/log"; exit 1; }
    f=$(cat "$T/o/fct.csv" "$T/o/links.csv" 2>/dev/null | sum)
    printf '%-28s %s\n' "$name" "$f"
}
for cc in dctcp dctcp-rate dcqcn timely hpcc; do
    run "default-20k-$cc" examples/default.json --engine pktsim --cc "$cc" --flow-count 20000
done
run incast-16to1 examples/incast-16to1.json --engine pktsim
run fattree-k8-permutation examples/fattree-k8-permutation.json --engine pktsim
run lossy-small-buffer examples/default.json --engine pktsim --flow-count 20000 \
    --set switch.buffer_bytes=60000
run pfc-incast-dcqcn examples/incast-16to1.json --engine pktsim --cc dcqcn --set switch.pfc=1
run parsimon-default examples/default.json --engine parsimon
run parsimon-cluster examples/default.json --engine parsimon --cluster
# m3 writes estimates, not flows: its summary without the run record (times)
"$B/tailor" run examples/default.json --engine m3 -o "$T/m" --quiet >"$T/log" 2>&1 ||
    { cat "$T/log"; exit 1; }
printf '%-28s %s\n' m3-default "$(jq -S 'del(.run)' "$T/m/summary.json" | sum)"
# runs the CLI cannot make: a link failing mid-run, knobs changed while running
"$B/bench_pktsim" fingerprint >"$T/fp"
for c in dctcp-linkfail dctcp-knobs dcqcn-linkfail dcqcn-knobs; do
    printf '%-28s %s\n' "$c" "$(awk -v c="$c" '$1 ~ /-/ { on = $1 == c } on' "$T/fp" | sum)"
done
grep -E 'linkfail|knobs' "$T/fp" | awk '{ print "  ", $0 }'
