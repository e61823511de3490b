/* Blackholes (uno.txt §5.3): a channel that silently drops every packet
 * sent into it from a given time, while routing goes on using it (a failed
 * optic or a bad line card that no routing protocol has noticed yet), as
 * Uno's artifact fails a WAN link (-fail_one). Unlike tl_pktsim_fail_link,
 * nothing is re-routed: only a load balancer that moves paths (UnoLB, PLB,
 * spraying) gets around it. The fault.* knobs place blackholes at create. */
#include "pktsim_int.h"

enum { WAN_BLACKHOLE, AT_PS, LINKS_DOWN, N_KNOBS };
const tl_param_def tl_fault_knobs[TL_FAULT_N_KNOBS] = {
    [WAN_BLACKHOLE] = {"fault.wan_blackhole", TL_UNIT_NONE, 0, 0, 1e6, 1, TL_DIR_NEUTRAL,
                       "Blackhole this many links between data centers, in the direction from DC "
                       "0 to DC 1, lowest link ids first (Uno's artifact -fail_one: 1)."},
    [AT_PS] = {"fault.blackhole_at_ps", TL_UNIT_PS, 0, 0, 1e15, 1, TL_DIR_NEUTRAL,
               "When the fault.* blackholes start (the artifact: at 0)."},
    [LINKS_DOWN] = {"fault.links_down_frac", TL_UNIT_FRAC, 0, 0, 1, 0, TL_DIR_NEUTRAL,
                    "Blackhole each upward switch channel (towards a higher tier, and DC 0 to DC "
                    "1) with this probability (the artifact's -percentageLinksDown)."},
};

_Static_assert(N_KNOBS == TL_FAULT_N_KNOBS, "tailor/params.h declares the table's size");

int tl_pktsim_blackhole(tl_pktsim *s, uint32_t chan, int64_t at_ps, tl_err *err)
{
    if (chan >= s->n_ports)
        return tl_err_set(err, TL_ERANGE, "blackhole: no channel %u (there are %u)", chan,
                          s->n_ports);
    if (s->ports[chan].sw == NONE)
        return tl_err_set(err, TL_EINVAL,
                          "blackhole: channel %u leaves a host; only switch ports can blackhole",
                          chan);
    if (at_ps < s->st.now_ps)
        return tl_err_set(err, TL_ERANGE, "blackhole: %lld ps is in the past (now %lld ps)",
                          (long long)at_ps, (long long)s->st.now_ps);
    if (s->sticky.code || !push(s, at_ps, chan, EV_BLACKHOLE, 0))
        return sticky_err(s, err);
    return 0;
}

void fault_on_blackhole(tl_pktsim *s, uint32_t chan, int64_t now)
{
    if (!s->ports[chan].is_failed)
        port_kill(s, &s->ports[chan], now);
}

int fault_build(tl_pktsim *s, tl_err *err)
{
    const double *k = tl_params_table(&s->params, tl_fault_knobs);
    int64_t at = (int64_t)k[AT_PS];
    uint32_t n_wan = (uint32_t)k[WAN_BLACKHOLE];
    tl_rng r;
    tl_rng_init(&r, s->seed, "links_down", 0);
    for (uint32_t c = 0; c < s->n_ports; c++) {
        const port *p = &s->ports[c];
        if (p->sw == NONE)
            continue;
        const tl_node *a = tl_topo_node(s->topo, p->from), *b = tl_topo_node(s->topo, p->to);
        int is_wan_fwd = p->pclass == TL_PORT_WAN && a->dc == 0 && b->dc == 1;
        int is_up = b->kind == TL_NODE_SWITCH && (b->tier > a->tier || is_wan_fwd);
        int is_hole = 0;
        if (is_wan_fwd && n_wan) {
            n_wan--;
            is_hole = 1;
        }
        /* one draw per upward channel, so the set does not depend on n_wan */
        if (k[LINKS_DOWN] > 0 && is_up && tl_rng_uniform(&r) < k[LINKS_DOWN])
            is_hole = 1;
        if (is_hole && tl_pktsim_blackhole(s, c, at, err))
            return err->code;
    }
    if (n_wan)
        return tl_err_set(err, TL_EINVAL,
                          "fault.wan_blackhole: %u more links between data centers asked for than "
                          "the topology has",
                          n_wan);
    return 0;
}
