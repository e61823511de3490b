#!/usr/bin/env bash
# m3 from the CLI: training data (gen-data and its kinds), training, the engine
# with a trained or shipped model, sweeps and compare on its summary-only runs.
# Split from cli_test.sh so ctest runs the two halves side by side.
# usage: cli_m3_test.sh TAILOR_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/check.sh
. "$src/tests/check.sh"

# m3's training pipeline in miniature (a few dozen small samples, a small
# model), then the engine with that model, a sweep, and compare on a summary-only run.
"$bin" m3 gen-data "$tmp/m3d" --samples 40 --fg-flows 300 --max-flows 2000 --quiet >"$tmp/m3g"
check "m3 gen-data exits 0" test $? -eq 0
check "m3 gen-data writes 40 samples" test "$(grep -vc '^#' "$tmp/m3d/samples.csv")" -eq 40
"$bin" m3 gen-data "$tmp/m3d" --samples 40 --seed 2 --quiet 2>"$tmp/err" >/dev/null
check "m3 gen-data refuses other settings in the same folder" test $? -eq 2
check "m3 gen-data says why" grep -q "other settings" "$tmp/err"
"$bin" m3 train "$tmp/m3d" -o "$tmp/m3.model" --trees 20 --depth 4 --quiet >"$tmp/m3t"
check "m3 train exits 0" test $? -eq 0
check "m3 train writes its log" grep -q "held-out samples" "$tmp/m3.model.log"
cat >"$tmp/m3s.json" <<'JSON'
{"topology": {"type": "fabric", "pods": 2, "racks_per_pod": 4, "hosts_per_rack": 4,
  "planes": 2, "oversubscription": 2},
 "workload": {"flows": 3000, "classes": [{"sizes": {"cdf": "webserver"},
   "spatial": {"type": "uniform"}, "arrival": {"process": "poisson"},
   "load": {"max_link_load": 0.4}}]},
 "transport": {"cc": "dctcp-rate"}}
JSON
"$bin" run "$tmp/m3s.json" --engine m3 --model "$tmp/m3.model" --paths 50 -o "$tmp/m3r" --quiet >"$tmp/m3o"
check "run --engine m3 exits 0" test $? -eq 0
check "m3 writes a summary only" test -f "$tmp/m3r/summary.json" -a ! -f "$tmp/m3r/fct.csv"
check "m3 summary names its engine" grep -q '"engine": "m3"' "$tmp/m3r/summary.json"
check "m3 writes paths.csv, one row per distinct drawn path" \
    test "$(tail -n +2 "$tmp/m3r/paths.csv" | wc -l)" -ge 10 -a "$(head -1 "$tmp/m3r/paths.csv" | cut -d, -f1-2)" = "path,draws"
"$bin" run "$tmp/m3s.json" --engine m3 --path-pktsim --paths 20 -o "$tmp/m3p" --quiet >"$tmp/m3po"
check "run --engine m3 --path-pktsim exits 0" test $? -eq 0
check "m3 --path-pktsim says so" grep -q "pktsim on each path" "$tmp/m3po"
"$bin" m3 gen-data "$tmp/m3fab" --kind fabric --samples 400 --cc dctcp-rate --quiet >/dev/null
check "m3 gen-data --kind fabric writes ten scenarios of 40 paths" \
    test "$(grep -vc '^#' "$tmp/m3fab/fabric.csv")" -eq 400
"$bin" m3 gen-data "$tmp/m3fab2" --kind fabric --samples 400 --cc dctcp-rate --truth-from "$tmp/m3fab" \
    --quiet >/dev/null
check "m3 gen-data --truth-from remakes a folder byte for byte" \
    cmp -s "$tmp/m3fab/fabric.csv" "$tmp/m3fab2/fabric.csv"
"$bin" m3 gen-data "$tmp/m3fab3" --kind fabric --samples 400 --cc hpcc --truth-from "$tmp/m3fab" \
    --quiet 2>"$tmp/err" >/dev/null
check "--truth-from refuses a folder made with other settings" test $? -eq 2
check "--truth-from says why" grep -q "same settings" "$tmp/err"
"$bin" m3 gen-data "$tmp/m3net" --kind fabric-net --samples 1 --seed 4 --cc dctcp-rate --quiet >/dev/null
check "m3 gen-data --kind fabric-net writes one scenario of 200 paths" \
    test "$(grep -vc '^#' "$tmp/m3net/fabric.csv")" -eq 200
check "fabric-net samples say their truth" grep -q "paths 200,.*truth network" "$tmp/m3net/fabric.csv"
"$bin" m3 gen-data "$tmp/m3mix" --kind fabric --sizes mixture --samples 40 --cc dctcp-rate --quiet >/dev/null
check "m3 gen-data --sizes mixture writes one scenario" test "$(grep -vc '^#' "$tmp/m3mix/fabric.csv")" -eq 40
check "mixture samples say so" grep -q "sizes mixture" "$tmp/m3mix/fabric.csv"
check "mixture samples leave no size-law file behind" test "$(ls -A "$tmp/m3mix")" = fabric.csv
"$bin" m3 gen-data "$tmp/m3mix2" --sizes mixture --samples 4 --quiet 2>"$tmp/err" >/dev/null
check "--sizes mixture without a fabric kind is refused" test $? -eq 2
"$bin" m3 gen-data "$tmp/m3mix3" --kind fabric --sizes mixture3 --samples 40 --cc dctcp-rate --quiet >/dev/null
check "three-part mixture samples say so" grep -q "sizes mixture3, labels [0-9]*$" "$tmp/m3mix3/fabric.csv"
check "three-part and two-part mixtures draw different flows" \
    test "$(sed -n 2p "$tmp/m3mix/fabric.csv")" != "$(sed -n 2p "$tmp/m3mix3/fabric.csv")"
