#!/usr/bin/env bash
# Scale-out over MPI ranks (issue "scale-out", docs/scale-out.md):
#  1. speed-up on this machine: Parsimon on the default scenario (200,000
#     flows), one process on 1 and 2 threads against mpirun with 1 and 2 ranks
#     of 1 thread (median of REPEATS; the outputs compared byte for byte);
#  2. memory per rank: peak RSS of each of 2 ranks, default scenario and the
#     6,144-host fabric (--cluster);
#  3. the cost of every link simulation of the 6,144-host fabric, measured on
#     one thread, and the simulated makespans of bench_scaleout at 1-512
#     ranks (with and without clustering), rendered into docs/scale-out.png
#     (bench_scaleout --replay COSTS SERIAL_S recomputes them from a costs file).
# usage: bench/scaleout.sh [OUT [BUILD [REPEATS [PARTS]]]]
#        (default out/scaleout build 3 123; PARTS: which of 1-3 to run)
# About 15 minutes on the project's 2-core machine.
set -eu
out=${1:-out/scaleout}
build=${2:-build}
reps=${3:-3}
parts=${4:-123}
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$build/tailor
export TAILOR_DATA=${TAILOR_DATA:-$src/data}
# as root; ranks unbound, so each may use threads; more ranks than cores is allowed
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
mkdir -p "$out"
cmake --build "$build" --target tailor-cli bench_scaleout >/dev/null
commit=$(git -C "$src" rev-parse --short HEAD)

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
secs() { # label, then the command: prints the wall time of each repeat
    local label=$1 r
    shift
    for r in $(seq "$reps"); do
        /usr/bin/time -f "%e" -o "$out/t" "$@" >/dev/null 2>"$out/err" ||
            { cat "$out/err" >&2; exit 1; }
        cat "$out/t"
    done | median | awk -v l="$label" -v c="$commit" '{ print "scaleout." l ".wall_s", $1, "s default", c }'
}

if [[ $parts == *1* ]]; then
echo "== 1. speed-up, Parsimon, default scenario (median of $reps)"
run="run --engine parsimon --quiet"
{
    secs one.t1 "$bin" $run -o "$out/one1" --threads 1
    secs one.t2 "$bin" $run -o "$out/one2" --threads 2
    secs ranks1.t1 mpirun -n 1 "$bin" $run -o "$out/r1" --threads 1
    secs ranks2.t1 mpirun -n 2 "$bin" $run -o "$out/r2" --threads 1
    secs ranks2.t2 mpirun -n 2 "$bin" $run -o "$out/r22" --threads 2
} | tee "$out/speedup.txt"
for d in one2 r1 r2 r22; do
    cmp -s "$out/one1/fct.csv" "$out/$d/fct.csv" || { echo "$d differs from one process" >&2; exit 1; }
done
echo "outputs: byte-identical"
fi

if [[ $parts == *2* ]]; then
echo "== 2. memory per rank (peak RSS, MiB)"
for s in default 6144; do
    if [ "$s" = 6144 ]; then args="$src/examples/fabric-6144.json --cluster"; else args=""; fi
    # shellcheck disable=SC2086
    /usr/bin/time -f "%M" -o "$out/m.one" "$bin" $run $args -o "$out/mem1" --threads 1
    # shellcheck disable=SC2016 # expanded by each rank's shell
    mpirun -n 2 bash -c '/usr/bin/time -f "%M" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
        "$out/m.rank" "$bin" $run $args -o "$out/mem2" --threads 1
    echo "scaleout.peak_rss_mib.one $(($(cat "$out/m.one") / 1024)) MiB $s $commit"
    for r in 0 1; do
        echo "scaleout.peak_rss_mib.rank$r $(($(cat "$out/m.rank.$r") / 1024)) MiB $s ranks=2 $commit"
    done
done | tee "$out/memory.txt"
fi

[[ $parts == *3* ]] || exit 0
echo "== 3. per-link costs of the 6,144-host fabric, simulated makespans"
for c in nocluster cluster; do
    "$build/bench_scaleout" 6144 "$c" 1 "$out/costs-$c.csv" "$out/makespans-$c.csv" |
        tee "$out/bench-$c.txt"
done
if command -v gnuplot >/dev/null; then
    gnuplot -e "nc='$out/makespans-nocluster.csv'; png='$src/docs/scale-out.png'" \
        "$src/bench/scaleout.gp"
    echo "plot: docs/scale-out.png"
fi
