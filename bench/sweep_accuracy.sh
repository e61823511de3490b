#!/usr/bin/env bash
# m3 counterfactual sweep against pktsim (issue "m3", docs/accuracy.md): one
# scenario of the accuracy suite (s10: 2:1, matrix B, WebServer, sigma 2,
# 50% max load, dctcp-rate), DCTCP's ECN threshold K at four values, each
# simulated with pktsim and estimated by one `tailor sweep` (m3 featurizes
# once and re-runs only the model), with and without the model.
#
#   bench/sweep_accuracy.sh [OUTDIR] [FLOWS]     defaults: out/accuracy/sweep, 200000
#
# Writes OUTDIR/{pktsim,m3,flowsim-m3}/vN/summary.json and OUTDIR/results.csv
# (one row per value and size bucket: p99 by each, errors) and prints them.
# pktsim runs are kept: a rerun recomputes only the estimates. Needs
# ./build/tailor (make build) and data/models/m3.model (or $M3_MODEL).
set -eu
out=${1:-out/accuracy/sweep}
flows=${2:-200000}
bin=${TAILOR:-./build/tailor}
values=1KB,2KB,3KB,4KB # K per Gb/s: 10-40 KB at 10 Gb/s (the default is 3KB)
mkdir -p "$out"
cat >"$out/scenario.json" <<EOF
{
  "name": "sweep-s10",
  "seed": 110,
  "topology": {"type": "fabric", "pods": 2, "racks_per_pod": 16, "hosts_per_rack": 8,
               "planes": 2, "oversubscription": 2,
               "host_link_bps": "10Gbps", "fabric_link_bps": "40Gbps", "link_delay_ns": 1000},
  "workload": {"flows": $flows, "classes": [{"name": "c", "sizes": {"cdf": "webserver"},
    "spatial": {"type": "matrix", "matrix": "B"},
    "arrival": {"process": "lognormal", "sigma": 2},
    "load": {"max_link_load": 0.50}}]},
  "transport": {"cc": "dctcp-rate"}
}
EOF
sets=(--set "switch.kmin_bytes_per_gbps=$values" --set "switch.kmax_bytes_per_gbps=$values")
if [ ! -s "$out/pktsim/v3/summary.json" ]; then
    "$bin" sweep "$out/scenario.json" --engine pktsim "${sets[@]}" -o "$out/pktsim" --quiet \
        >"$out/pktsim.txt"
fi
"$bin" sweep "$out/scenario.json" "${sets[@]}" ${M3_MODEL:+--model "$M3_MODEL"} -o "$out/m3" \
    --quiet >"$out/m3.txt"
"$bin" sweep "$out/scenario.json" "${sets[@]}" --no-model -o "$out/flowsim-m3" --quiet \
    >"$out/flowsim-m3.txt"
python3 - "$out" "$values" <<'PY'
import json, sys
out, values = sys.argv[1], sys.argv[2].split(",")
def p99(eng, v):
    s = json.load(open("%s/%s/v%d/summary.json" % (out, eng, v)))
    return {k: b["p99"] for k, b in s["buckets"].items()}
rows = ["K,bucket,p99_pktsim,p99_m3,err_m3,p99_flowsim_m3,err_flowsim_m3"]
print("%-5s %-8s %8s %8s %7s %8s %7s" % ("K", "bucket", "pktsim", "m3", "err", "flowsim", "err"))
errs = []
for v, k in enumerate(values):
    ref, est, fs = p99("pktsim", v), p99("m3", v), p99("flowsim-m3", v)
    for b in ref:
        e, f = est[b] / ref[b] - 1, fs[b] / ref[b] - 1
        if b == "all":
            errs.append(abs(e))
        rows.append("%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g" % (k, b, ref[b], est[b], e, fs[b], f))
        print("%-5s %-8s %8.3f %8.3f %+6.1f%% %8.3f %+6.1f%%" % (k, b, ref[b], est[b], 100 * e, fs[b], 100 * f))
open(out + "/results.csv", "w").write("\n".join(rows) + "\n")
print("m3 |p99 error| of all flows over the %d values: mean %.1f%%, max %.1f%%"
      % (len(errs), 100 * sum(errs) / len(errs), 100 * max(errs)))
PY