"$bin" m3 gen-data "$tmp/m3mix3" --kind fabric --sizes mixture --samples 80 --cc dctcp-rate --quiet 2>"$tmp/err" >/dev/null
check "a three-part folder is not extended with two-part samples" test $? -eq 2
"$bin" m3 gen-data "$tmp/m3mix2" --sizes mixture3 --samples 4 --quiet 2>"$tmp/err" >/dev/null
check "--sizes mixture3 without a fabric kind is refused, by name" grep -q "sizes mixture3 needs" "$tmp/err"
"$bin" m3 gen-data "$tmp/m3meas" --kind fabric --sizes measured --samples 40 --cc dctcp-rate --quiet >/dev/null
check "measured-law samples say so" grep -q "sizes measured, labels [0-9]*$" "$tmp/m3meas/fabric.csv"
check "measured-law samples leave no size-law file behind" test "$(ls -A "$tmp/m3meas")" = fabric.csv
"$bin" m3 gen-data "$tmp/m3meas2" --kind fabric --sizes measure --samples 40 --quiet 2>"$tmp/err" >/dev/null
check "an unknown --sizes is refused" test $? -eq 2
check "an unknown --sizes names the choices" grep -q "table2, mixture, mixture3 or measured, found 'measure'" "$tmp/err"
"$bin" m3 gen-data "$tmp/m3loc" --kind fabric --traffic local --samples 80 --cc dctcp-rate --quiet >/dev/null
check "m3 gen-data --traffic local writes two scenarios" test "$(grep -vc '^#' "$tmp/m3loc/fabric.csv")" -eq 80
check "rack-local samples say so" grep -q "traffic local" "$tmp/m3loc/fabric.csv"
check "rack-local samples leave no matrix file behind" test "$(ls -A "$tmp/m3loc")" = fabric.csv
"$bin" m3 gen-data "$tmp/m3loc2" --traffic local --samples 4 --quiet 2>"$tmp/err" >/dev/null
check "--traffic local without a fabric kind is refused" test $? -eq 2
"$bin" m3 gen-data "$tmp/m3loc3" --kind fabric --traffic nearby --samples 4 --quiet 2>"$tmp/err" >/dev/null
check "--traffic with an unknown value is refused" grep -q "expects uniform, local or skew, found 'nearby'" "$tmp/err"
"$bin" m3 gen-data "$tmp/m3skew" --traffic skew --samples 4 --quiet 2>"$tmp/err" >/dev/null
check "--traffic skew without a fabric kind is refused" test $? -eq 2
check "... and says so" grep -q "traffic skew needs --kind fabric" "$tmp/err"
"$bin" m3 gen-data "$tmp/m3long" --kind fabric --length long --samples 40 --cc dctcp-rate --quiet >/dev/null
check "m3 gen-data --length long writes one scenario" test "$(grep -vc '^#' "$tmp/m3long/fabric.csv")" -eq 40
check "long samples say their byte range" grep -q "flows 200000, .*bytes 1e+09-1.6e+10" "$tmp/m3long/fabric.csv"
check "long samples carry more flows than short ones" \
    test "$(sed -n 2p "$tmp/m3long/fabric.csv" | cut -d, -f4)" -gt "$(sed -n 2p "$tmp/m3fab/fabric.csv" | cut -d, -f4)"
"$bin" m3 gen-data "$tmp/m3long2" --length long --samples 4 --quiet 2>"$tmp/err" >/dev/null
check "--length long without a fabric kind is refused" test $? -eq 2
check "... and says so" grep -q "length long needs --kind fabric" "$tmp/err"
"$bin" m3 gen-data "$tmp/m3long3" --kind fabric --length medium --samples 4 --quiet 2>"$tmp/err" >/dev/null
check "--length with an unknown value is refused" grep -q "expects short or long, found 'medium'" "$tmp/err"
"$bin" m3 gen-data "$tmp/m3pfc" --samples 2 --fg-flows 50 --max-flows 500 --pfc on --quiet >/dev/null
check "m3 gen-data --pfc on says so in the header" grep -q "^# .*quantiles [0-9]*, pfc shift 3, pfc on, hpcc ranges 2, labels [0-9]*$" "$tmp/m3pfc/samples.csv"
"$bin" m3 gen-data "$tmp/m3pfc" --samples 4 --fg-flows 50 --max-flows 500 --quiet 2>"$tmp/err" >/dev/null
check "a --pfc on folder is not extended with drawn PFC" grep -q "other settings" "$tmp/err"
"$bin" m3 gen-data "$tmp/m3pfc2" --pfc maybe --samples 4 --quiet 2>"$tmp/err" >/dev/null
check "--pfc with an unknown value is refused" grep -q "expects drawn, on or off, found 'maybe'" "$tmp/err"
"$bin" m3 train "$tmp/m3fab" -o "$tmp/m3fab.model" --trees 10 --depth 3 --quiet >/dev/null
check "m3 train on fabric paths logs the pinball loss" grep -q "valid-pinball" "$tmp/m3fab.model.log"
check "a fabric-trained model carries its calibration shifts" grep -aq '"shift": \[' "$tmp/m3fab.model"
check "one calibration scenario is too few to calibrate" \
    grep -q "no calibration: 1 calibration scenarios (every twentieth), fewer than 50" "$tmp/m3fab.model.log"
