#!/usr/bin/env bash
# CLI behaviour as a user meets it: help and version, exit codes, located
# errors, no half-written output, --quiet, thread-count independence.
# usage: cli_test.sh TAILOR_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/check.sh
. "$src/tests/check.sh"

"$bin" --version >"$tmp/v" 2>&1
check "version exits 0" test $? -eq 0
check "version text" grep -q '^tailor [0-9]' "$tmp/v"
# A build without MPI started as one of several ranks would run the whole job
# on each: it refuses, and only rank 0 says why (docs/scale-out.md).
if grep -q "without MPI" "$tmp/v"; then
    OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 "$bin" params >/dev/null 2>"$tmp/nompi"
    check "no-MPI build under mpirun: exit 2" test $? -eq 2
    check "no-MPI build under mpirun: says why" grep -q "built without MPI" "$tmp/nompi"
    OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 "$bin" params >/dev/null 2>"$tmp/nompi1"
    check "no-MPI build under mpirun: rank 1 exits 2 too" test $? -eq 2
    check "no-MPI build under mpirun: rank 1 is silent" test ! -s "$tmp/nompi1"
fi
"$bin" --help >"$tmp/h"
check "help lists gen-flows" grep -q 'gen-flows' "$tmp/h"
check "help lists inspect" grep -q 'inspect' "$tmp/h"
"$bin" help gen-flows >"$tmp/h2"
check "help gen-flows shows --format" grep -q -- '--format' "$tmp/h2"
"$bin" help nosuch 2>/dev/null
check "help of unknown command exits 2" test $? -eq 2
"$bin" frobnicate 2>/dev/null
check "unknown command exits 2" test $? -eq 2
"$bin" gen-flows --bogus -o "$tmp/x.csv" 2>/dev/null
check "unknown option exits 2" test $? -eq 2

# The default scenario: 200,000 flows with the CSV header.
"$bin" gen-flows -o "$tmp/flows.csv" --quiet 2>"$tmp/q"
check "gen-flows default exits 0" test $? -eq 0
check "gen-flows --quiet prints nothing" test ! -s "$tmp/q"
check "default has 200000 flows" test "$(wc -l <"$tmp/flows.csv")" -eq 200001
check "CSV header" test "$(head -1 "$tmp/flows.csv")" = "id,src,dst,size,start_ns,class"

# Same seed, 1 and 2 threads: byte-identical.
"$bin" gen-flows -o "$tmp/t1.csv" --threads 1 --quiet --seed 7
"$bin" gen-flows -o "$tmp/t2.csv" --threads 2 --quiet --seed 7
check "threads do not change the output" cmp -s "$tmp/t1.csv" "$tmp/t2.csv"
check "seed changes the output" bash -c "! cmp -s '$tmp/t1.csv' '$tmp/flows.csv'"

# ns-3 format.
"$bin" gen-flows -o "$tmp/flow.txt" --format ns3 --quiet
check "ns3 first line is the count" test "$(head -1 "$tmp/flow.txt")" = "200000"

# A bad scenario: exit 2, message with file:line:col and JSON path, the old
# output untouched and no temporary left behind.
cat >"$tmp/bad.json" <<'JSON'
{
  "topology": {"type": "fabric", "pods": 2, "racks_per_pod": 16, "hosts_per_rack": 8,
               "planes": 2, "oversubscription": 2},
  "workload": {"flows": 100, "classes": [{"sizes": {"cdf": "webserver"},
               "spatial": {"type": "uniform"}, "load": {"max_link_loda": 0.5}}]}
}
JSON
echo old >"$tmp/keep.csv"
"$bin" gen-flows "$tmp/bad.json" -o "$tmp/keep.csv" 2>"$tmp/err"
check "bad scenario exits 2" test $? -eq 2
check "error names file:line:col" grep -q "bad.json:5:57: workload.classes\[0\].load.max_link_loda" "$tmp/err"
check "error suggests the key" grep -q "did you mean 'max_link_load'" "$tmp/err"
check "old output untouched" test "$(cat "$tmp/keep.csv")" = "old"
check "no temporary left" test "$(ls "$tmp" | grep -c '\.tmp')" -eq 0

# Missing scenario file and unwritable output.
"$bin" inspect "$tmp/none.json" 2>"$tmp/err"
check "missing scenario exits 2" test $? -eq 2
check "missing scenario named" grep -q "none.json" "$tmp/err"
"$bin" gen-flows -o /proc/tailor-test/f.csv --quiet 2>"$tmp/err"
check "unwritable output fails" test $? -ne 0
check "unwritable output named" grep -q "/proc" "$tmp/err"
"$bin" gen-flows "$src/examples/incast-16to1.json" -o "$tmp/no/such/dir/f.csv" --quiet 2>"$tmp/err"
check "missing parent folders of -o FILE are made" test -s "$tmp/no/such/dir/f.csv"

