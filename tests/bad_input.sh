#!/usr/bin/env bash
# Bad input as a user meets it (DESIGN.md: a clear error naming the file,
# line:column or JSON path, what was expected and what was found; exit 2;
# nothing written). One row per case: the row's name, the exit code, a
# fragment the message must hold, then the command. Every row runs in its own
# empty folder with its outputs named relative to it, so "nothing written"
# means the folder is still empty afterwards (no result, no temporary, no
# out/sweep/ in the working directory). A failure prints the row's name.
# usage: bad_input.sh TAILOR_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
in=$tmp/in
mkdir -p "$in"
pass=0
failn=0
n=0

# row NAME CODE FRAGMENT -- ARGS...: runs tailor ARGS in a fresh folder.
row() {
    local name=$1 code=$2 frag=$3
    shift 4
    n=$((n + 1))
    local w=$tmp/w$n
    mkdir -p "$w"
    (cd "$w" && "$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null)
    local got=$?
    local bad=""
    [ "$got" -eq "$code" ] || bad="exit $got, expected $code"
    grep -qF -- "$frag" "$tmp/err" || bad="$bad; message lacks '$frag'"
    [ -z "$(ls -A "$w")" ] || bad="$bad; wrote $(ls -A "$w" | tr '\n' ' ')"
    if [ -z "$bad" ]; then
        pass=$((pass + 1))
    else
        failn=$((failn + 1))
        echo "FAIL: $name: $bad"
        sed 's/^/    stderr: /' "$tmp/err" | head -3
    fi
}

# ---------------------------------------------------------------- inputs ---
good_class='{"name": "a", "sizes": {"cdf": "webserver"}, "spatial": {"type": "uniform"},
             "arrival": {"process": "poisson"}, "load": {"max_link_load": 0.3}}'