check "... and the shifts are all 0" \
    test -z "$(grep -ao '"shift": \[[^]]*\]' "$tmp/m3fab.model" | grep -o '[-0-9.e]*[1-9][0-9.e-]*')"
"$bin" m3 train "$tmp/m3fab" -o "$tmp/m3cal.model" --trees 10 --depth 3 --calib-min 1 --quiet >/dev/null
check "--calib-min 1 calibrates on the one scenario" grep -q "calibration shift (log space) .*(mixture, 1 calibration scenarios)" "$tmp/m3cal.model.log"
check "... and reports the mixture against the pooled flows" grep -q "^mixture of the report scenarios' paths" "$tmp/m3cal.model.log"
"$bin" m3 train "$tmp/m3fab" -o "$tmp/m3cal0.model" --calib-min 0 --quiet 2>"$tmp/err" >/dev/null
check "--calib-min 0 is refused" grep -q "calib-min expects an integer in 1..100000000, found '0'" "$tmp/err"
"$bin" m3 train "$tmp/m3fab" -o "$tmp/m3cv.model" --trees 10 --depth 3 --calib-folds 3 --quiet >/dev/null
check "--calib-folds 3 calibrates out of fold" \
    grep -q "calibration shift (log space) .*(mixture, out of fold, 3 folds of the training scenarios)" "$tmp/m3cv.model.log"
"$bin" m3 train "$tmp/m3fab" -o "$tmp/m3cv1.model" --calib-folds 1 --quiet 2>"$tmp/err" >/dev/null
check "--calib-folds 1 is refused" grep -q "calib-folds expects an integer in 2..20, found '1'" "$tmp/err"
"$bin" m3 calibrate "$tmp/m3fab.model" "$tmp/m3fab" "$tmp/m3loc" -o "$tmp/m3re.model" >"$tmp/out"
check "m3 calibrate exits 0 and names its model" grep -q "m3 calibrate: model $tmp/m3re.model" "$tmp/out"
check "... which says its calibration and data" grep -aq '"calibration": "mixture", "shift": \[.*"calibration_data": "tailor m3 fabric paths: .*traffic local' "$tmp/m3re.model"
check "... sets shifts where training set none" \
    test -n "$(grep -ao '"shift": \[[^]]*\]' "$tmp/m3re.model" | grep -o '[-0-9.e]*[1-9][0-9.e-]*')"
check "... keeps the trees byte for byte" \
    test "$(tail -c 3000 "$tmp/m3re.model" | md5sum)" = "$(tail -c 3000 "$tmp/m3fab.model" | md5sum)"
check "... keeps the training log and adds its own" \
    sh -c "grep -q valid-pinball '$tmp/m3re.model.log' && grep -q 'recalibrated (tailor m3 calibrate) on 480 paths' '$tmp/m3re.model.log'"
"$bin" run "$tmp/m3s.json" --engine m3 --model "$tmp/m3re.model" --paths 50 -o "$tmp/m3rr" --quiet >/dev/null
check "run --engine m3 reads a recalibrated model" test $? -eq 0
"$bin" run "$tmp/m3s.json" --engine m3 --model "$tmp/m3fab.model" --paths 50 -o "$tmp/m3rr0" --quiet >/dev/null
check "... and its estimate moves with the shifts" \
    test "$(grep -o '"p99": [0-9.e+-]*' "$tmp/m3rr/summary.json" | md5sum)" != "$(grep -o '"p99": [0-9.e+-]*' "$tmp/m3rr0/summary.json" | md5sum)"