# inspect: counts of the default topology and the load line.
"$bin" inspect --quiet >"$tmp/insp"
check "inspect exits 0" test $? -eq 0
check "inspect counts" grep -q "308 nodes (256 hosts, 52 switches), 352 links" "$tmp/insp"
check "inspect oversubscription" grep -q "tier 2: .* 2.00:1" "$tmp/insp"
check "inspect path lengths" grep -q " 6: " "$tmp/insp"
# the fork's maxRtt and maxBdp on Parsimon's fabric (parsimon.md: 14.4 us, 18 KB), 3 MiB at 10 Gb/s
check "inspect fabric references" grep -q "largest base RTT 14.40 us and BDP 18000 B" "$tmp/insp"
check "inspect buffer from the host links" grep -q "switch buffer 3 MiB (from the host links)" "$tmp/insp"
"$bin" inspect --quiet --set switch.buffer_bytes=5000000 >"$tmp/insp2"
check "inspect buffer set by hand" grep -q "switch buffer 4.77 MiB$" "$tmp/insp2"
"$bin" inspect --flows "$tmp/flows.csv" --quiet >"$tmp/insp2"
check "inspect --flows reads the file" grep -q "200000 flows" "$tmp/insp2"
"$bin" inspect --set nic.mtu_byte=9000 2>"$tmp/err"
check "--set typo exits 2" test $? -eq 2
check "--set typo suggests" grep -q "did you mean 'nic.mtu_bytes'" "$tmp/err"

# Topology export round trip: a scenario of type "file" built from the export.
for fmt in parsimon ns3; do
    "$bin" export-topo -o "$tmp/topo.$fmt" --format $fmt 2>"$tmp/err"
    check "export-topo $fmt exits 0" test $? -eq 0
    cat >"$tmp/from_$fmt.json" <<JSON
{"topology": {"type": "file", "format": "$fmt", "path": "topo.$fmt"},
 "workload": {"flows": 1000, "classes": [{"sizes": {"cdf": "webserver"},
   "spatial": {"type": "uniform"}, "load": {"max_link_load": 0.5}}]}}
JSON
    "$bin" inspect "$tmp/from_$fmt.json" --quiet >"$tmp/insp3" 2>"$tmp/err"
    check "re-imported $fmt topology counts" grep -q "308 nodes (256 hosts, 52 switches), 352 links, 32 racks" "$tmp/insp3"
    check "re-imported $fmt tiers" grep -q "tier 2: .* 2.00:1" "$tmp/insp3"
done

# Uno (docs/uno.md): the artifact's 500-flow matrix from an htsim .cm file,
# and its FCT means within 10% of Uno's htsim fork, intra- and inter-DC apart
# (bench/uno/compare.sh; the fork's figures are stored beside it).
"$bin" run "$src/examples/uno/tm500.json" -o "$tmp/uno" --quiet >/dev/null
check "uno tm500 runs" test $? -eq 0
check "uno tm500 has 500 flows" test "$(wc -l <"$tmp/uno/fct.csv")" -eq 501
check "uno tm500 classes" test "$(grep -c ',inter$' "$tmp/uno/fct.csv")" -eq 96
sh "$src/bench/uno/compare.sh" "$(dirname "$bin")" >"$tmp/unocmp" 2>&1
check "uno compare runs" test $? -eq 0
for c in intra inter; do
    check "uno $c mean within 10% of htsim's" \
        awk -v c=$c '$1 == c {ok = $7 > 0.9 && $7 < 1.1} END {exit !ok}' "$tmp/unocmp"
done

# docs/parameters.md is the registry's own output.
"$bin" params --markdown >"$tmp/params.md"
check "docs/parameters.md matches the registry" cmp -s "$tmp/params.md" "$src/docs/parameters.md"
# docs/congestion-control.md: the plug-ins' own output, then the hand-written
# comparison with papers and references.
"$bin" params --cc-markdown >"$tmp/cc.md"
head -n "$(wc -l <"$tmp/cc.md")" "$src/docs/congestion-control.md" >"$tmp/cc-doc.md"
check "docs/congestion-control.md starts with the plug-ins' text" cmp -s "$tmp/cc.md" "$tmp/cc-doc.md"
check "docs/congestion-control.md has its comparison section" \
    grep -q '^## How each CC compares with its paper and reference' "$src/docs/congestion-control.md"

# tailor run with pktsim: result files, determinism, unknown engine.
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/run1" --quiet >"$tmp/runout"
check "run exits 0" test $? -eq 0
for f in fct.csv fct.txt summary.json links.csv; do
    check "run writes $f" test -s "$tmp/run1/$f"
