#!/usr/bin/env bash
# The throughput-scale table (bench/README.md): Jellyfish with degree 24 and 12 servers
# per switch, longest and random matching, eps 0.02, at 2,000 / 5,000 / 10,000 switches,
# one process per case (peak memory is per case). Each solve stops at LIMIT seconds
# (default 600) and then reports the certified bounds it reached.
#   bench/throughput_scale.sh [BUILD] [LIMIT] [SIZES...]
set -euo pipefail
build=${1:-build}
limit=${2:-600}
shift $(( $# > 2 ? 2 : $# ))
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(2000 5000 10000)
for n in "${sizes[@]}"; do
  for tm in longest random; do
    "$build/bench_throughput" approx "$n" "$tm" "$limit"
  done
done
