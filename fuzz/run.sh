#!/usr/bin/env bash
# Runs every fuzzer of build-fuzz/fuzz/ (or those named on the command line) for
# FUZZ_SECONDS each, one after another, and prints per parser the executions
# and crashes. Exits non-zero if any fuzzer crashed (a crash, a leak, UB, a
# timeout over 10 s or more than 2 GB of memory), leaving its input in
# fuzz/crashes/<parser>/. fuzz/README.md explains the settings.
#   FUZZ_SECONDS  time per fuzzer (default 60)
#   FUZZ_BUILD    the fuzz build folder (default build-fuzz)
#   FUZZ_WORK     where the corpora grow (default $FUZZ_BUILD/corpus); the
#                 seeds of fuzz/corpus/<parser>/ are read, never written
#   FUZZ_RUNS     also stop each fuzzer after this many executions (0: no limit)
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD:-build-fuzz}
work=${FUZZ_WORK:-$build/corpus}
runs=${FUZZ_RUNS:-0}
if [ $# -gt 0 ]; then
    parsers=("$@")
else
    parsers=()
    for f in fuzz/fuzz_*.c; do
        p=${f#fuzz/fuzz_}
        parsers+=("${p%.c}")
    done
fi
# Data files named by scenarios (built-in CDFs and matrices) come from the source tree.
export TAILOR_DATA=${TAILOR_DATA:-$PWD/data}
# A crash is reported with its stack and ends the run; leaks are checked after every input.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OMP_NUM_THREADS=1
# The harnesses rewrite a temporary file per input: in memory it is 50x faster than on disk.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    export TMPDIR=/dev/shm
fi

total_crashes=0
summary=$(printf '%-14s %14s %8s %8s %s\n' parser executions exec/s crashes note)
for p in "${parsers[@]}"; do
    bin=$build/fuzz/fuzz_$p
    if [ ! -x "$bin" ]; then
        echo "fuzz/run.sh: no fuzzer $bin (make fuzz builds them)" >&2
        exit 2
    fi
    mkdir -p "$work/$p" "fuzz/crashes/$p"
    args=(-rss_limit_mb=2048 -timeout=10 -print_final_stats=1
          -artifact_prefix="fuzz/crashes/$p/")
    args+=(-max_total_time="$seconds")
    [ "$runs" -gt 0 ] && args+=(-runs="$runs")
    [ -f "fuzz/$p.dict" ] && args+=(-dict="fuzz/$p.dict")
    log=$work/$p.log
    budget="${seconds}s"
    [ "$runs" -gt 0 ] && budget="$runs runs or $budget"
    echo "== fuzz_$p ($budget)" >&2
    "$bin" "${args[@]}" "$work/$p" "fuzz/corpus/$p" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    crashes=0 note=""
    if [ $rc -ne 0 ]; then
        crashes=1
        note=$(grep -m1 -E "ERROR: |runtime error|Test unit written|fuzz: " "$log" | cut -c1-100)
        art=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
        [ -n "$art" ] && note="$note ($art)"
        echo "fuzz_$p crashed; its log:" >&2
        grep -v "^#[0-9]" "$log" | tail -60 >&2
    fi
    total_crashes=$((total_crashes + crashes))
    line=$(printf '%-14s %14s %8s %8s %s' "$p" "${execs:-?}" "${rate:-?}" "$crashes" "$note")
    echo "$line" >&2
    summary+=$'\n'"$line"
done
echo "$summary"
[ $total_crashes -eq 0 ]
