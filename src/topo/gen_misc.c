/* Small special-purpose topologies: the n-hop parking lot that m3 decomposes a
 * network into (m3.txt §3.2, Fig. 7a), and Uno's two data centers (uno.txt §5.1:
 * two k-ary fat trees whose cores reach one border switch per DC, the borders
 * joined by parallel WAN links). */
#include "topo_int.h"

/* Parking-lot defaults: the link rates of the Parsimon/m3 fabric its paths come
 * from (10 Gb/s host links, 40 Gb/s fabric links, 1 us). */
#define PARKING_HOST_BPS 10000000000ull
#define PARKING_CHAIN_BPS 40000000000ull
#define PARKING_DELAY_PS 1000000

/* Two-DC defaults: Uno's artifact settings (htsim -linkspeed 100000 -hop_latency 1000,
 * -os_border 16 leaving 128/16 = 8 WAN links, -interdcDelay 886500 ns: the "128x RTT"
 * setting). */
#define TWODC_K 8
#define TWODC_BPS 100000000000ull
#define TWODC_DELAY_PS 1000000
#define TWODC_WAN_DELAY_PS 886500000
#define TWODC_CORE_BORDER_LINKS 1
#define TWODC_INTER_DC_LINKS 8

/* Node order: hosts (switch-major), then S0..Sn. Switch s is rack s, everything is
 * pod 0, switches are tier 1. Links: host links, then S_i - S_{i+1} for i = 0..n-1. */
tl_topo *tl_topo_parking_lot(const tl_parking_params *p, tl_err *err)
{
    if (tl_topo_require_count("hops", p->hops, err) ||
        tl_topo_require_delay("delay_ps", p->delay_ps, err))
        return NULL;
    uint32_t hps = p->hosts_per_switch ? p->hosts_per_switch : 1;
    uint64_t host_bps = p->host_bps ? p->host_bps : PARKING_HOST_BPS;
    uint64_t chain_bps = p->chain_bps ? p->chain_bps : PARKING_CHAIN_BPS;
    int64_t delay_ps = p->delay_ps ? p->delay_ps : PARKING_DELAY_PS;
    uint64_t n_switches = (uint64_t)p->hops + 1;
    uint64_t n_hosts = tl_sat_mul(n_switches, hps);
    if (tl_topo_check_count(tl_sat_add(n_hosts, n_switches), tl_sat_add(n_hosts, p->hops), err))
        return NULL;

    tl_topo *t = tl_topo_create(err);
    if (!t)
        return NULL;
    uint32_t ns = (uint32_t)n_switches, sw0 = (uint32_t)n_hosts;
    for (uint32_t s = 0; s < ns; s++)
        for (uint32_t i = 0; i < hps; i++)
            if (tl_topo_add_node(t, TL_NODE_HOST, 0, 0, (int)s, 0, err) < 0)
                goto fail;
    for (uint32_t s = 0; s < ns; s++)
        if (tl_topo_add_node(t, TL_NODE_SWITCH, 1, 0, (int)s, 0, err) < 0)
            goto fail;
    for (uint32_t s = 0; s < ns; s++)
        for (uint32_t i = 0; i < hps; i++)
            if (tl_topo_add_link(t, s * hps + i, sw0 + s, host_bps, delay_ps, err) < 0)
                goto fail;
    for (uint32_t s = 0; s + 1 < ns; s++)
        if (tl_topo_add_link(t, sw0 + s, sw0 + s + 1, chain_bps, delay_ps, err) < 0)
            goto fail;
    if (tl_topo_finish(t, err))
        goto fail;
    return t;
fail:
    tl_topo_destroy(t);
    return NULL;
}

/* Node order: DC 0's fat tree (hosts, edge, aggregation, core; see gen_fattree.c),
 * DC 1's fat tree, border 0, border 1. DC 1's pods and racks follow DC 0's. Links:
 * DC 0's tree, DC 1's tree, then per DC each core's core_border_links links to its
 * border (core-major), then the inter_dc_links border-border links. */
tl_topo *tl_topo_two_dc(const tl_twodc_params *p, tl_err *err)
{
    tl_fattree_params ft = {
        .k = p->k ? p->k : TWODC_K,
        .host_bps = p->host_bps ? p->host_bps : TWODC_BPS,
        .fabric_bps = p->fabric_bps ? p->fabric_bps : TWODC_BPS,
        .delay_ps = p->delay_ps ? p->delay_ps : TWODC_DELAY_PS,
    };
    ft.hosts_per_edge = ft.k / 2;
    uint32_t cbl = p->core_border_links ? p->core_border_links : TWODC_CORE_BORDER_LINKS;
    uint32_t n_wan = p->inter_dc_links ? p->inter_dc_links : TWODC_INTER_DC_LINKS;
    uint64_t wan_bps = p->wan_bps ? p->wan_bps : TWODC_BPS;
    int64_t wan_delay_ps = p->wan_delay_ps ? p->wan_delay_ps : TWODC_WAN_DELAY_PS;
    if (tl_topo_require_delay("wan_delay_ps", wan_delay_ps, err))
        return NULL;

    tl_topo *t = tl_topo_create(err);
    if (!t)
        return NULL;
    uint32_t h = ft.k / 2, n_cores = h * h, core0[2], border[2];
    for (int dc = 0; dc < 2; dc++)
        if (tl_topo_add_fattree(t, &ft, dc * (int)ft.k, dc * (int)(ft.k * h), dc, &core0[dc], err))
            goto fail;
    uint64_t n_border_links = tl_sat_add(tl_sat_mul(2 * (uint64_t)n_cores, cbl), n_wan);
    if (tl_topo_check_count((uint64_t)t->n_nodes + 2, tl_sat_add(t->n_links, n_border_links), err))
        goto fail;
    for (int dc = 0; dc < 2; dc++) {
        int64_t id = tl_topo_add_node(t, TL_NODE_SWITCH, 4, -1, -1, dc, err);
        if (id < 0)
            goto fail;
        border[dc] = (uint32_t)id;
    }
    for (int dc = 0; dc < 2; dc++)
        for (uint32_t c = 0; c < n_cores; c++)
            for (uint32_t i = 0; i < cbl; i++)
                if (tl_topo_add_link(t, core0[dc] + c, border[dc], ft.fabric_bps, ft.delay_ps,
                                     err) < 0)
                    goto fail;
    for (uint32_t i = 0; i < n_wan; i++)
        if (tl_topo_add_link(t, border[0], border[1], wan_bps, wan_delay_ps, err) < 0)
            goto fail;
    if (tl_topo_finish(t, err))
        goto fail;
    return t;
fail:
    tl_topo_destroy(t);
    return NULL;
}