"$bin" m3 calibrate "$tmp/m3fab.model" "$tmp/nosuch" 2>"$tmp/err" >/dev/null
check "m3 calibrate without samples exits 2" test $? -eq 2
check "... naming the file it looked for" grep -q "nosuch/fabric.csv: expected fabric paths" "$tmp/err"
"$bin" m3 calibrate "$tmp/m3fab.model" 2>"$tmp/err" >/dev/null
check "m3 calibrate needs a folder" grep -q "expected a model file and at least one fabric samples folder, found 1 argument" "$tmp/err"
"$bin" m3 calibrate 2>"$tmp/err" >/dev/null
check "m3 calibrate without arguments exits 2" test $? -eq 2
check "... naming the model and the folder" grep -q "expected a model file and at least one fabric samples folder, found 0 arguments" "$tmp/err"
"$bin" m3 gen-data "$tmp/m3fabh" --kind fabric --samples 40 --cc hpcc --quiet >/dev/null
"$bin" m3 calibrate "$tmp/m3fab.model" "$tmp/m3fabh" -o "$tmp/m3reh.model" 2>"$tmp/err" >/dev/null
check "m3 calibrate refuses samples of another CC" grep -q "trained on dctcp-rate samples; the calibration folders hold hpcc paths" "$tmp/err"
check "... and writes no model" test ! -e "$tmp/m3reh.model"
"$bin" m3 train "$tmp/m3fab" -o "$tmp/m3rf.model" --trees 10 --depth 3 --leaf-refit --quiet >/dev/null
check "--leaf-refit trains and says so in the log" grep -q "seed 0, leaf refit (each tree" "$tmp/m3rf.model.log"
check "... and in the model's metadata" grep -aq '"leaf_refit": true' "$tmp/m3rf.model"
check "... and its trees differ from the unrefitted ones" test "$(tail -c 2000 "$tmp/m3rf.model" | md5sum)" != "$(tail -c 2000 "$tmp/m3fab.model" | md5sum)"
check "a model without it records no leaf_refit" test -z "$(grep -ao leaf_refit "$tmp/m3fab.model")"
"$bin" m3 train "$tmp/m3fab" "$tmp/m3loc" -o "$tmp/m3two.model" --trees 10 --depth 3 --quiet >/dev/null
check "m3 train takes two folders" test $? -eq 0
check "a two-folder training reads both folders' paths" grep -q "^paths 480 " "$tmp/m3two.model.log"
check "a two-folder model records both folders' data" grep -aq "traffic local, labels [0-9]*\"" "$tmp/m3two.model"
"$bin" m3 train "$tmp/m3fab" "$tmp/m3net" -o "$tmp/m3bad.model" --quiet 2>"$tmp/err" >/dev/null
check "m3 train refuses folders with other paths per fabric" grep -q "expected 40 paths per scenario" "$tmp/err"
check "and writes no model" test ! -e "$tmp/m3bad.model"
"$bin" run "$tmp/m3s.json" --engine m3 --model "$tmp/m3fab.model" --paths 50 -o "$tmp/m3fr" --quiet >/dev/null
check "run --engine m3 with a fabric-trained model exits 0" test $? -eq 0
"$bin" m3 gen-data "$tmp/m3h" --samples 12 --fg-flows 300 --max-flows 2000 --cc hpcc --quiet >/dev/null
"$bin" m3 train "$tmp/m3h" -o "$tmp/m3h.model" --trees 5 --depth 3 --quiet >/dev/null
"$bin" run "$tmp/m3s.json" --engine m3 --model "$tmp/m3h.model" --paths 50 -o "$tmp/m3y" --quiet 2>"$tmp/err" >/dev/null
check "m3 refuses a model trained on other CCs" test $? -eq 2
check "m3 says which CCs the model knows" grep -q "trained on hpcc samples only" "$tmp/err"
# Without --model, a model of the scenario's own CC (models/m3-CC.model in the data
# folder) comes first: here the hpcc one, for the same scenario run with hpcc.
mkdir -p "$tmp/data/models"
cp "$tmp/m3h.model" "$tmp/data/models/m3-hpcc.model"
TAILOR_DATA="$tmp/data" "$bin" run "$tmp/m3s.json" --engine m3 --cc hpcc --paths 50 -o "$tmp/m3hh" \
    >"$tmp/m3hh.out" 2>"$tmp/err"
check "m3 picks the scenario's CC model" test $? -eq 0
check "and the run names the model file it read" grep -q "; model $tmp/data/models/m3-hpcc.model\$" "$tmp/m3hh.out"
TAILOR_DATA="$tmp/data" "$bin" run "$tmp/m3s.json" --engine m3 --paths 50 -o "$tmp/m3hd" \
    --quiet >/dev/null 2>"$tmp/err"
check "m3 falls back to m3.model for other CCs" test $? -eq 0
TAILOR_DATA="$tmp/data" "$bin" sweep "$tmp/m3s.json" --cc hpcc --paths 50 \
    --set hpcc.eta=0.9,0.95 >"$tmp/m3hsw" 2>/dev/null
check "a sweep names the model file too" grep -q "(m3, model $tmp/data/models/m3-hpcc.model)" "$tmp/m3hsw"
"$bin" run "$tmp/m3s.json" --engine m3 --no-model --paths 50 -o "$tmp/m3nm" >"$tmp/m3nm.out"
check "a run without a model names none" sh -c "grep -q 'flowsim only' '$tmp/m3nm.out' && ! grep -q '; model ' '$tmp/m3nm.out'"
# The shipped models (data/models): dctcp-rate, HPCC, DCQCN and TIMELY have one each.
for cc in dctcp-rate hpcc dcqcn timely; do
    "$bin" run "$tmp/m3s.json" --engine m3 --cc $cc --paths 50 -o "$tmp/m3ship-$cc" --quiet \
        >/dev/null 2>"$tmp/err"
    check "the shipped models estimate a $cc scenario" test $? -eq 0
done
# data/models/accuracy.json gives each shipped model's measured accuracy, found
# by the file's CRC-32: printed with the run, a warning when it misses the goal
"$bin" run "$tmp/m3s.json" --engine m3 --cc dcqcn --paths 50 -o "$tmp/m3acc" --quiet \
    >"$tmp/out" 2>"$tmp/err"
check "a DCQCN run prints its model's accuracy on the suite" \
    grep -q "accuracy of this model on 12 dcqcn scenarios of the suite" "$tmp/out"
check "and warns that it misses the goal, naming Parsimon's figure" \
    grep -q "m3's dcqcn model misses the accuracy goal.*where Parsimon is at" "$tmp/err"
check "and that it cannot tell a PFC storm, naming the suite's" \
    grep -q "m3 does not model PFC pauses.*(the suite's: d11 and t11" "$tmp/err"
"$bin" run "$tmp/m3s.json" --engine m3 --paths 50 -o "$tmp/m3acc" --quiet >"$tmp/out" 2>"$tmp/err"
check "a dctcp-rate run prints its model's accuracy, per bucket and at p99.9" \
    grep -q "accuracy of this model on 24 dctcp-rate scenarios.*the p99.9 of all flows 6.4% mean" "$tmp/out"
