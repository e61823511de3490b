/* Topology summary for `tailor inspect`: counts and per-tier oversubscription. */
#include "tailor/topo.h"

#include <string.h>

void tl_topo_summarize(const tl_topo *t, tl_topo_summary *s)
{
    memset(s, 0, sizeof *s);
    s->n_nodes = tl_topo_n_nodes(t);
    s->n_hosts = tl_topo_n_hosts(t);
    s->n_switches = s->n_nodes - s->n_hosts;
    s->n_links = tl_topo_n_links(t);
    s->n_racks = tl_topo_n_racks(t);
    s->n_pods = tl_topo_n_pods(t);
    s->n_dcs = tl_topo_n_dcs(t);
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        const tl_node *n = tl_topo_node(t, i);
        uint32_t tier = n->tier < TL_MAX_TIERS ? n->tier : TL_MAX_TIERS - 1;
        if (n->kind == TL_NODE_SWITCH) {
            s->tier_switches[tier]++;
            if (tier + 1 > s->n_tiers)
                s->n_tiers = tier + 1;
        }
    }
    for (uint32_t l = 0; l < s->n_links; l++) {
        const tl_link *k = tl_topo_link(t, l);
        if (k->is_failed) {
            s->n_failed++;
            continue;
        }
        uint32_t ta = tl_topo_node(t, k->a)->tier, tb = tl_topo_node(t, k->b)->tier;
        ta = ta < TL_MAX_TIERS ? ta : TL_MAX_TIERS - 1;
        tb = tb < TL_MAX_TIERS ? tb : TL_MAX_TIERS - 1;
        if (ta == tb)
            continue;
        uint32_t lo = ta < tb ? ta : tb, hi = ta < tb ? tb : ta;
        s->tier_up_bps[lo] += (double)k->rate_bps;
        s->tier_down_bps[hi] += (double)k->rate_bps;
    }
}
