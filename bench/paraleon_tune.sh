#!/bin/sh
# PARALEON's tuning against static settings and the automatic baselines
# (issue 48, docs/paraleon.md "Measured"), on the paper's NS3 setup
# (examples/paraleon/: two-tier 4:1 Clos, 8 ToR, 4 spine, 128 servers,
# 100 Gb/s, 5 us links, 12 MB buffers, DCQCN):
#   1. FB_Hadoop at 30% (max_link_load) load: mean and p99.9 FCT slowdown per
#      size bucket (Fig. 7a/b), per scheme, mean over seeds and their spread;
#   2. the ON-OFF all-to-all training workload (20 workers, 12 MB per pair,
#      20 ms OFF; examples/paraleon/onoff-a2a.json): FCT percentiles (Fig. 7c/d);
#   3. the FB_Hadoop influx during training: throughput and RTT terms over
#      time, default vs PARALEON (Fig. 8/9; influx.png);
#   4. the SA ablation: guided vs naive, U over the search (Fig. 12).
# Schemes: default (dcqcn.nvidia-default), expert (Table I), PARALEON (closed
# loop), naive SA, ACC-like, DCQCN+-like, Pretrained (the offline search with
# Parsimon on seed 100's workload, held static), and "settled": the setting
# each PARALEON run ended on, held static over the same workload; "ranged":
# PARALEON searching inside the public code's ranges instead of the registry's.
#   bench/paraleon_tune.sh [OUT_DIR] [BUILD_DIR] [SEEDS] [FLOWS]
#   (defaults out/paraleon-tune, build, "1 2 3", 300000; about 35 minutes
#   at the defaults on 2 cores; run from the repo root)
set -eu
if [ "${1:-}" = --one ]; then # one run: --one OUT BIN SCENARIO NAME SEED FLOWS ARGS...
    shift
    out=$1 bin=$2 sc=$3 name=$4 seed=$5 flows=$6
    shift 6
    cmd=run
    case "$name" in paraleon | naive | ranged | acc | dcqcn-plus) cmd=tune ;; esac
    "$bin" $cmd "$sc" -o "$out/$name-$seed" --seed "$seed" --flow-count "$flows" --quiet \
        --threads 1 "$@" >"$out/$name-$seed.log" 2>&1 || echo "FAILED: $name seed $seed"
    exit 0
fi
OUT=${1:-out/paraleon-tune}
B=${2:-build}
SEEDS=${3:-1 2 3}
FLOWS=${4:-300000}
W="$B/tailor"
export TAILOR_DATA=${TAILOR_DATA:-data}
mkdir -p "$OUT"
HAD=examples/paraleon/hadoop.json
# "ranged": PARALEON searching inside ParaleonPlus's tuning ranges (notes Part B4; K in KB at 100 Gb/s,
# so per Gb/s / 100), not the registry's; both timers 4-128 us (ours: the code tunes one of them)
RANGES="dcqcn.ai_rate_bps=5Mbps:100Mbps,dcqcn.hai_rate_bps=30Mbps:600Mbps"
RANGES="$RANGES,dcqcn.rate_reduce_monitor_period_ps=4us:128us,dcqcn.min_time_between_cnps_ps=4us:128us"
RANGES="$RANGES,switch.kmin_bytes_per_gbps=400:16000,switch.kmax_bytes_per_gbps=4800:64000,switch.pmax=0.1:0.4"
ONOFF=examples/paraleon/onoff-a2a.json
sed "s/\"flows\": 40000/\"flows\": $FLOWS/" "$HAD" >"$OUT/hadoop.json"

echo "== Pretrained: offline searches with Parsimon (--cluster), seed 100's workload"
start=$(date +%s)
"$W" tune "$OUT/hadoop.json" -o "$OUT/pretrained-hadoop" --oracle parsimon --cluster --seed 100 \
    --flow-count "${PRE_FLOWS:-20000}" --quiet >"$OUT/pretrained-hadoop.log" &
"$W" tune "$ONOFF" -o "$OUT/pretrained-onoff" --oracle parsimon --cluster --seed 100 \
    --flow-count 760 --objective p99@50KB+,mean@50KB+ --quiet >"$OUT/pretrained-onoff.log" &
wait
for w in hadoop onoff; do
    echo "-- $w"
    sed -n '1,5p' "$OUT/pretrained-$w.log"
done
echo "   ($(($(date +%s) - start)) s)"