check "and warns that its largest p99 error misses the goal's 15%" \
    grep -q "m3's dctcp-rate model misses the accuracy goal.*17.6% max (s22)" "$tmp/err"
# every shipped model is measured: a model file replaced without its figures
# in accuracy.json would print none
for cc in hpcc timely; do
    "$bin" run "$tmp/m3s.json" --engine m3 --cc $cc --paths 50 -o "$tmp/m3acc" --quiet \
        >"$tmp/out" 2>/dev/null
    check "a $cc run prints its model's accuracy on the suite" \
        grep -q "accuracy of this model on 12 $cc scenarios of the suite" "$tmp/out"
done
"$bin" run "$tmp/m3s.json" --engine m3 --model "$tmp/m3.model" --paths 50 -o "$tmp/m3acc" \
    --quiet >"$tmp/out" 2>"$tmp/err"
check "a model trained here has no accuracy figures" \
    sh -c "! grep -q 'accuracy of this model' '$tmp/out' && test ! -s '$tmp/err'"
mkdir -p "$tmp/acc/models"
cp "$src/data/models/m3-dcqcn.model" "$tmp/acc/models/"
# the model's CRC-32, bytes 20-23 of its header, little-endian
dcqcn_crc=0x$(od -An -tx1 -j20 -N4 "$src/data/models/m3-dcqcn.model" | awk '{ print $4 $3 $2 $1 }')
printf '{"goal": {"mean_pct": 5, "max_pct": 15},\n "models": [{"crc32": "%s"\n' "$dcqcn_crc" \
    >"$tmp/acc/models/accuracy.json"
TAILOR_DATA="$tmp/acc" "$bin" run "$tmp/m3s.json" --engine m3 --cc dcqcn --paths 50 \
    -o "$tmp/m3acc2" --quiet >"$tmp/out" 2>"$tmp/err"
check "a broken accuracy file does not stop the run" test $? -eq 0
check "and is named, with its line, in a warning" \
    grep -q "no accuracy figures for the model: $tmp/acc/models/accuracy.json:3:" "$tmp/err"
printf '{"goal": {"mean_pct": 5, "max_pct": 15},\n "models": [{"crc32": "%s",\n  "cc": "dcqcn", "max_at": "d11", "scenarios": 12, "mean_pct": "high"}]}\n' "$dcqcn_crc" \
    >"$tmp/acc/models/accuracy.json"
TAILOR_DATA="$tmp/acc" "$bin" run "$tmp/m3s.json" --engine m3 --cc dcqcn --paths 50 \
    -o "$tmp/m3acc2" --quiet >"$tmp/out" 2>"$tmp/err"
check "an entry with a bad member names its JSON path" \
    grep -q "accuracy.json:3:[0-9]*: models\[0\].mean_pct: expected a number >= 0, found a string" \
    "$tmp/err"
# Parsimon's figures per CC, and the regime they were measured in: a run
# outside it (paused more than any suite scenario) warns, naming the
# measure; so does compare on its estimate.
"$bin" run "$tmp/m3s.json" --engine parsimon --cc dcqcn -o "$tmp/pacc" >"$tmp/out" 2>"$tmp/err"
check "a Parsimon DCQCN run prints Parsimon's accuracy under DCQCN" \
    grep -q "accuracy of Parsimon (default options) on 12 dcqcn scenarios.*worst size bucket's p99" \
    "$tmp/out"
# the shipped entries name the options a run records (engine_options): a
# change to that string must come with the file's
check "the shipped defaults' entry matches a default run's options" \
    sh -c "! grep -q 'have no figures' '$tmp/err'"
for cc in dcqcn timely; do
    sed 's/"transport": {"cc": "dctcp-rate"}}/"transport": {"cc": "dctcp-rate"},\
 "engine": {"share_sources": true, "norm_pkts": 20}}/' "$tmp/m3s.json" >"$tmp/shipshare.json"
    "$bin" run "$tmp/shipshare.json" --engine parsimon --cc $cc -o "$tmp/pacc5" >"$tmp/out" \
        2>"$tmp/err"
    check "the shipped $cc entry of share_sources and norm_pkts 20 matches such a run" \
        sh -c "grep -q 'Parsimon (share_sources, norm_pkts 20) on' '$tmp/out' &&
               ! grep -q 'have no figures' '$tmp/err'"
done
paused=$(grep -o '"paused_fraction_max": [0-9.e-]*' "$tmp/pacc/summary.json" | awk '{ print $2 }')
check "its links paused (the regime checks below rely on it)" \
    awk -v p="$paused" 'BEGIN { exit !(p > 0.02) }'
acc_file() { # paused_fraction_max
    printf '{"goal": {"mean_pct": 5, "max_pct": 15}, "models": [],\n "parsimon": [],\n' \
        >"$tmp/acc/models/accuracy.json"
    printf ' "regime": {"paused_fraction_max": %s, "paused_note": "x01",\n' "$1" \
        >>"$tmp/acc/models/accuracy.json"
    printf '  "storms": "x03 and x04"}}\n' >>"$tmp/acc/models/accuracy.json"
}
acc_file 0.02
TAILOR_DATA="$tmp/acc" "$bin" run "$tmp/m3s.json" --engine parsimon --cc dcqcn -o "$tmp/pacc2" \
    --quiet >/dev/null 2>"$tmp/err"
