#!/usr/bin/env bash
# Runs over MPI ranks as a user meets them (docs/scale-out.md): the same files
# as one process, byte for byte, for 1, 2 and 3 ranks on this machine; the
# commands that do not spread refused once, on every rank; a rank failing
# alone or dying ends the job without output.
# usage: mpi_test.sh TAILOR_BINARY SOURCE_DIR MPIEXEC
# (ctest sets the OMPI_* variables: root allowed, oversubscribed, unbound)
set -u
bin=$1
src=$2
mpiexec=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/check.sh
. "$src/tests/check.sh"
# mpirun with a deadline: a hang is a failure, not a stalled CI
mpi() { timeout 300 "$mpiexec" -n "$@"; }
# Every file of two output folders is the same (cmp, so a PNG counts too).
same_dirs() {
    local a=$1 b=$2 f
    [ -d "$a" ] && [ -d "$b" ] || return 1
    [ "$(cd "$a" && ls -A)" = "$(cd "$b" && ls -A)" ] || return 1
    for f in "$a"/*; do cmp -s "$f" "$b/${f##*/}" || return 1; done
}

# ---- byte identity: one process against 1, 2 and 3 ranks ----
# name | run arguments | rank/thread pairs to compare (threads 0: no --threads)
cases=(
    "incast|run $src/examples/incast-16to1.json --engine parsimon|1:1 2:1 3:2"
    "parsimon|run --engine parsimon --flow-count 20000|2:1 3:1"
    "cluster|run --engine parsimon --cluster --flow-count 20000|2:2 3:1"
    "m3|run --engine m3 --flow-count 20000|2:1 3:1"
    "tune|tune $src/examples/paraleon/hadoop.json --flow-count 1000 --oracle parsimon"\
" --knobs switch.kmin_bytes_per_gbps=1KB:8KB,dcqcn.ai_rate_bps --set tune.iters_per_temp=2"\
" --set tune.cooling=0.5 --set tune.step_frac=2 --objective p99@all|2:1 3:1"
    "topo|topo-bench --quick|2:0 3:0"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name args pairs <<<"$c"
    # shellcheck disable=SC2086 # args is a word list
    "$bin" $args -o "$tmp/$name.one" --quiet >/dev/null 2>"$tmp/err"
    check "$name: one process exits 0" test $? -eq 0
    for p in $pairs; do
        np=${p%:*} nt=${p#*:} thr=()
        [ "$nt" != 0 ] && thr=(--threads "$nt")
        # shellcheck disable=SC2086
        mpi "$np" "$bin" $args -o "$tmp/$name.np$np" "${thr[@]}" --quiet \
            >"$tmp/out.$name.$np" 2>"$tmp/err.$name.$np"
        check "$name: $np ranks x $nt threads exit 0" test $? -eq 0
        check "$name: $np ranks x $nt threads write the same files" \
            same_dirs "$tmp/$name.one" "$tmp/$name.np$np"
    done
done
check "run over 3 ranks prints its report once" \
    test "$(grep -c '^FCT slowdown per size bucket' "$tmp/out.incast.3")" -eq 1

# ---- refusals: exit 2, the message once, nothing written, no hang ----
refused() { # name, expected message part, command arguments...
    local name=$1 want=$2
    shift 2
    mpi 2 "$bin" "$@" >"$tmp/rout" 2>"$tmp/rerr"
    check "$name: exits 2" test $? -eq 2
    check "$name: says so once" test "$(grep -c -- "$want" "$tmp/rerr")" -eq 1
}
refused "params over 2 ranks" "does not spread over MPI ranks" params
refused "pktsim over 2 ranks" "engine 'pktsim' does not spread" \
    run --engine pktsim --flow-count 2000 -o "$tmp/pk"
check "pktsim over 2 ranks: no output folder" test ! -e "$tmp/pk"
refused "tune's closed loop over 2 ranks" "closed loop (--oracle pktsim) does not spread" \
    tune "$src/examples/paraleon/hadoop.json" -o "$tmp/tk"
refused "an output folder rank 0 cannot make" "cannot create the output folder" \
    run --engine parsimon --flow-count 2000 -o /proc/nonexistent/out

# ---- one rank fails alone (its TAILOR_DATA is missing): the job ends ----
timeout 300 "$mpiexec" -n 1 "$bin" run --engine parsimon --flow-count 2000 -o "$tmp/alone" \
    --quiet : -n 1 env TAILOR_DATA="$tmp/nonexistent" "$bin" run --engine parsimon \
    --flow-count 2000 -o "$tmp/alone" --quiet >/dev/null 2>"$tmp/aerr"
check "a rank failing alone: exit 2" test $? -eq 2
check "a rank failing alone: rank 0 names it and the phase" \
    grep -q "rank 1 failed before link simulations" "$tmp/aerr"
check "a rank failing alone: no output folder" test ! -e "$tmp/alone"
check "a rank failing alone: no temporary folder" \
    test -z "$(find "$tmp" -maxdepth 1 -name '.alone.tailor-tmp*')"

# ---- a rank with other inputs (here another seed: other flows) ----
timeout 300 "$mpiexec" -n 1 "$bin" run --engine parsimon --flow-count 20000 -o "$tmp/seeds" \
    --quiet : -n 1 "$bin" run --engine parsimon --flow-count 20000 --seed 5 -o "$tmp/seeds" \
    --quiet >/dev/null 2>"$tmp/serr"
check "a rank with other flows: exit 2" test $? -eq 2
check "a rank with other flows: rank 0 says whose inputs differ" \
    grep -q "rank 1's inputs differ from rank 0's (link simulations" "$tmp/serr"
check "a rank with other flows: no output folder" test ! -e "$tmp/seeds"

# ---- a rank killed mid-run: the job ends, nothing is left ----
mkdir "$tmp/kill"
# shellcheck disable=SC2016 # expanded by the rank's shell
timeout 300 "$mpiexec" -n 2 bash -c 'echo $$ >"$0/pid.$OMPI_COMM_WORLD_RANK"; exec "$@"' \
    "$tmp/kill" "$bin" run --engine parsimon -o "$tmp/kill/out" --threads 1 \
    >/dev/null 2>"$tmp/kerr" &
job=$!
# killed once rank 0 reports link simulations (progress every 5 s off a terminal)
for _ in $(seq 600); do grep -q "link simulations" "$tmp/kerr" && break; sleep 0.1; done
kill -KILL "$(cat "$tmp/kill/pid.1")" 2>/dev/null
wait "$job"
rc=$?
check "a killed rank: the job fails" test "$rc" -ne 0 -a "$rc" -ne 124
check "a killed rank: rank 0 names the links the ranks held" \
    grep -q "^  rank 1: link [0-9]" "$tmp/kerr"
check "a killed rank: no output folder" test ! -e "$tmp/kill/out"
check "a killed rank: no temporary folder" \
    test -z "$(find "$tmp/kill" -maxdepth 1 -name '.out.tailor-tmp*')"

check_summary