scen() { # FILE TOPOLOGY CLASS [EXTRA]: a scenario file from parts
    printf '{\n  "topology": %s,\n  "workload": {"flows": 100, "classes": [%s]}%s\n}\n' \
        "$2" "$3" "${4:-}" >"$in/$1"
}
ft='{"type": "fat_tree", "k": 4}'
scen ok.json "$ft" "$good_class"
scen syntax.json "$ft" "$good_class" ','
scen unknown-key.json "$ft" '{"name": "a", "sizes": {"cdf": "webserver"}, "spatial": {"type": "uniform"}, "arrival": {"process": "poisson"}, "load": {"max_link_loda": 0.3}}'
scen range.json "$ft" '{"name": "a", "sizes": {"cdf": "webserver"}, "spatial": {"type": "uniform"}, "arrival": {"process": "poisson"}, "load": {"max_link_load": 1.5}}'
scen type.json '{"type": "fat_tree", "k": "four"}' "$good_class"
scen family.json '{"type": "fat_trees", "k": 4}' "$good_class"
scen cdfname.json "$ft" '{"name": "a", "sizes": {"cdf": "web-server"}, "spatial": {"type": "uniform"}, "arrival": {"process": "poisson"}, "load": {"max_link_load": 0.3}}'
scen slow.json "$ft" '{"name": "a", "sizes": {"cdf": "webserver"}, "spatial": {"type": "uniform"}, "arrival": {"process": "poisson"}, "load": {"flows_per_s": 1e-9}}'
scen tiny-load.json "$ft" '{"name": "a", "sizes": {"cdf": "webserver"}, "spatial": {"type": "uniform"}, "arrival": {"process": "poisson"}, "load": {"max_link_load": 1e-300}}'
scen no-spatial.json "$ft" '{"name": "a", "sizes": {"cdf": "webserver"}, "arrival": {"process": "poisson"}, "load": {"max_link_load": 0.3}}'
scen rate.json '{"type": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2, "host_link_bps": "1e400bps"}' "$good_class"
scen seed.json "$ft" "$good_class" ', "seed": -3'
scen dupkey.json '{"type": "fat_tree", "k": 4, "k": 6}' "$good_class"
scen badlb.json "$ft" "$good_class" ', "transport": {"cc": "uno", "lb": "sprya"}'
printf 'Nodes 16\nConnections 2\n0->1 id 1 start 0 size 1000\n1-2 id 2 start 0 size 1000\n' >"$in/bad.cm"
printf '{"topology": {"type": "fat_tree", "k": 4}, "workload": {"file": "bad.cm"}}' >"$in/cm.json"
scen badcc.json "$ft" "$good_class" ', "transport": {"cc": "dcqcm"}'
: >"$in/empty.json"
echo '[1, 2, 3]' >"$in/array.json"
printf '{"transport": {\n  "dcqcn": {"ai_rate": 5e6}\n}}\n' >"$in/preset-bad.json"
printf '{"transport": {"switch": {"pmax": 3}}}\n' >"$in/preset-range.json"
printf '{"transport": {"cc": "hpcc", "switch": {"pmax": 0.5}}}\n' >"$in/preset-cc.json"
printf '\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x1b[31mred\n' >"$in/binary.json"
# a CDF file that goes down, and one that stops short of 100%
printf '# tailor size cdf v1\n100 0\n5000 50\n4000 100\n' >"$in/down.cdf"
printf '# tailor size cdf v1\n100 0\n5000 50\n' >"$in/short.cdf"
scen cdf-down.json "$ft" '{"name": "a", "sizes": {"cdf": "down.cdf"}, "spatial": {"type": "uniform"}, "arrival": {"process": "poisson"}, "load": {"max_link_load": 0.3}}'
scen cdf-short.json "$ft" '{"name": "a", "sizes": {"cdf": "short.cdf"}, "spatial": {"type": "uniform"}, "arrival": {"process": "poisson"}, "load": {"max_link_load": 0.3}}'
# topology files: two hosts that nothing joins (ns-3 and Parsimon formats)
printf '4 2 2\n2 3\n0 2 100Gbps 1us 0\n1 3 100Gbps 1us 0\n' >"$in/split.txt"
printf '4 2 2\n2 3\n0 2 100Gbps 1us 0\n1 3 fast 1us 0\n' >"$in/badrate.txt"
printf '3 1\n' >"$in/header.txt"
cat >"$in/split-parsimon.json" <<'JSON'
{"nodes": [{"id": 0, "kind": "Host"}, {"id": 1, "kind": "Host"}, {"id": 2, "kind": "Switch"},
           {"id": 3, "kind": "Switch"}],
 "links": [{"a": 0, "b": 2, "bandwidth": 100000000000, "delay": 1000},
           {"a": 1, "b": 3, "bandwidth": 100000000000, "delay": 1000}]}
JSON
cat >"$in/badlink-parsimon.json" <<'JSON'
{"nodes": [{"id": 0, "kind": "Host"}, {"id": 1, "kind": "Switch"}],
 "links": [{"a": 0, "b": 7, "bandwidth": 100000000000, "delay": 1000}]}