check "a run paused more than the suite's most warns, naming the measure and the bound" \
    grep -q "outside the regime.*paused_fraction_max [0-9.]*% (.*) is above 2.00%.*: x01;" "$tmp/err"
TAILOR_DATA="$tmp/acc" "$bin" compare "$tmp/pacc" "$tmp/pacc" --quiet >/dev/null 2>"$tmp/err"
check "compare warns of the estimate's regime too" \
    grep -q "tailor compare: warning: outside the regime.*paused_fraction_max" "$tmp/err"
acc_file 0.9
TAILOR_DATA="$tmp/acc" "$bin" run "$tmp/m3s.json" --engine parsimon --cc dcqcn -o "$tmp/pacc2" \
    --quiet >/dev/null 2>"$tmp/err"
check "a run paused less does not" sh -c "! grep -q 'outside the regime' '$tmp/err'"
TAILOR_DATA="$tmp/acc" "$bin" run "$tmp/m3s.json" --engine m3 --cc dcqcn --paths 50 \
    -o "$tmp/pacc3" --quiet >/dev/null 2>"$tmp/err"
check "m3 under PFC warns that it cannot see pauses, naming the suite's storms" \
    grep -q "m3 does not model PFC pauses (paused_fraction: null).*(the suite's: x03 and x04)" \
    "$tmp/err"
# Parsimon's figures are those of the run's engine options: an entry per set
# of options measured, the CC's first entry its defaults, which a run with
# options no entry names gets, with a warning saying so.
dflt='cluster=0 passthrough=-1 residual=-1 norm_pkts=0 pfc_by_channel=0 share_sources=0'
dflt="$dflt max_from_bytes=-1"
share='cluster=0 passthrough=-1 residual=-1 norm_pkts=20 pfc_by_channel=0 share_sources=1'
share="$share max_from_bytes=-1"
acc_opts() { # options member of the defaults' entry ("" leaves it out)
    printf '{"goal": {"mean_pct": 5, "max_pct": 15}, "models": [], "parsimon": [\n' \
        >"$tmp/acc/models/accuracy.json"
    printf ' {"cc": "dcqcn", %s"label": "default options", "scenarios": 3,\n' "$1" \
        >>"$tmp/acc/models/accuracy.json"
    printf '  "mean_pct": 9, "max_pct": 20, "max_at": "x02"},\n' >>"$tmp/acc/models/accuracy.json"
    printf ' {"cc": "dcqcn", "options": "%s", "label": "both", "scenarios": 2,\n' "$share" \
        >>"$tmp/acc/models/accuracy.json"
    printf '  "mean_pct": 3, "max_pct": 4, "max_at": "x01", "default_mean_pct": 8}]}\n' \
        >>"$tmp/acc/models/accuracy.json"
}
acc_opts "\"options\": \"$dflt\", "
sed 's/"transport": {"cc": "dctcp-rate"}}/"transport": {"cc": "dctcp-rate"},\
 "engine": {"share_sources": true, "norm_pkts": 20}}/' "$tmp/m3s.json" >"$tmp/m3share.json"
TAILOR_DATA="$tmp/acc" "$bin" run "$tmp/m3share.json" --engine parsimon --cc dcqcn \
    -o "$tmp/pacc4" >"$tmp/out" 2>"$tmp/err"
check "a run with measured options prints their entry and the defaults' mean beside it" \
    grep -q "Parsimon (both) on 2 dcqcn.*error| 3.0%, max 4.0% (x01).*default options: 8.0% mean" \
    "$tmp/out"
check "and no warning of unmeasured options" sh -c "! grep -q 'have no figures' '$tmp/err'"
TAILOR_DATA="$tmp/acc" "$bin" run "$tmp/m3share.json" --engine parsimon --cc dcqcn --cluster \
    -o "$tmp/pacc4" >"$tmp/out" 2>"$tmp/err"
check "a run with options no entry names prints the defaults' figures" \
    grep -q "Parsimon (default options) on 3 dcqcn.*error| 9.0%" "$tmp/out"
check "and warns, naming its options" \
    grep -q "this run's engine options (cluster=1 .* max_from_bytes=-1) have no figures" "$tmp/err"
TAILOR_DATA="$tmp/acc" "$bin" run "$tmp/m3s.json" --engine parsimon --cc dcqcn \
    -o "$tmp/pacc4" >"$tmp/out" 2>"$tmp/err"
check "a run with the default options prints the defaults' entry, without a warning" \
    sh -c "grep -q 'Parsimon (default options) on 3' '$tmp/out' && ! grep -q 'figures' '$tmp/err'"
acc_opts ""
TAILOR_DATA="$tmp/acc" "$bin" run "$tmp/m3s.json" --engine parsimon --cc dcqcn \
    -o "$tmp/pacc4" >/dev/null 2>"$tmp/err"
check "a Parsimon entry without its options names the JSON path" \
    grep -q "accuracy.json:2:[0-9]*: parsimon\[0\]: expected a member \"options\"" "$tmp/err"
"$bin" run "$tmp/m3s.json" --engine m3 --cc timely --model "$src/data/models/m3.model" --paths 50 \
    -o "$tmp/m3ship-timely2" --quiet >/dev/null 2>"$tmp/err"
check "the dctcp-rate model refuses TIMELY, and the error says so" \
    grep -q "trained on dctcp-rate samples only and the scenario uses timely" "$tmp/err"