done
check "run prints the bucket table" grep -q "50KB+ *16" "$tmp/runout"
check "fct.csv has 16 flows" test "$(wc -l <"$tmp/run1/fct.csv")" -eq 17
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/run2" --quiet >/dev/null
check "run is deterministic" cmp -s "$tmp/run1/fct.csv" "$tmp/run2/fct.csv"
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/runq" --quiet --queue-trace-us 50 >/dev/null
check "queue trace written" test "$(head -1 "$tmp/runq/queues.csv")" = "t_ns,chan,queue_bytes"
check "queue trace samples the bottleneck" grep -q "^50000.000,1," "$tmp/runq/queues.csv"
# PARALEON's monitor: its files, the same FCTs as without it
"$bin" run "$src/examples/paraleon/hadoop.json" -o "$tmp/runm" --quiet --flow-count 3000 --monitor \
    --set monitor.interval_ps=200us >"$tmp/mout"
check "run --monitor exits 0" test $? -eq 0
check "monitor_fsd.csv header" test "$(head -1 "$tmp/runm/monitor_fsd.csv")" = \
    "t_ms,p_paraleon,p_naive,p_netflow,p_true,acc_paraleon,acc_naive,acc_netflow,n_flows,n_true"
check "monitor_metrics.csv has an interval per 200 us" grep -q "^1.000,0\.[0-9]*,0\.[0-9]*,1.000000," \
    "$tmp/runm/monitor_metrics.csv"
for f in monitor_states.csv monitor_triggers.csv monitor.gp; do
    check "run --monitor writes $f" test -s "$tmp/runm/$f"
done
check "run --monitor reports accuracy" grep -q "^monitor: .* intervals, .* PARALEON 0\.9" "$tmp/mout"
"$bin" run "$src/examples/paraleon/hadoop.json" -o "$tmp/runm0" --quiet --flow-count 3000 >/dev/null
check "the monitor leaves FCTs as they were" cmp -s "$tmp/runm/fct.csv" "$tmp/runm0/fct.csv"
"$bin" run "$src/examples/paraleon/hadoop.json" -o "$tmp/runt" --quiet --flow-count 3000 --tune \
    --set monitor.interval_ps=100us >"$tmp/tout"
check "run --tune exits 0" test $? -eq 0
check "tune_trajectory.csv names the knobs" grep -q "^t_ms,state,u,temperature,p_elephant,dcqcn.ai_rate_bps," \
    "$tmp/runt/tune_trajectory.csv"
check "run --tune searches" grep -q ",search," "$tmp/runt/tune_trajectory.csv"
check "tune_setting.json is a transport block" grep -q '^  "dcqcn": {"ai_rate_bps": ' \
    "$tmp/runt/tune_setting.json"
check "run --tune reports its searches" grep -q "^tune: 1 searches" "$tmp/tout"
# tailor tune: the baselines in the loop's place, and offline with Parsimon
"$bin" tune "$src/examples/paraleon/hadoop.json" -o "$tmp/tacc" --quiet --flow-count 3000 \
    --scheme acc --set monitor.interval_ps=100us >"$tmp/tout"
check "tune --scheme acc exits 0" test $? -eq 0
check "tune --scheme acc traces ECN's thresholds" grep -q \
    "^t_ms,state,u,temperature,p_elephant,switch.kmin_bytes_per_gbps,switch.kmax_bytes_per_gbps,switch.pmax" \
    "$tmp/tacc/tune_trajectory.csv"
check "tune --scheme acc writes the run's results" test -s "$tmp/tacc/summary.json"
"$bin" tune "$src/examples/paraleon/hadoop.json" -o "$tmp/tt1" --quiet --flow-count 3000 \
    --set monitor.interval_ps=100us --threads 1 >/dev/null
"$bin" tune "$src/examples/paraleon/hadoop.json" -o "$tmp/tt2" --quiet --flow-count 3000 \
    --set monitor.interval_ps=100us --threads 2 >/dev/null
check "tune: the closed loop is the same on 1 and 2 threads" \
    cmp -s "$tmp/tt1/tune_trajectory.csv" "$tmp/tt2/tune_trajectory.csv"
check "tune: ... and so are its FCTs" cmp -s "$tmp/tt1/fct.csv" "$tmp/tt2/fct.csv"
check "tune: the closed loop searched" grep -q ",search," "$tmp/tt1/tune_trajectory.csv"
"$bin" tune "$src/examples/paraleon/hadoop.json" -o "$tmp/toff" --quiet --flow-count 1000 \
    --oracle parsimon --knobs switch.kmin_bytes_per_gbps=1KB:8KB,switch.kmax_bytes_per_gbps,dcqcn.ai_rate_bps \
    --set tune.iters_per_temp=2 --set tune.cooling=0.5 --set tune.step_frac=2 --objective p99@all \
    >"$tmp/tout"
