/* The tap "netflow" (netflow.h). */
#include "netflow.h"

#include "../tap.h"
#include "../transport.h"
#include "tailor/rng.h"
#include "tailor/tune.h"

static void fini(void *vst) { tl_flowlist_fini(&((tl_netflow *)vst)->sampled); }

static int init(void *vst, const tl_tap_init *in, tl_err *err)
{
    tl_netflow *st = vst;
    st->rate = (uint64_t)tl_params_table(in->params, tl_monitor_knobs)[TL_MON_NETFLOW_RATE];
    tl_rng r;
    tl_rng_init(&r, in->seed, "netflow", (uint64_t)in->id);
    st->salt = tl_rng_u64(&r);
    return tl_flowlist_init(&st->sampled, in->n_flows, err);
}

static int on_packet(void *vst, const tl_tap_pkt *p, int64_t now)
{
    tl_netflow *st = vst;
    if (p->kind != PK_DATA || !p->is_from_host)
        return 0;
    if (tl_mix64(((uint64_t)p->flow << 40) ^ p->seq ^ st->salt) % st->rate == 0)
        tl_flowlist_add(&st->sampled, p->flow, p->payload_bytes);
    return 0;
}

const tl_tap_ops tl_tap_netflow = {
    .name = "netflow",
    .doc = "Sampled NetFlow at each data packet's first switch: one packet in "
           "monitor.netflow_rate, kept per flow until the reader exports.",
    .state_bytes = sizeof(tl_netflow),
    .init = init,
    .on_packet = on_packet,
    .fini = fini,
};