# runs SCENARIO TAG FLOWS SCHEMES: every scheme x seed, two at a time
runs() {
    sc=$1 tag=$2 flows=$3
    shift 3
    mkdir -p "$OUT/$tag"
    for s in $SEEDS; do
        for name in "$@"; do
            case $name in
            default) args="--preset dcqcn.nvidia-default --monitor" ;;
            expert) args="--preset dcqcn.expert" ;;
            pretrained) args="--preset-file $OUT/pretrained-$tag/tune_setting.json" ;;
            settled) args="--preset-file $OUT/$tag/paraleon-$s/tune_setting.json --monitor" ;;
            naive) args="--scheme naive" ;;
            ranged) args="--knobs $RANGES" ;;
            acc) args="--scheme acc" ;;
            dcqcn-plus) args="--scheme dcqcn-plus" ;;
            *) args="" ;;
            esac
            echo "$OUT/$tag $W $sc $name $s $flows${args:+ $args}" # no trailing blank: xargs -L
        done
    done | xargs -P 2 -L 1 sh "$0" --one
}

# table DIR SCHEMES: per scheme and bucket, mean and p99.9 slowdown, mean over
# the seeds (and max - min across them)
table() {
    dir=$1
    shift
    printf "%-11s %-8s %16s %16s\n" scheme bucket "mean (spread)" "p99.9 (spread)"
    for name in "$@"; do
        for f in "$dir/$name"-*/summary.json; do
            awk -v name="$name" '/"buckets"/ { inb = 1 } /"by_class"|"classes"/ { inb = 0 }
                inb && /^    "[^"]*": [{]/ { split($1, q, "\""); b = q[2] }
                inb && /"mean":/ { gsub(/[^0-9.e+-]/, "", $2); m[b] = $2 }
                inb && /"p999":/ { gsub(/[^0-9.e+-]/, "", $2); p[b] = $2 }
                END { for (b in m) print name, b, m[b], p[b] }' "$f"
        done
    done | awk '{ k = $1 " " $2; n[k]++; sm[k] += $3; sp[k] += $4
                 if (!(k in lo) || $3 < lo[k]) lo[k] = $3; if (!(k in hi) || $3 > hi[k]) hi[k] = $3
                 if (!(k in plo) || $4 < plo[k]) plo[k] = $4; if (!(k in phi) || $4 > phi[k]) phi[k] = $4
                 if (!(k in ord)) { ord[k] = ++no; keys[no] = k } }
        END { for (i = 1; i <= no; i++) { k = keys[i]; split(k, q, " ")
              printf "%-11s %-8s %8.3f (%5.3f) %8.3f (%6.3f)\n", q[1], q[2], sm[k] / n[k],
                     hi[k] - lo[k], sp[k] / n[k], phi[k] - plo[k] } }'
}

echo
echo "== 1. FB_Hadoop 30% (Fig. 7a/b): $FLOWS flows, seeds $SEEDS"
start=$(date +%s)
SCHEMES="default expert paraleon naive acc dcqcn-plus pretrained"
runs "$OUT/hadoop.json" hadoop "$FLOWS" $SCHEMES
runs "$OUT/hadoop.json" hadoop "$FLOWS" settled ranged # each seed's PARALEON setting, held static
table "$OUT/hadoop" $SCHEMES settled ranged | tee "$OUT/hadoop.txt"
echo "   ($(($(date +%s) - start)) s)"

echo
echo "== 2. ON-OFF all-to-all training (Fig. 7c/d): FCT slowdown percentiles of the 12 MB flows"
start=$(date +%s)
runs "$ONOFF" onoff 1900 default expert paraleon acc dcqcn-plus pretrained
printf "%-11s %8s %8s %8s %8s %10s\n" scheme p50 p90 p99 mean "mean FCT ms"
for name in default expert paraleon acc dcqcn-plus pretrained; do
    cat "$OUT/onoff/$name"-*/fct.csv | awk -F, '$1 != "id" { print $8, $6 }' | sort -g |
        awk -v name="$name" '{ s[NR] = $1; m += $1; f += $2 }
            END { printf "%-11s %8.3f %8.3f %8.3f %8.3f %10.2f\n", name, s[int(NR * 0.5)],
                  s[int(NR * 0.9)], s[int(NR * 0.99)], m / NR, f / NR / 1e6 }'
done | tee "$OUT/onoff.txt"
echo "   ($(($(date +%s) - start)) s)"