"$bin" run "$tmp/m3s.json" --engine flowsim -o "$tmp/m3f" --quiet >/dev/null
"$bin" compare "$tmp/m3f" "$tmp/m3r" --quiet >"$tmp/m3c"
check "compare takes a summary-only estimate" grep -q "0-1KB" "$tmp/m3c"
check "and plots its percentiles" grep -q "with points pt 7 ps 1.5 lc 2 title 'm3" "$tmp/m3r/compare.gp"
"$bin" sweep "$tmp/m3s.json" --model "$tmp/m3.model" --paths 50 \
    --set switch.kmin_bytes_per_gbps=1KB,3KB --set switch.kmax_bytes_per_gbps=1KB,3KB >"$tmp/m3w" \
    2>/dev/null
check "sweep exits 0" test $? -eq 0
check "sweep prints one row per value" test "$(grep -c '^  [0-9]' "$tmp/m3w")" -eq 2
"$bin" sweep "$tmp/m3s.json" --model "$tmp/m3.model" --paths 50 \
    --set nic.mtu_bytes=1000,1500 >"$tmp/m3mtu" 2>/dev/null
check "a sweep of a knob flowsim reads (MTU) runs" test $? -eq 0
check "the MTU sweep gives two different rows" \
    test "$(grep '^  [0-9]' "$tmp/m3mtu" | cut -c8- | sort -u | wc -l)" -eq 2
# TIMELY's reference waits behind a burst queue of T_low (schema 5): a T_low
# sweep must featurize again, so each value equals a run made with it
sed 's/"dctcp-rate"/"timely"/' "$tmp/m3s.json" >"$tmp/m3t.json"
"$bin" sweep "$tmp/m3t.json" --paths 50 --quiet --set timely.t_low_ps=25us,100us -o "$tmp/m3tw" >/dev/null
check "a T_low sweep under TIMELY runs (shipped TIMELY model)" test $? -eq 0
"$bin" run "$tmp/m3t.json" --engine m3 --paths 50 --set timely.t_low_ps=25us -o "$tmp/m3t25" --quiet >/dev/null
check "the T_low sweep's 25 us row is the run at 25 us" \
    test "$(grep '"p99"' "$tmp/m3tw/v0/summary.json")" = "$(grep '"p99"' "$tmp/m3t25/summary.json")"
check "T_low moves the estimate" \
    test "$(grep '"p99"' "$tmp/m3tw/v0/summary.json")" != "$(grep '"p99"' "$tmp/m3tw/v1/summary.json")"
# TIMELY's T_high beyond the 100-500 us its training drew: the run warns,
# naming the value and the range; inside it, not
"$bin" run "$tmp/m3t.json" --engine m3 --paths 50 --set timely.t_high_ps=900us \
    -o "$tmp/m3t900" --quiet >/dev/null 2>"$tmp/err"
check "a run with T_high outside the TIMELY model's training runs" test $? -eq 0
check "and warns, naming the value and the range" \
    grep -q "timely.t_high_ps = 900us is outside the range m3's timely training.*(100us to 500us)" \
        "$tmp/err"
"$bin" run "$tmp/m3t.json" --engine m3 --paths 50 --set timely.t_high_ps=300us \
    -o "$tmp/m3t300" --quiet >/dev/null 2>"$tmp/err"
check "a run with T_high inside the range runs" test $? -eq 0
check "T_high inside the range does not warn" sh -c "! grep -q 'is outside the range' '$tmp/err'"
# the TIMELY model's folders were all made lossless (gen-data --pfc on):
# a lossy TIMELY scenario is outside them, and the run says so
"$bin" run "$tmp/m3t.json" --engine m3 --paths 50 --set switch.pfc=0 \
    -o "$tmp/m3tpfc" --quiet >/dev/null 2>"$tmp/err"
check "a lossy run under the TIMELY model runs" test $? -eq 0
check "and warns that the model saw lossless fabrics only" \
    grep -q "m3-timely.model was trained on lossless fabrics only (switch.pfc 1); switch.pfc 0" \
        "$tmp/err"
# the dctcp-rate model's folders drew PFC either way: no such warning
"$bin" run "$tmp/m3s.json" --engine m3 --paths 50 --set switch.pfc=1 \
    -o "$tmp/m3spfc" --quiet >/dev/null 2>"$tmp/err"
check "a lossless run under the dctcp-rate model does not warn of its folders" \
    sh -c "test -s '$tmp/m3spfc/summary.json' && ! grep -q 'fabrics only' '$tmp/err'"
# an offline tune with m3 as its oracle checks the ends of each searched
# knob's range: Kmin from 1 KB (below DCQCN's 2-5 KB) to 4 KB
"$bin" tune -o "$tmp/m3tune" --cc dcqcn --oracle m3 --knobs switch.kmin_bytes_per_gbps=1KB:4KB \
    --flow-count 2000 --paths 50 --set tune.iters_per_temp=1 --quiet >/dev/null 2>"$tmp/err"
check "a tune with m3 as its oracle runs" test $? -eq 0
check "and warns of the search's end below the training's Kmin" \
    grep -q "tailor tune: warning: switch.kmin_bytes_per_gbps = 1KB is outside the range" "$tmp/err"
