/* Meta's data-center fabric as Parsimon and m3 evaluate it (parsimon.txt §5.1,
 * m3.txt §5.1): racks of hosts under a ToR, every ToR linked to its pod's fabric
 * switches (one per plane), fabric switch i of every pod linked to all spines of
 * plane i. Oversubscription comes only from spines_per_plane against racks_per_pod. */
#include "topo_int.h"

/* parsimon-eval's values (dhall/fb-fabric): 10 Gb/s host links, 40 Gb/s fabric links,
 * 1000 ns on every link. */
#define DEFAULT_HOST_BPS 10000000000ull
#define DEFAULT_FABRIC_BPS 40000000000ull
#define DEFAULT_DELAY_PS 1000000

/* Node ids, with R = pods*racks_per_pod racks, H = hosts_per_rack, P = planes:
 *   host i of rack r                  r*H + i          (rack r = pod*racks_per_pod + local)
 *   ToR of rack r                     R*H + r
 *   fabric switch of plane i, pod p   R*H + R + p*P + i
 *   spine s of plane i                R*H + R + pods*P + i*spines_per_plane + s
 * Links: host-ToR (host order), ToR-fabric (rack, plane), fabric-spine (pod, plane, spine). */
tl_topo *tl_topo_fabric(const tl_fabric_params *p, tl_err *err)
{
    if (tl_topo_require_count("pods", p->pods, err) ||
        tl_topo_require_count("racks_per_pod", p->racks_per_pod, err) ||
        tl_topo_require_count("hosts_per_rack", p->hosts_per_rack, err) ||
        tl_topo_require_count("planes", p->planes, err) ||
        tl_topo_require_count("spines_per_plane", p->spines_per_plane, err) ||
        tl_topo_require_delay("delay_ps", p->delay_ps, err))
        return NULL;
    uint64_t host_bps = p->host_bps ? p->host_bps : DEFAULT_HOST_BPS;
    uint64_t fabric_bps = p->fabric_bps ? p->fabric_bps : DEFAULT_FABRIC_BPS;
    int64_t delay_ps = p->delay_ps ? p->delay_ps : DEFAULT_DELAY_PS;

    uint64_t n_racks = tl_sat_mul(p->pods, p->racks_per_pod);
    uint64_t n_hosts = tl_sat_mul(n_racks, p->hosts_per_rack);
    uint64_t n_fabs = tl_sat_mul(p->pods, p->planes);
    uint64_t n_spines = tl_sat_mul(p->planes, p->spines_per_plane);
    uint64_t n_nodes = tl_sat_add(tl_sat_add(n_hosts, n_racks), tl_sat_add(n_fabs, n_spines));
    uint64_t n_links = tl_sat_add(tl_sat_add(n_hosts, tl_sat_mul(n_racks, p->planes)),
                                  tl_sat_mul(n_fabs, p->spines_per_plane));
    if (tl_topo_check_count(n_nodes, n_links, err))
        return NULL;

    tl_topo *t = tl_topo_create(err);
    if (!t)
        return NULL;
    uint32_t nr = (uint32_t)n_racks, hpr = p->hosts_per_rack, planes = p->planes;
    uint32_t tor0 = (uint32_t)n_hosts, fab0 = tor0 + nr, spine0 = fab0 + (uint32_t)n_fabs;
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t i = 0; i < hpr; i++)
            if (tl_topo_add_node(t, TL_NODE_HOST, 0, (int)(r / p->racks_per_pod), (int)r, 0, err) <
                0)
                goto fail;
    for (uint32_t r = 0; r < nr; r++)
        if (tl_topo_add_node(t, TL_NODE_SWITCH, 1, (int)(r / p->racks_per_pod), (int)r, 0, err) < 0)
            goto fail;
    for (uint32_t pod = 0; pod < p->pods; pod++)
        for (uint32_t i = 0; i < planes; i++)
            if (tl_topo_add_node(t, TL_NODE_SWITCH, 2, (int)pod, -1, 0, err) < 0)
                goto fail;
    for (uint32_t s = 0; s < (uint32_t)n_spines; s++)
        if (tl_topo_add_node(t, TL_NODE_SWITCH, 3, -1, -1, 0, err) < 0)
            goto fail;

    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t i = 0; i < hpr; i++)
            if (tl_topo_add_link(t, r * hpr + i, tor0 + r, host_bps, delay_ps, err) < 0)
                goto fail;
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t pod = r / p->racks_per_pod;
        for (uint32_t i = 0; i < planes; i++)
            if (tl_topo_add_link(t, tor0 + r, fab0 + pod * planes + i, fabric_bps, delay_ps, err) <
                0)
                goto fail;
    }
    for (uint32_t pod = 0; pod < p->pods; pod++)
        for (uint32_t i = 0; i < planes; i++)
            for (uint32_t s = 0; s < p->spines_per_plane; s++)
                if (tl_topo_add_link(t, fab0 + pod * planes + i,
                                     spine0 + i * p->spines_per_plane + s, fabric_bps, delay_ps,
                                     err) < 0)
                    goto fail;
    if (tl_topo_finish(t, err))
        goto fail;
    return t;
fail:
    tl_topo_destroy(t);
    return NULL;
}
