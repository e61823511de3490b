/* A counting tap: counts the data packets that enter the network at the
 * ports it watches (those arriving straight from their source host), so a
 * tap on every ToR sees each data packet once; the rest it counts apart. */
#include "count.h"

#include "../tap.h"
#include "../transport.h"

static int on_packet(void *vst, const tl_tap_pkt *p, int64_t now)
{
    tl_tap_count_state *st = vst;
    if (p->kind == PK_DATA && p->is_from_host) {
        st->data_pkts++;
        st->data_bytes += p->payload_bytes;
    } else {
        st->other_pkts++;
    }
    return 0;
}

static void on_interval(void *vst, int64_t now) { ((tl_tap_count_state *)vst)->n_intervals++; }

const tl_tap_ops tl_tap_count = {
    .name = "count",
    .doc = "Counts the data packets and payload bytes that enter the network at the watched ports "
           "(straight from their source host) and, apart, every other packet.",
    .state_bytes = sizeof(tl_tap_count_state),
    .on_packet = on_packet,
    .on_interval = on_interval,
};