check "tune --oracle parsimon exits 0" test $? -eq 0
check "tune_offline.csv: a row per candidate (4 temperatures x 2)" \
    test "$(wc -l <"$tmp/toff/tune_offline.csv")" -eq 9
check "tune_validation.csv: start and best, by parsimon and pktsim" \
    test "$(cut -d, -f1,2 "$tmp/toff/tune_validation.csv" | tr '\n' ' ')" = \
    "setting,source start,parsimon start,pktsim best,parsimon best,pktsim "
check "tune: Kmin stays inside its search range [1000, 8000]" \
    awk -F, 'NR > 1 && ($7 < 1000 || $7 > 8000) { bad = 1 } NR > 1 { n++ } END { exit bad || !n }' \
    "$tmp/toff/tune_offline.csv"
check "tune prints estimate beside truth" grep -q "^  best .* [0-9.]* *[0-9.]*$" "$tmp/tout"
# the preset file it wrote is what a run reads back
"$bin" run "$src/examples/paraleon/hadoop.json" -o "$tmp/tpre" --quiet --flow-count 1000 \
    --preset-file "$tmp/toff/tune_setting.json" >/dev/null
check "run --preset-file exits 0" test $? -eq 0
best_truth=$(awk -F, '$1 == "best" && $2 == "pktsim" {print $3}' "$tmp/toff/tune_validation.csv")
run_p99=$(awk '/"all": [{]/ { a = 1 } a && /"p99":/ { gsub(/[^0-9.e+-]/, "", $2); print $2; exit }' \
    "$tmp/tpre/summary.json")
check "run --preset-file reproduces the validation run ($best_truth vs $run_p99)" \
    awk -v a="$best_truth" -v b="$run_p99" 'BEGIN { exit !(a > 0 && (a - b) ^ 2 < 1e-6 * a * a) }'
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/run3" --engine m4 2>"$tmp/err" >/dev/null
check "unknown engine exits 2" test $? -eq 2
check "unknown engine named" grep -q "unknown engine 'm4'" "$tmp/err"
"$bin" run "$src/examples/parking-lot-4hop.json" -o "$tmp/runfs" --quiet >"$tmp/fsout"
check "flowsim run (the example's engine) exits 0" test $? -eq 0
check "flowsim writes the summary" test -s "$tmp/runfs/summary.json"
check "flowsim reports its work per event" grep -q "links and .* flows refilled per event" "$tmp/fsout"

# parsimon: the same incast decomposed into its links (every sender's first hop, the
# links between and the receiver's last hop), with 1 and 2 threads and with clustering.
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/runps1" --engine parsimon --threads 1 >"$tmp/psout"
check "parsimon run exits 0" test $? -eq 0
check "parsimon reports its links" grep -q "^parsimon: 16 flows, .* busy links" "$tmp/psout"
# the profile line: CPU, packets and events per packet of each case's runs
check "parsimon profiles its link simulations" grep -q "^link simulations' CPU .*: first hop [0-9.]* s ([0-9.]*M, [1-9][0-9.]*); middle .*; last hop .* [0-9.]*M events in all" "$tmp/psout"
check "parsimon writes the common results" test -s "$tmp/runps1/fct.csv" -a -s "$tmp/runps1/summary.json"
check "parsimon summary names its engine" grep -q '"engine": "parsimon"' "$tmp/runps1/summary.json"
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/runps2" --engine parsimon --threads 2 --quiet >/dev/null
check "parsimon is the same on 2 threads" cmp -s "$tmp/runps1/fct.csv" "$tmp/runps2/fct.csv"
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/runps3" --engine parsimon --cluster >"$tmp/psout3"
check "parsimon --cluster prunes links" grep -q "[1-9][0-9]* pruned by clustering" "$tmp/psout3"
# The incast's spine-to-leaf links carry what one leaf-to-spine link sent: pass-through,
# not simulated unless --no-passthrough.
check "parsimon skips pass-through links" grep -q ", [1-9][0-9]* pass-through;" "$tmp/psout"
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/runps4" --engine parsimon --no-passthrough \
    >"$tmp/psout4"
check "parsimon --no-passthrough simulates every link" grep -q "busy links: 25 simulated.*, 0 pass-through;" "$tmp/psout4"
# --no-residual: the paper's link simulations, as "residual": false in the scenario says.
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/runps5" --engine parsimon --no-residual \
    --quiet >/dev/null
sed 's/"engine": {"name": "pktsim"}/"engine": {"name": "parsimon", "residual": false}/' \
    "$src/examples/incast-16to1.json" >"$tmp/nores.json"
