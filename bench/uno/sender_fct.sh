#!/bin/sh
# tailor's fct.csv of a k = 8 two_dc run at 100 Gb/s as Uno's artifact measures
# flows: at the sender, when the last ACK is back, so the last ACK's way back is
# added to each FCT (1 us per link, the WAN link the one-way WAN delay, a 64 B
# ACK's serialization per hop: 2/4/6 links within a rack/pod/DC, 10 across DCs).
# The ideal FCT is the artifact's (lcp/scripts/plot_script_micro.py,
# print_fct_info): the class's base RTT plus the size at 100 Gb/s, the RTT
# 14.03 us within a DC and 19.04 us + 2 x the WAN delay across (what the fork
# prints as its intra and inter RTT). Prints "class fct_us ideal_us" per flow
# (unfinished flows left out), class intra or inter.
#   bench/uno/sender_fct.sh FCT_CSV [WAN_DELAY_US]   (default 886.5)
# tailor's node ids: DC 0's hosts 0-127, then 80 switches, DC 1's hosts 208-335.
set -eu
[ $# -ge 1 ] || { echo "usage: sender_fct.sh FCT_CSV [WAN_DELAY_US]" >&2; exit 2; }
awk -F, -v wan="${2:-886.5}" 'NR > 1 && $6 != "" && $6 >= 0 {
    s = $2 < 128 ? $2 : $2 - 80; d = $3 < 128 ? $3 : $3 - 80
    if ((s < 128) != (d < 128)) { links = 10; back = 9 + wan }
    else { links = int(s / 4) == int(d / 4) ? 2 : int(s / 16) == int(d / 16) ? 4 : 6; back = links }
    back += links * 64 * 8 / 100e3
    rtt = (s < 128) != (d < 128) ? 19.0413 + 2 * wan : 14.0275
    print ((s < 128) != (d < 128) ? "inter" : "intra"), $6 / 1000 + back, rtt + $4 * 8 / 100e3
}' "$1"
