#!/bin/sh
# Regenerates htsim_fct.csv and htsim_results.csv from csg-htsim (issue 44).
# Not needed by compare.sh; needs a csg-htsim checkout built with its own
# Makefiles (see README.md):  bench/htsim/run_htsim.sh /path/to/csg-htsim
set -eu
HTSIM=${1:?usage: run_htsim.sh CSG_HTSIM_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
HPCC="$HTSIM/sim/datacenter/htsim_hpcc"
COMMIT=$(git -C "$HTSIM" rev-parse HEAD 2>/dev/null || echo unknown)
make -s -C "$HERE/driver" HTSIM="$HTSIM"
gcc -O2 -shared -fPIC "$HERE/driver/fixtime.c" -o "$HERE/driver/fixtime.so"
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
DCTCP_ARGS="-nodes 128 -linkspeed 100000 -hop_latency 1 -mtu 4096 -q 8388608 -seed 44 -end 100000"
HPCC_ARGS="-nodes 128 -strat ecmp_host -paths 1 -linkspeed 100000 -hop_latency 1 -mtu 4096 -q 2048 -queue_type lossless_input -pfc_thresholds 12 15 -end 100000 -seed 44"
cd "$TMP"
for w in perm incast; do
    "$HERE/driver/htsim_dctcp_tm" -tm "$HERE/$w.cm" $DCTCP_ARGS > "dctcp_$w.out"
    grep '^# drops=0 ' "dctcp_$w.out" >/dev/null || { echo "htsim DCTCP $w: drops or unfinished flows" >&2; exit 1; }
    # one "FCT id=.. src=.. dst=.. size=.. fct_us=.." line per flow; htsim ids start at 1
    sed -n 's/^FCT id=\([0-9]*\) src=\([0-9]*\) dst=\([0-9]*\) size=\([0-9]*\) fct_us=\([0-9.]*\)$/\1 \2 \3 \4 \5/p' "dctcp_$w.out" |
        awk -v c="$w-dctcp" '{printf "%s,%d,%d,%d,%d,%s\n", c, $1 - 1, $2, $3, $4, $5}' >> fct.rows
    LD_PRELOAD="$HERE/driver/fixtime.so" "$HPCC" -tm "$HERE/$w.cm" $HPCC_ARGS -o hpcc_$w.log > "hpcc_$w.out"
    # "Flow HPCC_<src>_<dst> finished at <us> total bytes <B>"; every src sends one flow here
    grep '^Flow HPCC_.* finished at ' "hpcc_$w.out" | sed 's/^Flow HPCC_\([0-9]*\)_\([0-9]*\) finished at \([0-9.e+]*\) .*/\1 \2 \3/' |
        awk -F, -v c="$w-hpcc" -v fl="$HERE/$w.csv" 'BEGIN{while ((getline l < fl) > 0) {split(l, a, ","); if (a[1] != "id") {id[a[2]] = a[1]; sz[a[2]] = a[4]}}}
            {split($0, b, " "); printf "%s,%d,%d,%d,%d,%.3f\n", c, id[b[1]], b[1], b[2], sz[b[1]], b[3]}' >> fct.rows
done
{
    echo "# csg-htsim (github.com/Broadcom/csg-htsim) commit $COMMIT; bench/htsim/run_htsim.sh"
    echo "# DCTCP: bench/htsim/driver/htsim_dctcp_tm -tm {perm,incast}.cm $DCTCP_ARGS"
    echo "# HPCC:  LD_PRELOAD=driver/fixtime.so sim/datacenter/htsim_hpcc -tm {perm,incast}.cm $HPCC_ARGS"
    echo "case,id,src,dst,size,fct_us"
    sort -t, -k1,1 -k2,2n fct.rows
} > "$HERE/htsim_fct.csv"
{
    echo "# csg-htsim (github.com/Broadcom/csg-htsim) commit $COMMIT; per-flow FCTs in htsim_fct.csv"
    echo "# DCTCP: bench/htsim/driver/htsim_dctcp_tm -tm {perm,incast}.cm $DCTCP_ARGS"
    echo "# HPCC:  LD_PRELOAD=driver/fixtime.so sim/datacenter/htsim_hpcc -tm {perm,incast}.cm $HPCC_ARGS"
    echo "# FCT = finish - start (start 0), in us; p99 = nearest rank (the ceil(0.99 n)-th smallest)"
    echo "case,flows,mean_us,p99_us,min_us,max_us"
    for c in perm-dctcp incast-dctcp perm-hpcc incast-hpcc; do
        grep "^$c," fct.rows | cut -d, -f6 | sort -g |
            awk -v c="$c" '{a[NR] = $1; s += $1} END {r = int(0.99 * NR); if (r < 0.99 * NR) r++;
                printf "%s,%d,%.3f,%.3f,%.3f,%.3f\n", c, NR, s / NR, a[r], a[1], a[NR]}'
    done
} > "$HERE/htsim_results.csv"
cat "$HERE/htsim_results.csv"