"$bin" run "$tmp/nores.json" -o "$tmp/runps6" --quiet >/dev/null
check "parsimon --no-residual is engine.residual false" cmp -s "$tmp/runps5/fct.csv" "$tmp/runps6/fct.csv"
check "parsimon's residual context changes the estimate" test -n "$(cmp "$tmp/runps1/fct.csv" "$tmp/runps5/fct.csv")"
"$bin" compare "$tmp/run1" "$tmp/runps1" -o "$tmp/cmpps" --quiet >/dev/null
check "compare pktsim vs parsimon" test -s "$tmp/cmpps/compare.json"
sed 's/"engine": {"name": "pktsim"}/"engine": {"name": "parsimon", "cluster": "yes"}/' \
    "$src/examples/incast-16to1.json" >"$tmp/badps.json"
"$bin" run "$tmp/badps.json" -o "$tmp/badps" 2>"$tmp/err" >/dev/null
check "bad parsimon option exits 2" test $? -eq 2
check "bad parsimon option located" grep -q "badps.json:[0-9]*:[0-9]*: engine.cluster: expected true or false" "$tmp/err"
check "bad parsimon option writes nothing" test ! -e "$tmp/badps"
sed 's/"engine": {"name": "pktsim"}/"engine": {"name": "parsimon", "passthrough": 1}/' \
    "$src/examples/incast-16to1.json" >"$tmp/badpt.json"
"$bin" run "$tmp/badpt.json" -o "$tmp/badpt" 2>"$tmp/err" >/dev/null
check "bad passthrough option located" grep -q "badpt.json:[0-9]*:[0-9]*: engine.passthrough: expected true or false, found" "$tmp/err"
sed 's/"engine": {"name": "pktsim"}/"engine": {"name": "parsimon", "residual": "no"}/' \
    "$src/examples/incast-16to1.json" >"$tmp/badres.json"
"$bin" run "$tmp/badres.json" -o "$tmp/badres" 2>"$tmp/err" >/dev/null
check "bad residual option located" grep -q "badres.json:[0-9]*:[0-9]*: engine.residual: expected true or false, found" "$tmp/err"

# PFC: with a 20 KB XOFF the incast pauses its links; run prints and summary.json keeps the
# share of the run they were paused, flowsim (no PFC) leaves it null, and compare notes both.
pfc=(--cc dcqcn --set switch.pfc=1 --set switch.pfc_shift=0 --set switch.pfc_xoff_bytes=20000
     --set switch.pfc_xon_bytes=10000)
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/runpfc" "${pfc[@]}" >"$tmp/pfcout" 2>&1
check "PFC incast exits 0" test $? -eq 0
check "run prints the paused share" grep -q "PFC: links paused [0-9.]*% of the run on average" \
    "$tmp/pfcout"
check "summary.json has a paused share" grep -q '"paused_fraction": 0\.[0-9]*[1-9]' \
    "$tmp/runpfc/summary.json"
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/runpfcfs" --engine flowsim "${pfc[@]}" \
    --quiet >/dev/null
check "flowsim: paused share not modeled" grep -q '"paused_fraction": null' \
    "$tmp/runpfcfs/summary.json"
"$bin" compare "$tmp/runpfc" "$tmp/runpfcfs" -o "$tmp/cmppfc" >/dev/null 2>"$tmp/err"
check "compare notes the pauses" grep -q "PFC: links paused .*reference [0-9.]*% on average.*estimate not modeled" "$tmp/err"

# compare: the pktsim incast (run1, the reference) against flowsim on the same scenario.
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/runfs16" --engine flowsim --quiet >/dev/null
check "flowsim incast exits 0" test $? -eq 0
"$bin" compare "$tmp/run1" "$tmp/runfs16" -o "$tmp/cmp/sub" >"$tmp/cmpout" 2>"$tmp/err"
check "compare exits 0" test $? -eq 0
check "compare table has p99" grep -q "p99" "$tmp/cmpout"
check "compare table row" grep -q "^  50KB+ *16 *16 " "$tmp/cmpout"
check "compare: empty bucket has no error" grep -q "^  0-1KB *0 *0 *- *- *-" "$tmp/cmpout"
check "compare table per class" grep -q "^class incast:" "$tmp/cmpout"
if command -v python3 >/dev/null; then
    check "compare.json parses" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['ref_engine'] == 'pktsim' and d['est_engine'] == 'flowsim', d
assert d['ref'].endswith('run1') and d['est'].endswith('runfs16')
b = d['buckets']
assert b['all']['ref']['count'] == 16 and b['all']['est']['count'] == 16
assert b['0-1KB']['error']['p99'] is None
e = b['all']['error']['p99']; r = b['all']['ref']['p99']; s = b['all']['est']['p99']
assert abs(e - (s - r) / r) < 1e-9, (e, r, s)
assert set(d['classes']) == {'incast'}
" "$tmp/cmp/sub/compare.json"
else
    check "compare.json written" grep -q '"est_engine": "flowsim"' "$tmp/cmp/sub/compare.json"
