#!/usr/bin/env bash
# Parsimon's cost against the truth it estimates (issue "sim-speed"): the
# default scenario (examples/default.json, 200,000 flows) under each CC with
# a line-rate start, pktsim on one core, Parsimon without clustering on all
# cores, one after the other in the same run so the ratios share the
# machine's state. Prints one markdown row per CC: CPU seconds (user + sys)
# of each, the CPU and wall ratios, the ratio of their events (which the
# machine's load does not move: on this shared machine CPU times of the
# same binary vary by a quarter from minute to minute), and Parsimon's own
# profile line on stderr (CPU by case and run, data packets simulated,
# events per packet; docs/parsimon.md, "Profile").
#
#   bench/sim_speed.sh [BUILD [OLD_BUILD]]     (default BUILD: build)
#
# With OLD_BUILD (another build's directory, for example one made by
# bench/speed_vs.sh), Parsimon runs with both binaries, old first, and the
# row gives both CPU times and new / old. CCS="dcqcn hpcc" picks the CCs;
# FLOWS=N changes the flow count.
set -eu
build=${1:-build}
old=${2:-}
ccs=${CCS:-dctcp-rate dcqcn hpcc timely}
flows=${FLOWS:-200000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export TAILOR_DATA=${TAILOR_DATA:-data}

# cpu_of BIN ARGS...: runs `BIN run ARGS` and prints "cpu wall", the run's
# report lines going to $dir/report
cpu_of() {
    local bin=$1
    shift
    local TIMEFORMAT='%U %S %R'
    { time "$bin" run "$@" >"$dir/report" 2>/dev/null; } 2>"$dir/time"
    awk '{ printf "%.1f %.1f\n", $1 + $2, $3 }' "$dir/time"
}

echo "| CC | pktsim CPU | Parsimon CPU${old:+ (old)} | CPU / pktsim | Parsimon wall | wall / pktsim |" \
    "events / pktsim's |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for cc in $ccs; do
    sed -e "s/\"cc\": \"dctcp-rate\"/\"cc\": \"$cc\"/" -e "s/\"flows\": 200000/\"flows\": $flows/" \
        examples/default.json >"$dir/$cc.json"
    read -r pk_cpu pk_wall < <(cpu_of "$build/tailor" "$dir/$cc.json" --engine pktsim \
        -o "$dir/pk" --quiet)
    pk_ev=$(sed -n 's/.* \([0-9]*\) events,.*/\1/p' "$dir/report" | head -1)
    old_cpu=""
    if [ -n "$old" ]; then
        read -r old_cpu _ < <(cpu_of "$old/tailor" "$dir/$cc.json" --engine parsimon -o "$dir/po")
    fi
    read -r ps_cpu ps_wall < <(cpu_of "$build/tailor" "$dir/$cc.json" --engine parsimon \
        -o "$dir/ps")
    profile=$(grep "^link simulations' CPU" "$dir/report" || true)
    ps_ev=$(echo "$profile" | sed -n 's/.* \([0-9.]*\)M events in all.*/\1/p')
    awk -v cc="$cc" -v pc="$pk_cpu" -v pw="$pk_wall" -v sc="$ps_cpu" -v sw="$ps_wall" \
        -v oc="$old_cpu" -v pe="$pk_ev" -v se="$ps_ev" 'BEGIN {
        o = oc == "" ? "" : sprintf(" (%.1f s, new / old %.2f)", oc, sc / oc)
        printf "| %s | %.1f s | %.1f s%s | %.2f | %.1f s | %.2f | %.2f |\n", cc, pc, sc, o,
               sc / pc, sw, sw / pw, (pe > 0 ? se * 1e6 / pe : 0) }'
    [ -n "$profile" ] && echo "  $cc: $profile" >&2
done