check "and not of the end inside it" sh -c "! grep -q '= 4KB is outside' '$tmp/err'"
# DCQCN's queue term reads Kmax as well as Kmin (schema 7): a Kmax sweep
# re-queues the kept reference, and each value equals a run made with it
sed 's/"dctcp-rate"/"dcqcn"/' "$tmp/m3s.json" >"$tmp/m3d.json"
"$bin" sweep "$tmp/m3d.json" --paths 50 --set switch.kmax_bytes_per_gbps=8KB,32KB \
    -o "$tmp/m3dw" >"$tmp/out" 2>"$tmp/err"
check "a Kmax sweep under DCQCN runs (shipped DCQCN model)" test $? -eq 0
check "and prints the model's accuracy after its table" \
    sh -c "tail -2 '$tmp/out' | grep -q 'accuracy of this model on 12 dcqcn'"
check "and warns that 32 KB lies outside the Kmax range the DCQCN model was trained on" \
    grep -q "kmax_bytes_per_gbps = 32KB is outside the range m3's dcqcn training.*(5KB to 20KB)" \
        "$tmp/err"
check "a sweep of a knob the model reads warns of nothing else (8 KB is inside)" \
    test -z "$(grep -v -e 'misses the accuracy goal' -e 'does not model PFC' -e '^\[' \
        -e '= 32KB is outside' "$tmp/err")"
# the scenario's own knobs are checked once, the swept ones per value: a
# Kmax of 32 KB set outright warns once beside a Kmin sweep inside range
"$bin" sweep "$tmp/m3d.json" --paths 50 --set switch.kmax_bytes_per_gbps=32KB \
    --set switch.kmin_bytes_per_gbps=3KB,4KB >/dev/null 2>"$tmp/err"
check "a Kmin sweep with Kmax set outside its range runs" test $? -eq 0
check "and warns of Kmax once, of Kmin not" \
    test "$(grep -c 'is outside the range' "$tmp/err")" = 1 -a \
        "$(grep -c 'kmax_bytes_per_gbps = 32KB is outside' "$tmp/err")" = 1
# DCQCN's rates are not among the model's inputs: the sweep says so
"$bin" sweep "$tmp/m3d.json" --paths 50 --set dcqcn.ai_rate_bps=5Mbps,50Mbps \
    >"$tmp/m3dai" 2>"$tmp/err"
check "a sweep of a knob the model does not read runs" test $? -eq 0
check "and warns that the model does not read it" \
    grep -q "m3's model does not read dcqcn.ai_rate_bps under dcqcn" "$tmp/err"
# so does a run whose scenario sets such a knob away from its CC's default
"$bin" run "$tmp/m3d.json" --engine m3 --paths 50 --set dcqcn.rpg_min_rate_bps=100Mbps \
    -o "$tmp/m3dmin" --quiet >/dev/null 2>"$tmp/err"
check "a run with a knob the model does not read runs" test $? -eq 0
check "and warns that the model does not read it, with both values" \
    grep -q "does not read dcqcn.rpg_min_rate_bps, 1e+08 here and 1e+06 (dcqcn's default)" "$tmp/err"
"$bin" run "$tmp/m3d.json" --engine m3 --paths 50 --set hpcc.eta=0.5 \
    -o "$tmp/m3dmin" --quiet >/dev/null 2>"$tmp/err"
check "a run that sets another CC's knob does not warn of knobs" \
    test -z "$(grep -v -e 'misses the accuracy goal' -e 'does not model PFC' -e '^\[' "$tmp/err")"
# Pmax is read but every training fabric had the preset's 0.2: the model
# extrapolates at 0.5, and the run says so
"$bin" run "$tmp/m3d.json" --engine m3 --paths 50 --set switch.pmax=0.5 \
    -o "$tmp/m3dmin" --quiet >/dev/null 2>"$tmp/err"
check "a run with Pmax away from the value training held runs" test $? -eq 0
check "and warns, naming both values" \
    grep -q "m3's dcqcn training held switch.pmax at 0.2; 0.5 here: the model extrapolates" \
        "$tmp/err"
"$bin" run "$tmp/m3d.json" --engine m3 --paths 50 --set switch.kmax_bytes_per_gbps=32KB \
    -o "$tmp/m3d32" --quiet >/dev/null
check "the Kmax sweep's 32 KB row is the run at 32 KB" \
    test "$(grep '"p99"' "$tmp/m3dw/v1/summary.json")" = "$(grep '"p99"' "$tmp/m3d32/summary.json")"
check "Kmax moves DCQCN's estimate" \
    test "$(grep '"p99"' "$tmp/m3dw/v0/summary.json")" != "$(grep '"p99"' "$tmp/m3dw/v1/summary.json")"
"$bin" sweep "$tmp/m3s.json" --set switch.kmin_bytes_per_gbps=1KB 2>"$tmp/err" >/dev/null
check "sweep without a list of values exits 2" test $? -eq 2
"$bin" sweep "$tmp/m3s.json" --model "$tmp/m3.model" --set switch.kmin_bytes_per_gbps=1KB,3XB \
    2>"$tmp/err" >/dev/null
check "sweep checks every value first" test $? -eq 2
check "sweep names the bad value" grep -q "3XB" "$tmp/err"
"$bin" run "$tmp/m3s.json" --engine m3 --model "$tmp/nope.model" -o "$tmp/m3x" --quiet 2>"$tmp/err"
check "m3 without its model exits 2" test $? -eq 2
check "m3 names the missing model" grep -q "nope.model" "$tmp/err"
check "m3 without its model writes nothing" test ! -e "$tmp/m3x"

check_summary