fi
# 2 buckets with flows (50KB+, all) x 2 runs x 16 flows, under a header.
check "compare_cdf.csv rows" test "$(wc -l <"$tmp/cmp/sub/compare_cdf.csv")" -eq 65
check "compare_cdf.csv header" test "$(head -1 "$tmp/cmp/sub/compare_cdf.csv")" = "bucket,engine,slowdown,cdf"
if command -v gnuplot >/dev/null; then
    check "compare.png written" test -s "$tmp/cmp/sub/compare.png"
fi
check "no temporary left by compare" test "$(ls "$tmp/cmp/sub" | grep -c '\.tmp')" -eq 0
"$bin" compare "$tmp/run1" "$tmp/runfs16" --quiet >/dev/null 2>"$tmp/q"
check "compare writes into EST_DIR by default" test -s "$tmp/runfs16/compare.json"
check "compare --quiet prints nothing on stderr" test ! -s "$tmp/q"
PATH=/nonexistent "$bin" compare "$tmp/run1" "$tmp/runfs16" -o "$tmp/cmpng" >/dev/null 2>"$tmp/err"
check "compare without gnuplot exits 0" test $? -eq 0
check "compare without gnuplot says so" grep -q "gnuplot" "$tmp/err"
check "compare without gnuplot keeps the CSV" test -s "$tmp/cmpng/compare_cdf.csv"
mkdir -p "$tmp/nofct"
cp "$tmp/run1/summary.json" "$tmp/nofct/"
"$bin" compare "$tmp/nofct" "$tmp/runfs16" -o "$tmp/cmpnf" >/dev/null 2>"$tmp/err"
check "compare without fct.csv exits 0" test $? -eq 0
check "compare without fct.csv notes it" grep -q "nofct/fct.csv" "$tmp/err"
check "compare without fct.csv gives that run's percentiles as CDF points" \
    test "$(grep -c '^all,pktsim,[0-9.]*,0.\(5\|9\|99\|999\)$' "$tmp/cmpnf/compare_cdf.csv")" -eq 4
check "and the other run's whole CDF" \
    test "$(grep -c '^all,flowsim,' "$tmp/cmpnf/compare_cdf.csv")" -eq 16
check "and plots the percentiles as points" grep -q "'pktsim' ? .* with points" "$tmp/cmpnf/compare.gp"
if command -v gnuplot >/dev/null; then
    check "compare without fct.csv draws the plot" test -s "$tmp/cmpnf/compare.png"
fi
"$bin" compare "$tmp/run1" "$tmp/nosuchrun" -o "$tmp/cmpbad" 2>"$tmp/err" >/dev/null
check "compare of a missing folder exits 2" test $? -eq 2
check "compare names the missing folder" grep -q "nosuchrun" "$tmp/err"
check "compare of a missing folder writes nothing" test ! -e "$tmp/cmpbad"
mkdir -p "$tmp/badrun"
printf '{"engine": "x",\n "unfinished": 0, "buckets": {}, "classes": {}, "extra": 1}\n' >"$tmp/badrun/summary.json"
"$bin" compare "$tmp/badrun" "$tmp/run1" -o "$tmp/cmpbad" 2>"$tmp/err" >/dev/null
check "compare of a bad summary exits 2" test $? -eq 2
check "compare names the bad summary's line and key" grep -q "badrun/summary.json:2:.*extra" "$tmp/err"
check "compare of a bad summary writes nothing" test ! -e "$tmp/cmpbad"

# --cc switches the congestion control (and its default preset: PFC on for dcqcn).
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/runcc" --quiet --cc dcqcn --preset dcqcn.expert >"$tmp/runccout"
check "run --cc dcqcn exits 0" test $? -eq 0
check "dcqcn incast finishes every flow without drops" grep -q "16/16 flows done.* 0 drops" "$tmp/runccout"
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/runcc2" --quiet --cc cubic 2>"$tmp/err" >/dev/null
check "unknown --cc exits 2" test $? -eq 2