echo
echo "== 3. FB_Hadoop influx during training (Fig. 8/9): from 90 to 135 ms"
start=$(date +%s)
sed 's/"flows": 40000,/"duration_ns": "45ms",/; s/"arrival": {"process": "poisson"}/"arrival": {"process": "poisson"}, "start_ns": "90ms"/' \
    "$HAD" >"$OUT/influx-hadoop.json"
"$W" gen-flows "$OUT/influx-hadoop.json" -o "$OUT/influx-hadoop.csv" --quiet
{
    echo "id,src,dst,size,start_ns,class"
    { tail -n +2 examples/paraleon/onoff-a2a.csv; tail -n +2 "$OUT/influx-hadoop.csv"; } |
        sort -t, -k5,5g -k1,1n | awk -F, -v OFS=, '{ $1 = NR - 1; print }'
} >"$OUT/influx.csv"
sed 's/"file": "onoff-a2a.csv"/"file": "influx.csv"/' "$ONOFF" >"$OUT/influx.json"
for name in default paraleon; do
    cmd=run
    [ $name = paraleon ] && cmd=tune
    extra=--monitor
    [ $name = paraleon ] && extra= # tune runs the monitor
    "$W" $cmd "$OUT/influx.json" -o "$OUT/influx-$name" $extra --quiet >"$OUT/influx-$name.log" 2>&1 &
done
wait
printf "%-9s %22s %22s %8s\n" scheme "O_TP 90-135ms (before)" "O_RTT 90-135ms (before)" triggers
for name in default paraleon; do
    awk -F, -v name="$name" 'NR > 1 && $1 > 90 && $1 <= 135 && $2 != "" { t += $2; r += $3; n++ }
        NR > 1 && $1 > 45 && $1 <= 90 && $2 != "" { t0 += $2; r0 += $3; n0++ }
        END { printf "%-9s %12.3f (%6.3f) %13.3f (%6.3f)", name, t / n, t0 / n0, r / n, r0 / n0 }' \
        "$OUT/influx-$name/monitor_metrics.csv"
    echo " $(awk 'END { print NR - 1 }' "$OUT/influx-$name/monitor_triggers.csv")"
done | tee "$OUT/influx.txt"
cat >"$OUT/influx.gp" <<'EOF'
set terminal pngcairo size 1200,800 font ',10' noenhanced
set output 'influx.png'
set datafile separator ','
set multiplot layout 2,1
set grid; set key outside right; set xlabel 'simulated time (ms)'
set title 'Throughput term O_TP (FB_Hadoop arrives from 90 to 135 ms)'
plot 'influx-default/monitor_metrics.csv' using 1:2 with lines title 'default', \
     'influx-paraleon/monitor_metrics.csv' using 1:2 with lines title 'PARALEON'
set title 'RTT term O_RTT (base / measured RTT)'
plot 'influx-default/monitor_metrics.csv' using 1:3 with lines title 'default', \
     'influx-paraleon/monitor_metrics.csv' using 1:3 with lines title 'PARALEON'
EOF
(cd "$OUT" && gnuplot influx.gp 2>/dev/null) || echo "(gnuplot failed: no influx.png)"
echo "   ($(($(date +%s) - start)) s)"

echo
echo "== 4. SA ablation (Fig. 12): U over the search, guided vs naive (hadoop runs of part 1)"
printf "%-9s %12s %12s %12s\n" scheme "mean U" "best 20-MI U" "intervals"
for name in paraleon naive; do
    for f in "$OUT/hadoop/$name"-*/tune_trajectory.csv; do
        awk -F, '$2 == "search" && $3 != "" { n++; u += $3; w[n] = $3 }
            END { best = -1; for (i = 20; i <= n; i++) { s = 0; for (j = i - 19; j <= i; j++) s += w[j]
                      if (s / 20 > best) best = s / 20 }
                  print u / n, best, n }' "$f"
    done | awk -v name="$name" '{ u += $1; b += $2; n += $3; k++ }
        END { printf "%-9s %12.4f %12.4f %12d\n", name, u / k, b / k, n / k }'
done | tee "$OUT/ablation.txt"

echo
echo "== 5. U of the start (default) and of PARALEON's final setting, both static, per seed"
printf "%-5s %10s %10s\n" seed default settled
for s in $SEEDS; do
    printf "%-5s" "$s"
    for name in default settled; do
        awk -F, 'NR > 1 && $5 != "" { u += $5; n++ } END { printf " %10.4f", u / n }' \
            "$OUT/hadoop/$name-$s/monitor_metrics.csv"
    done
    echo
done | tee "$OUT/settled-u.txt"