JSON
scen split.json '{"type": "file", "format": "ns3", "path": "split.txt"}' "$good_class"
# flow files against the k = 4 fat tree (hosts 0-15)
printf 'id,src,dst,size,start_ns,class\n' >"$in/header-only.csv"
printf 'id,src,dst,size,start_ns,class\n0,0,5,1000,0,a\n1,1,6,1000,10,a\n0,2,7,1000,20,a\n' >"$in/dup.csv"
printf 'id,source,dst,size,start_ns,class\n0,0,5,1000,0,a\n' >"$in/header.csv"
printf 'id,src,dst,size,start_ns,class\n0,0,5,1000,99999999999999999999,a\n' >"$in/late.csv"
printf 'id,src,dst,size,start_ns,class\n0,0,5,1000,1.2345,a\n' >"$in/decimals.csv"
printf 'id,src,dst,size,start_ns,class\n0,0,99,1000,0,a\n' >"$in/range.csv"
printf 'id,src,dst,size,start_ns,class\n0,3,3,1000,0,a\n' >"$in/self.csv"
printf 'id,src,dst,size,start_ns,class\n0,0,5,0,0,a\n' >"$in/zero.csv"
printf 'id,src,dst,size,start_ns,class\n0,0,5,100000000000000000,0,a\n' >"$in/huge.csv"
printf 'id,src,dst,size,start_ns,class\n0,0,5,1000,0\n' >"$in/noclass.csv"
printf -- '-1\n0 5 3 100 1000 0\n' >"$in/minus.txt"
printf '3\n0 5 3 100 1000 0\n1 6 3 100 1000 0\n' >"$in/short.txt"
printf '1\n0 5 3 100 1000 0\n1 6 3 100 1000 0\n' >"$in/long.txt"
printf '1\n0 5 3 100 1000 1e9\n' >"$in/late.txt"
printf '1\n0 5 3 100 x 0\n' >"$in/malformed.txt"
: >"$in/empty.txt"
printf '0 1 1\n0 1 x\n' >"$in/tm.txt"
# two real runs of different flows (seeds 1 and 2), for compare
"$bin" run "$in/ok.json" --engine flowsim -o "$in/run1" --quiet >/dev/null 2>&1
"$bin" run "$in/ok.json" --engine flowsim -o "$in/run2" --seed 2 --quiet >/dev/null 2>&1
mkdir -p "$in/badsum" "$in/oddsum"
echo '{"engine": "x",' >"$in/badsum/summary.json"
sed 's/"engine"/"engines"/' "$in/run1/summary.json" >"$in/oddsum/summary.json"
head -c 3000 /dev/urandom >"$in/garbage.model"
mkdir -p "$in/mine" && echo notes >"$in/mine/notes.txt"
echo file >"$in/afile"