# throughput: the paper's flattened-butterfly example and errors.
"$bin" throughput "flattened_butterfly:k=5,n=2,servers=5" --tm longest-matching --cuts --save-tm "$tmp/lm.tm" >"$tmp/tput"
check "throughput exits 0" test $? -eq 0
# Its longest matching ties with others; this one gets 0.6 (the sparsest cut), the hand
# matching of test_tput_solvers 0.5.
check "throughput of the FB example" grep -q "^throughput: 0.6 " "$tmp/tput"
check "sparsest cut of the FB example" grep -q "^sparsest cut: 0.6 " "$tmp/tput"
"$bin" throughput "flattened_butterfly:k=5,n=2,servers=5" --tm "$tmp/lm.tm" >"$tmp/tput2"
check "a saved TM reproduces the result" grep -q "^throughput: 0.6 " "$tmp/tput2"
"$bin" throughput "jellyfish:switches=40,degree=5,servers=2" --tm all-to-all --method approx --eps 0.05 >"$tmp/tput3"
check "approx reports its certified gap" grep -q "certified within" "$tmp/tput3"
check "all-to-all prints Theorem 2 for free" grep -q "^lower bound (Theorem 2" "$tmp/tput3"
check "other TMs skip Theorem 2's second solve" bash -c '! grep -q "Theorem 2" "$1"' _ "$tmp/tput"
"$bin" throughput "flattened_butterfly:k=5,n=2,servers=5" --theorem2 >"$tmp/tput4"
check "--theorem2 solves all-to-all too" grep -q "^lower bound (Theorem 2.*all-to-all: " "$tmp/tput4"
# A stopped approximation prints the certified bounds it reached: at its time limit
# (exit 0) and on Ctrl-C (exit 130), sent once the solve has begun.
"$bin" throughput "jellyfish:switches=300,degree=10,servers=5" --method approx --eps 0.0001 \
    --time-limit 1 --quiet >"$tmp/tl"
check "--time-limit exits 0" test $? -eq 0
check "--time-limit prints bounds and why" grep -q "certified within .*stopped early: time limit" "$tmp/tl"
"$bin" throughput "jellyfish:switches=300,degree=10,servers=5" --method approx --eps 0.0001 \
    >"$tmp/int" 2>"$tmp/interr" &
pid=$!
for _ in $(seq 600); do grep -q "^traffic matrix" "$tmp/int" && break; sleep 0.1; done
sleep 1
kill -INT $pid
wait $pid
check "Ctrl-C exits 130" test $? -eq 130
check "Ctrl-C prints the bounds reached" grep -q "certified within .*stopped early: interrupted" "$tmp/int"
# A full-bisection fat tree beats random graphs that keep its servers on its edge switches
# but loses (paper Table I: 65% under all-to-all) to ones that spread them over all switches.
"$bin" throughput fat_tree:k=8 --tm all-to-all --method approx --eps 0.05 --relative 2 >"$tmp/ft1"
"$bin" throughput fat_tree:k=8 --tm all-to-all --method approx --eps 0.05 --relative 2 \
    --spread-servers >"$tmp/ft2"
check "fat tree above its kept-servers random graphs" \
    awk '/^relative throughput/ { exit !($3 > 1.2) }' "$tmp/ft1"
check "fat tree below its spread-servers random graphs" \
    awk '/^relative throughput/ { exit !($3 < 0.8) }' "$tmp/ft2"
"$bin" throughput "dragonfy:a=4,p=2,h=2" 2>"$tmp/err" >/dev/null
check "unknown family exits 2" test $? -eq 2
check "unknown family suggests" grep -q "did you mean 'dragonfly'" "$tmp/err"
printf '0 1 1\n0 999 1\n' >"$tmp/bad.tm"
"$bin" throughput "hypercube:dim=3,servers=1" --tm "$tmp/bad.tm" 2>"$tmp/err" >/dev/null
check "TM naming a missing node exits 2" test $? -eq 2
check "TM error names the line" grep -q "bad.tm:2:1: node 999 does not exist" "$tmp/err"
"$bin" topo-bench --quick -o "$tmp/tb" --quiet >"$tmp/tbout"
check "topo-bench --quick exits 0" test $? -eq 0
check "topo-bench writes the CSV" test "$(wc -l <"$tmp/tb/topo-bench.csv")" -eq 11
check "topo-bench writes Table I" grep -q "| jellyfish |" "$tmp/tb/table.md"

# No user string reaches a shell: a folder named like an injection is just a
# folder, and gnuplot still draws in it.
mkdir -p "$tmp/inj" && (cd "$tmp/inj" && "$bin" topo-bench --quick --quiet --relative 2 \
    -o "x'; touch INJ; echo '" >/dev/null 2>&1)
check "topo-bench into a folder named like an injection exits 0" test $? -eq 0
check "and runs no command" test ! -e "$tmp/inj/INJ"
check "and writes its table there" test -s "$tmp/inj/x'; touch INJ; echo '/table.md"
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/bob's runs" --quiet >/dev/null
check "-o with a quote works" test -s "$tmp/bob's runs/summary.json"

# An output folder is replaced whole: a flowsim run into a pktsim run's
# folder leaves no links.csv of the old run beside the new files.
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/reuse" --quiet >/dev/null
"$bin" compare "$tmp/reuse" "$tmp/reuse" --quiet >/dev/null
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/reuse" --engine flowsim --quiet >/dev/null
check "a reused folder keeps no stale links.csv" test ! -e "$tmp/reuse/links.csv"
check "nor a stale compare.json" test ! -e "$tmp/reuse/compare.json"
check "summary.json records its run" grep -q '"flows_hash"' "$tmp/reuse/summary.json"

# Interrupted at any moment, a run leaves the old result whole and no
# temporary: SIGINT and SIGTERM while pktsim runs (with a queue trace).
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/intr" --quiet >/dev/null
cp "$tmp/intr/fct.csv" "$tmp/intr-before.csv"
for sig in INT TERM; do
    "$bin" run -o "$tmp/intr" --queue-trace-us 1 --quiet >/dev/null 2>&1 &
    pid=$!
    sleep 3
    kill -$sig $pid
    wait $pid
    check "SIG$sig ends the run by the signal" test $? -gt 128
    check "SIG$sig leaves the old result whole" cmp -s "$tmp/intr/fct.csv" "$tmp/intr-before.csv"
    check "SIG$sig leaves no temporary" test -z "$(ls -A "$tmp" | grep tailor-tmp)"
    check "SIG$sig leaves no queues.csv" test ! -e "$tmp/intr/queues.csv"
done
"$bin" run -o "$tmp/intr-new/deep" --quiet >/dev/null 2>&1 &
pid=$!
sleep 3
kill -INT $pid
wait $pid
check "an interrupted first run leaves no folder it made" test ! -e "$tmp/intr-new"

# Runs of different flows are not compared unless asked.
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/seed2" --seed 2 --engine flowsim --quiet >/dev/null
"$bin" run "$src/examples/incast-16to1.json" -o "$tmp/seed1" --engine flowsim --quiet >/dev/null
"$bin" compare "$tmp/seed1" "$tmp/reuse" --quiet >/dev/null 2>&1
check "compare of the same flows exits 0" test $? -eq 0
"$bin" compare "$tmp/seed1" "$tmp/seed2" --quiet >/dev/null 2>"$tmp/err"
check "compare of different flows exits 2" test $? -eq 2
"$bin" compare "$tmp/seed1" "$tmp/seed2" --force --quiet >/dev/null 2>&1
check "compare --force compares them" test $? -eq 0

# sweep writes nothing without -o (its full runs go to a scratch folder, not
# ./out/sweep), --quiet silences its table, and a knob flowsim ignores warns.
mkdir -p "$tmp/swcwd"
scratch_before=$(ls -A "${TMPDIR:-/tmp}" | grep -c "tailor-sweep")
(cd "$tmp/swcwd" && "$bin" sweep "$src/examples/incast-16to1.json" --engine flowsim \
    --set switch.kmin_bytes_per_gbps=1KB,3KB >"$tmp/swout" 2>"$tmp/swerr")
check "a flowsim sweep without -o exits 0" test $? -eq 0
check "and writes nothing in the working folder" test -z "$(ls -A "$tmp/swcwd")"
check "and leaves no scratch folder" \
    test "$(ls -A "${TMPDIR:-/tmp}" | grep -c "tailor-sweep")" -eq "$scratch_before"
check "and prints its table" test "$(grep -c '^  [0-9]' "$tmp/swout")" -eq 2
check "and warns that flowsim does not read Kmin" \
    grep -q "flowsim does not read switch.kmin_bytes_per_gbps" "$tmp/swerr"
"$bin" sweep "$src/examples/incast-16to1.json" --engine flowsim --quiet -o "$tmp/swq" \
    --set nic.mtu_bytes=1000,1500 >"$tmp/swout" 2>"$tmp/swerr"
check "sweep --quiet -o exits 0" test $? -eq 0
check "and prints nothing" test ! -s "$tmp/swout"
check "and writes a summary per value" test -s "$tmp/swq/v1/summary.json"
check "a knob flowsim reads is swept without a warning" test ! -s "$tmp/swerr"

# Help matches the program.
"$bin" help help >"$tmp/h" 2>&1
check "help help exits 0" test $? -eq 0
"$bin" help run >"$tmp/h"
check "help run says m3 writes paths.csv" grep -q "paths.csv" "$tmp/h"
"$bin" help params >"$tmp/h"
check "help params says --markdown prints" grep -q -- "--markdown prints" "$tmp/h"

# Every shipped example parses, inspects and runs (cut to 300 flows).
for f in "$src"/examples/*.json "$src"/examples/*/*.json; do
    b=$(basename "$(dirname "$f")")-$(basename "$f" .json)
    "$bin" inspect "$f" --quiet >/dev/null 2>"$tmp/err"
    check "example $b inspects" test $? -eq 0
    "$bin" run "$f" --flow-count 300 -o "$tmp/ex-$b" --quiet >/dev/null 2>"$tmp/err"
    check "example $b runs with its own engine and CC" test $? -eq 0
    check "example $b completes its flows" \
        grep -q '"unfinished": 0' "$tmp/ex-$b/summary.json"
done

check_summary