S=$in/ok.json
# ------------------------------------------------------------ scenarios ---
row "scenario: syntax error"          2 "syntax.json:5:1: malformed JSON"                  -- inspect "$in/syntax.json"
row "scenario: unknown key"           2 "did you mean 'max_link_load'"        -- inspect "$in/unknown-key.json"
row "scenario: value out of range"    2 "range.json:3:180: workload.classes[0].load.max_link_load"                     -- run "$in/range.json" -o out
row "scenario: wrong type"            2 "topology.k"                          -- inspect "$in/type.json"
row "scenario: unknown family"        2 "topology.type"                       -- gen-flows "$in/family.json" -o f.csv
row "scenario: unknown CDF name"      2 "built-ins are webserver"             -- run "$in/cdfname.json" -o out
row "scenario: starts past int64 ps"  2 "slow.json: workload.classes[0].load" -- run "$in/slow.json" -o out
row "scenario: flowsim too"           2 "past the 26.7 days"                  -- run "$in/slow.json" -o out --engine flowsim
row "scenario: parsimon too"          2 "past the 26.7 days"                  -- run "$in/slow.json" -o out --engine parsimon
row "scenario: vanishing load"        2 "tiny-load.json: workload.classes[0]" -- run "$in/tiny-load.json" -o out
row "scenario: missing key"           2 "missing required key 'spatial'"      -- inspect "$in/no-spatial.json"
row "scenario: rate overflow"         2 "1 bit/s to 1e18 bit/s"               -- inspect "$in/rate.json"
row "scenario: negative seed"         2 "seed"                                -- inspect "$in/seed.json"
row "scenario: duplicate key"         2 "dupkey.json"                         -- inspect "$in/dupkey.json"
row "scenario: unknown cc"            2 "did you mean \"dcqcn\""              -- inspect "$in/badcc.json"
row "scenario: unknown lb"            2 "transport.lb: unknown load balancer \"sprya\"" -- run "$in/badlb.json" -o out
row "htsim matrix: bad line"          2 "bad.cm:4:1: workload.file: expected 'SRC->DST" -- run "$in/cm.json" -o out
row "htsim matrix: with --flows"      2 "bad.cm:4:1"                          -- run "$S" --flows "$in/bad.cm" -o out
row "scenario: empty file"            2 "empty.json"                          -- inspect "$in/empty.json"
row "scenario: not an object"         2 "array.json"                          -- inspect "$in/array.json"
row "scenario: binary is escaped"     2 '\x7f'                                -- inspect "$in/binary.json"
row "scenario: missing file"          2 "none.json"                           -- run "$in/none.json" -o out
row "CDF file: not monotone"          2 "down.cdf:4:"                         -- inspect "$in/cdf-down.json"
row "CDF file: stops short of 100%"   2 "short.cdf"                           -- inspect "$in/cdf-short.json"
row "topology.txt: disconnected"      2 "split.txt: topology: hosts 0 and 1 are not connected" -- run "$in/split.json" -o out
row "topology.txt: bad rate"          2 "badrate.txt:4:"                      -- throughput "$in/badrate.txt"
row "topology.txt: short header"      2 "header.txt:1:"                       -- throughput "$in/header.txt"
row "Parsimon JSON: disconnected"     2 "split-parsimon.json: hosts 0 and 1 are not connected"   -- throughput "$in/split-parsimon.json"
row "Parsimon JSON: unknown node"     2 "badlink-parsimon.json"               -- throughput "$in/badlink-parsimon.json"
# ------------------------------------------------------------ options -----
row "--set unknown knob"              2 "did you mean 'nic.mtu_bytes'"        -- inspect "$S" --set nic.mtu_byte=9000
row "--set out of range"              2 "--set nic.mtu_bytes=1"               -- run "$S" -o out --set nic.mtu_bytes=1
row "--preset unknown lists them"     2 "presets: dcqcn.nvidia-default"       -- run "$S" -o out --preset nope
row "--cc unknown lists them"         2 "known: dctcp, dctcp-rate"            -- run "$S" -o out --cc nope
row "--engine unknown"                2 "unknown engine 'ns3'"                -- run "$S" -o out --engine ns3
row "--seed too large (not clamped)"  2 "--seed expects an integer in 0..9223372036854775807" -- run "$S" -o out --seed 99999999999999999999999
row "--seed negative"                 2 "--seed expects"                      -- gen-flows "$S" -o f.csv --seed -1
row "--threads too many"              2 "--threads expects 0..1024"           -- run "$S" -o out --threads 5000
row "--paths zero"                    2 "--paths expects"                     -- run "$S" -o out --engine m3 --paths 0
row "--queue-trace-us zero"           2 "--queue-trace-us expects"            -- run "$S" -o out --queue-trace-us 0
row "--queue-trace-us infinite"       2 "--queue-trace-us expects"            -- run "$S" -o out --queue-trace-us inf
row "--queue-trace-max zero"          2 "--queue-trace-max expects"           -- run "$S" -o out --queue-trace-max 0
row "queue trace over its limit"      2 "queues.csv passed --queue-trace-max" -- run "$S" -o out --queue-trace-us 0.01 --queue-trace-max 100KB
row "--flow-count zero"               2 "--flow-count expects"                -- run "$S" -o out --flow-count 0
row "--monitor with flowsim"          2 "--monitor needs a pktsim run"        -- run "$S" -o out --engine flowsim --monitor
row "--until zero"                    2 "--until expects a simulated time"    -- run "$S" -o out --until 0
row "--tune with flowsim"             2 "--tune needs a pktsim run"           -- run "$S" -o out --engine flowsim --tune
row "utility weights not summing to 1" 2 "must sum to 1"                      -- run "$S" -o out --tune --set monitor.w_tp=0.5
row "a schedule that never ends"      2 "the search never ends"              -- run "$S" -o out --tune --set tune.cooling=1
row "tune: m3 cannot read a knob"     2 "m3's model does not read dcqcn.ai_rate_bps" -- tune "$src/examples/paraleon/hadoop.json" -o out --oracle m3
row "tune: m3 without its model"      2 "m3 --no-model is flowsim"            -- tune "$src/examples/paraleon/hadoop.json" -o out --oracle m3 --no-model
row "tune: flowsim reads no DCQCN"    2 "flowsim does not read dcqcn.ai_rate_bps" -- tune "$src/examples/paraleon/hadoop.json" -o out --oracle flowsim
row "tune: objective weights"         2 "the weights sum to 0.8, not 1"       -- tune "$src/examples/paraleon/hadoop.json" -o out --oracle parsimon --objective p99@all:0.5,mean@all:0.3
row "tune: objective bucket"          2 "unknown size bucket 'tiny'"          -- tune "$src/examples/paraleon/hadoop.json" -o out --oracle parsimon --objective p99@tiny
row "tune: unknown knob"              2 "unknown knob 'dcqcn.ai_rate'"        -- tune "$src/examples/paraleon/hadoop.json" -o out --knobs dcqcn.ai_rate,switch.pmax
row "tune: knob range outside registry" 2 "expected a value in [0, 1]"         -- tune "$src/examples/paraleon/hadoop.json" -o out --knobs switch.pmax=0.1:2
row "tune: knob range empty"          2 "the range of switch.pmax is empty"   -- tune "$src/examples/paraleon/hadoop.json" -o out --knobs switch.pmax=0.4:0.1
row "tune: --knobs with a baseline"   2 "--scheme acc moves its own knobs"    -- tune "$src/examples/paraleon/hadoop.json" -o out --scheme acc --knobs switch.pmax
row "tune: knob without direction"    2 "no throughput- or delay-friendly"    -- tune "$src/examples/paraleon/hadoop.json" -o out --oracle parsimon --knobs dcqcn.dce_tcp_rtt_ps
row "tune: start outside a range"     2 "--set switch.pmax=2"                 -- tune "$src/examples/paraleon/hadoop.json" -o out --set switch.pmax=2
row "tune: offline never ends"        2 "the search never ends"               -- tune "$src/examples/paraleon/hadoop.json" -o out --oracle parsimon --set tune.t_final=0
row "tune: baseline offline"          2 "--scheme acc is a controller"        -- tune "$src/examples/paraleon/hadoop.json" -o out --oracle parsimon --scheme acc
row "tune: unknown scheme"            2 "--scheme: expected paraleon"         -- tune "$src/examples/paraleon/hadoop.json" -o out --scheme acc+
row "tune: objective closed loop"     2 "--objective scores an offline search" -- tune "$src/examples/paraleon/hadoop.json" -o out --objective p99@all
row "--preset-file unknown knob"      2 "unknown parameter 'dcqcn.ai_rate'"   -- run "$src/examples/paraleon/hadoop.json" -o out --preset-file "$in/preset-bad.json"
row "--preset-file value out of range" 2 "transport.switch.pmax"              -- run "$src/examples/paraleon/hadoop.json" -o out --preset-file "$in/preset-range.json"
row "--preset-file of another CC"     2 "the preset is for congestion control \"hpcc\"" -- run "$src/examples/paraleon/hadoop.json" -o out --preset-file "$in/preset-cc.json"
row "--preset-file missing"           2 "cannot open the preset file"         -- run "$src/examples/paraleon/hadoop.json" -o out --preset-file "$in/nope.json"
row "blackholes without --until"      2 "give --until TIME"                   -- run "$S" -o out --set fault.links_down_frac=0.1
row "--monitor 12-bit light counters" 2 "8- or 16-bit light counters"         -- run "$S" -o out --monitor --set monitor.light_bits=12
row "--max-memory not a size"         2 "--max-memory expects"                -- inspect "$S" --max-memory lots
row "--max-memory refuses"            2 "more than the 0.001 GB set by --max-memory" -- run -o out --max-memory 1MB
row "run without -o"                  2 "-o OUTDIR is required"               -- run "$S"
row "run -o under /proc"              2 "/proc"                               -- run "$S" -o /proc/tailor-x
row "run -o a user's folder"          2 "is not a tailor output folder"      -- run "$S" -o "$in/mine"
row "run -o a file"                   2 "exists and is not a folder"          -- run "$S" -o "$in/afile"
row "unknown option"                  2 "unknown option '--bogus'"            -- run "$S" -o out --bogus
row "two scenario files"              2 "one scenario file expected"          -- inspect "$S" "$S"
row "option without value"            2 "needs a value"                       -- run "$S" -o
# ------------------------------------------------------------ flow files --
row "flow CSV: header only"           2 "header-only.csv:1: no flows"         -- run "$S" --flows "$in/header-only.csv" -o out
row "flow CSV: duplicate ids"         2 "dup.csv:4:1: flow id 0 appears again (first on line 2)" -- inspect "$S" --flows "$in/dup.csv"
row "flow CSV: wrong header"          2 "header.csv:1:1: expected the header" -- inspect "$S" --flows "$in/header.csv"
row "flow CSV: start past int64 ps"   2 "late.csv:2:12: field 5 (start_ns): the start is past" -- run "$S" --flows "$in/late.csv" -o out
row "flow CSV: four decimals"         2 "nanoseconds with at most 3 decimals" -- inspect "$S" --flows "$in/decimals.csv"
row "flow CSV: host out of range"     2 "range.csv:2: destination host 99 is out of range"       -- inspect "$S" --flows "$in/range.csv"
row "flow CSV: self flow"             2 "self.csv:2: source and destination"  -- inspect "$S" --flows "$in/self.csv"
row "flow CSV: zero size"             2 "zero.csv:2: size must be > 0"        -- inspect "$S" --flows "$in/zero.csv"
row "flow CSV: a size past the horizon" 2 "flow 0: 100000000000000000 bytes take" -- run "$S" --flows "$in/huge.csv" -o out
row "flow CSV: no class"              2 "noclass.csv:2:"                      -- inspect "$S" --flows "$in/noclass.csv"
row "flow.txt: count -1"              2 "minus.txt:1:1: expected the number of flows" -- inspect "$S" --flows "$in/minus.txt"
row "flow.txt: fewer lines"           2 "short.txt:4:1: line 1 announces 3 flows, found only 2" -- inspect "$S" --flows "$in/short.txt"
row "flow.txt: more lines"            2 "long.txt:3:1: line 1 announces 1 flows, but there are more lines" -- run "$S" --flows "$in/long.txt" -o out
row "flow.txt: start past int64 ps"   2 "late.txt:2:1: start_s 1e+09 is past" -- run "$S" --flows "$in/late.txt" -o out --engine flowsim
row "flow.txt: malformed line"        2 "malformed.txt:2:1:"                  -- inspect "$S" --flows "$in/malformed.txt"
row "flow.txt: empty"                 2 "empty.txt:1:1:"                      -- inspect "$S" --flows "$in/empty.txt"
# ------------------------------------------------------------ throughput --
row "throughput: unknown family"      2 "unknown topology family 'fat_trees'" -- throughput fat_trees:k=4
row "throughput: k=4.5"               2 "k expects a whole number, found '4.5'" -- throughput fat_tree:k=4.5
row "throughput: LP past GLPK"        2 "more than GLPK takes"                -- throughput fat_tree:k=64 --tm random-matching --lp-solver glpk
row "throughput: LP past memory"      2 "the exact LP for CLP"                -- throughput fat_tree:k=64 --tm random-matching
row "throughput: k=1000 estimated"    2 "a fat tree with k=1000"              -- throughput fat_tree:k=1000
row "throughput: --method"            2 "--method expects exact or approx"    -- throughput fat_tree:k=4 --method simplex
row "throughput: --tm kind"           2 "--tm expects"                        -- throughput fat_tree:k=4 --tm randomish
row "throughput: TM file line"        2 "tm.txt:2:"                           -- throughput fat_tree:k=4 --tm "$in/tm.txt"
row "throughput: --eps"               2 "--eps expects a number in (0, 1]"   -- throughput fat_tree:k=4 --eps 2
row "throughput: TM before topology"  2 "tm.txt:2:"                           -- throughput fat_tree:k=1000 --tm "$in/tm.txt"
row "throughput: --time-limit"        2 "--time-limit expects seconds > 0"    -- throughput fat_tree:k=4 --time-limit 0
row "throughput: --lp-solver"         2 "--lp-solver expects glpk, clp-dual"  -- throughput fat_tree:k=4 --lp-solver gurobi
row "throughput: --save-tm unwritable" 2 "/proc"                              -- throughput fat_tree:k=4 --save-tm /proc/x/tm.txt
row "topo-bench: --relative 1"        2 "--relative expects 2..1000"          -- topo-bench -o out --relative 1
row "topo-bench: -o a user's folder"  2 "is not a tailor output folder"      -- topo-bench --quick -o "$in/mine"
# ------------------------------------------------------------ compare -----
row "compare: missing folder"         2 "nope: no such folder"                -- compare "$in/run1" "$in/nope"
row "compare: malformed summary"      2 "badsum/summary.json:2:"              -- compare "$in/run1" "$in/badsum" -o out
row "compare: unknown summary key"    2 "oddsum/summary.json"                 -- compare "$in/run1" "$in/oddsum" -o out
row "compare: different flows"        2 "the runs simulate different flows"   -- compare "$in/run1" "$in/run2" -o out
row "compare: one folder"             2 "expected REF_DIR and EST_DIR"        -- compare "$in/run1"
# ------------------------------------------------------------ sweep -------
row "sweep: empty value"              2 "value 2 of the list is empty"        -- sweep "$S" --engine flowsim --set nic.mtu_bytes=1000,,1500
row "sweep: no list"                  2 "expected a --set knob=v1,v2"         -- sweep "$S" --set nic.mtu_bytes=1000
row "sweep: lists of two lengths"     2 "swept knobs move together"           -- sweep "$S" --set nic.mtu_bytes=1000,1500 --set switch.kmin_bytes_per_gbps=1KB,2KB,3KB
row "sweep: bad value"                2 "3XB"                                 -- sweep "$S" --engine flowsim --set switch.kmin_bytes_per_gbps=1KB,3XB
row "sweep: --quiet without -o"       2 "needs -o OUTDIR"                     -- sweep "$S" --quiet --set nic.mtu_bytes=1000,1500
row "sweep: unknown cc"                2 "unknown congestion control 'unoo'"   -- sweep "$S" --cc unoo --engine flowsim --set nic.mtu_bytes=1000,1500
# ------------------------------------------------------------ m3 ----------
row "m3: model not a model"           2 "garbage.model"                       -- run "$S" -o out --engine m3 --model "$in/garbage.model"
row "m3: model missing"               2 "nope.model"                          -- run "$S" -o out --engine m3 --model "$in/nope.model"
row "m3 gen-data: no folder"          2 "tailor m3"                           -- m3 gen-data
row "m3 train: empty folder"          2 "mine"                                -- m3 train "$in/mine" -o m.model
# ------------------------------------------------------------ the rest ----
row "help: unknown command"           2 "unknown command 'nosuch'"            -- help nosuch
row "unknown command"                 2 "unknown command 'frobnicate'"        -- frobnicate
row "params: unknown option"          2 "usage: tailor params"                    -- params --bogus
row "export-topo: no -o"              2 "needs -o FILE"                       -- export-topo "$S"
row "export-topo: bad scenario"       2 "range.json:3:180:"                    -- export-topo "$in/range.json" -o t.json
row "gen-flows: --format"             2 "--format expects csv or ns3"         -- gen-flows "$S" -o f.csv --format tsv
row "gen-flows: -o a folder"          2 "is a folder"                         -- gen-flows "$S" -o "$in/mine"
row "demo: takes no scenario"         2 "takes no scenario"                   -- demo "$S"
# row cannot set the environment: TAILOR_DATA naming no folder, by hand
n=$((n + 1))
mkdir -p "$tmp/w$n"
(cd "$tmp/w$n" && TAILOR_DATA=/nonexistent "$bin" inspect "$S" >/dev/null 2>"$tmp/err")
if [ $? -eq 2 ] && grep -qF "TAILOR_DATA=/nonexistent: no such folder" "$tmp/err"; then
    pass=$((pass + 1))
else
    failn=$((failn + 1))
    echo "FAIL: TAILOR_DATA=/nonexistent (with the variable)"
fi

echo "$pass passed, $failn failed"
test "$failn" -eq 0
