/* Topology builder and indices (see tailor/topo.h for the invariants). */
#include "topo_int.h"
#include "tailor/memlimit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tl_topo *tl_topo_create(tl_err *err)
{
    tl_topo *t = calloc(1, sizeof *t);
    if (!t)
        tl_err_nomem(err);
    return t;
}

void tl_topo_destroy(tl_topo *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t->links);
    free(t->out_off);
    free(t->out_chan);
    free(t->hosts);
    free(t->rack_off);
    free(t->rack_hosts);
    free(t->pod_off);
    free(t->pod_racks);
    free(t);
}

/* Doubles an array; a topology that outgrows the machine's memory is
 * refused before the allocation (what: "nodes", "links"). */
static int grow(void **p, uint32_t *cap, size_t elem, const char *what, tl_err *err)
{
    if (*cap >= UINT32_MAX / 2)
        return tl_err_set(err, TL_ERANGE, "the topology has more than %u %s", *cap, what);
    uint32_t ncap = *cap ? *cap * 2 : 64;
    char desc[96];
    snprintf(desc, sizeof desc, "a topology of more than %u %s (and its indices, several times that)",
             *cap, what);
    /* the indices built at finish (channels, adjacency, routing) take several times the array */
    if (tl_mem_check(4.0 * (double)ncap * (double)elem, desc, err))
        return err ? err->code : TL_ERANGE;
    void *q = realloc(*p, (size_t)ncap * elem);
    if (!q)
        return tl_err_nomem(err);
    *p = q;
    *cap = ncap;
    return 0;
}

int64_t tl_topo_add_node(tl_topo *t, tl_node_kind kind, int tier, int pod, int rack, int dc,
                         tl_err *err)
{
    if (t->n_nodes == t->cap_nodes && grow((void **)&t->nodes, &t->cap_nodes, sizeof *t->nodes, "nodes", err))
        return -1;
    tl_node *n = &t->nodes[t->n_nodes];
    n->kind = (uint8_t)kind;
    n->tier = kind == TL_NODE_HOST ? 0 : (uint8_t)tier;
    n->pod = pod;
    n->rack = rack;
    n->dc = dc < 0 ? 0 : dc;
    return t->n_nodes++;
}

int64_t tl_topo_add_link(tl_topo *t, uint32_t a, uint32_t b, uint64_t rate_bps, int64_t delay_ps,
                         tl_err *err)
{
    if (a >= t->n_nodes || b >= t->n_nodes) {
        tl_err_set(err, TL_EINVAL, "link %u-%u names an unknown node (there are %u nodes)", a, b,
                   t->n_nodes);
        return -1;
    }
    if (a == b) {
        tl_err_set(err, TL_EINVAL, "link %u-%u joins a node to itself", a, b);
        return -1;
    }
    if (rate_bps == 0) {
        tl_err_set(err, TL_ERANGE, "link %u-%u: expected a bandwidth > 0, found 0", a, b);
        return -1;
    }
    if (delay_ps < 0) {
        tl_err_set(err, TL_ERANGE, "link %u-%u: expected a delay >= 0, found %lld ps", a, b,
                   (long long)delay_ps);
        return -1;
    }
    if (t->n_links == t->cap_links && grow((void **)&t->links, &t->cap_links, sizeof *t->links, "links", err))
        return -1;
    t->links[t->n_links] = (tl_link){.a = a, .b = b, .rate_bps = rate_bps, .delay_ps = delay_ps};
    return t->n_links++;
}

/* Tier of switches the builder left as TL_TIER_AUTO: hop distance to the
 * nearest host, by a multi-source BFS. */
static int derive_tiers(tl_topo *t, tl_err *err)
{
    uint32_t *dist = malloc((size_t)t->n_nodes * sizeof *dist);
    uint32_t *queue = malloc((size_t)t->n_nodes * sizeof *queue);
    if (!dist || !queue) {
        free(dist);
        free(queue);
        return tl_err_nomem(err);
    }
    uint32_t head = 0, tail = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        dist[i] = UINT32_MAX;
        if (t->nodes[i].kind == TL_NODE_HOST) {
            dist[i] = 0;
            queue[tail++] = i;
        }
    }
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t k = t->out_off[u]; k < t->out_off[u + 1]; k++) {
            uint32_t v = tl_topo_chan_to(t, t->out_chan[k]);
            if (dist[v] == UINT32_MAX) {
                dist[v] = dist[u] + 1;
                queue[tail++] = v;
            }
        }
    }
    for (uint32_t i = 0; i < t->n_nodes; i++)
        if (t->nodes[i].kind == TL_NODE_SWITCH && t->nodes[i].tier == TL_TIER_AUTO)
            t->nodes[i].tier = dist[i] == UINT32_MAX ? 1 : (uint8_t)(dist[i] > 254 ? 254 : dist[i]);
    free(dist);
    free(queue);
    return 0;
}

static int build_adjacency(tl_topo *t, tl_err *err)
{
    t->out_off = calloc((size_t)t->n_nodes + 1, sizeof *t->out_off);
    t->out_chan = malloc(((size_t)t->n_links * 2 + 1) * sizeof *t->out_chan);
    if (!t->out_off || !t->out_chan)
        return tl_err_nomem(err);
    for (uint32_t l = 0; l < t->n_links; l++) {
        t->out_off[t->links[l].a + 1]++;
        t->out_off[t->links[l].b + 1]++;
    }
    for (uint32_t i = 0; i < t->n_nodes; i++)
        t->out_off[i + 1] += t->out_off[i];
    uint32_t *fill = malloc((size_t)t->n_nodes * sizeof *fill);
    if (!fill)
        return tl_err_nomem(err);
    memcpy(fill, t->out_off, (size_t)t->n_nodes * sizeof *fill);
    for (uint32_t l = 0; l < t->n_links; l++) {
        t->out_chan[fill[t->links[l].a]++] = 2 * l;
        t->out_chan[fill[t->links[l].b]++] = 2 * l + 1;
    }
    free(fill);
    return 0;
}

/* Racks: a host's given rack, else one rack per first-neighbour switch.
 * Pods: a rack's given pod (from its hosts), else pod 0. Rack and pod numbers
 * given by the builder are kept; derived racks are numbered after them. */
static int build_racks(tl_topo *t, tl_err *err)
{
    int32_t max_rack = -1, max_pod = -1;
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        if (t->nodes[i].rack > max_rack)
            max_rack = t->nodes[i].rack;
        if (t->nodes[i].pod > max_pod)
            max_pod = t->nodes[i].pod;
        if ((uint32_t)t->nodes[i].dc + 1 > t->n_dcs)
            t->n_dcs = (uint32_t)t->nodes[i].dc + 1;
    }
    int32_t *switch_rack = malloc((size_t)t->n_nodes * sizeof *switch_rack);
    if (!switch_rack)
        return tl_err_nomem(err);
    for (uint32_t i = 0; i < t->n_nodes; i++)
        switch_rack[i] = t->nodes[i].kind == TL_NODE_SWITCH ? t->nodes[i].rack : -1;
    for (uint32_t h = 0; h < t->n_hosts; h++) {
        tl_node *hn = &t->nodes[t->hosts[h]];
        if (hn->rack >= 0)
            continue;
        uint32_t sw = tl_topo_chan_to(t, t->out_chan[t->out_off[t->hosts[h]]]);
        if (switch_rack[sw] < 0)
            switch_rack[sw] = ++max_rack;
        hn->rack = switch_rack[sw];
        if (t->nodes[sw].kind == TL_NODE_SWITCH && t->nodes[sw].rack < 0)
            t->nodes[sw].rack = hn->rack;
    }
    free(switch_rack);
    t->n_racks = (uint32_t)(max_rack + 1);
    int32_t *rack_pod = malloc(((size_t)t->n_racks + 1) * sizeof *rack_pod);
    t->rack_off = calloc((size_t)t->n_racks + 1, sizeof *t->rack_off);
    t->rack_hosts = malloc(((size_t)t->n_hosts + 1) * sizeof *t->rack_hosts);
    if (!rack_pod || !t->rack_off || !t->rack_hosts) {
        free(rack_pod);
        return tl_err_nomem(err);
    }
    for (uint32_t r = 0; r < t->n_racks; r++)
        rack_pod[r] = -1;
    for (uint32_t h = 0; h < t->n_hosts; h++) {
        tl_node *hn = &t->nodes[t->hosts[h]];
        t->rack_off[hn->rack + 1]++;
        if (hn->pod >= 0)
            rack_pod[hn->rack] = hn->pod;
    }
    for (uint32_t r = 0; r < t->n_racks; r++)
        t->rack_off[r + 1] += t->rack_off[r];
    uint32_t *fill = malloc(((size_t)t->n_racks + 1) * sizeof *fill);
    if (!fill) {
        free(rack_pod);
        return tl_err_nomem(err);
    }
    memcpy(fill, t->rack_off, (size_t)t->n_racks * sizeof *fill);
    for (uint32_t h = 0; h < t->n_hosts; h++)
        t->rack_hosts[fill[t->nodes[t->hosts[h]].rack]++] = t->hosts[h];
    free(fill);
    for (uint32_t r = 0; r < t->n_racks; r++)
        if (rack_pod[r] < 0)
            rack_pod[r] = 0;
    for (uint32_t h = 0; h < t->n_hosts; h++) {
        tl_node *hn = &t->nodes[t->hosts[h]];
        hn->pod = rack_pod[hn->rack];
    }
    t->n_pods = (uint32_t)(max_pod + 1);
    if (t->n_pods == 0)
        t->n_pods = 1;
    t->pod_off = calloc((size_t)t->n_pods + 1, sizeof *t->pod_off);
    t->pod_racks = malloc(((size_t)t->n_racks + 1) * sizeof *t->pod_racks);
    if (!t->pod_off || !t->pod_racks) {
        free(rack_pod);
        return tl_err_nomem(err);
    }
    for (uint32_t r = 0; r < t->n_racks; r++)
        t->pod_off[rack_pod[r] + 1]++;
    for (uint32_t p = 0; p < t->n_pods; p++)
        t->pod_off[p + 1] += t->pod_off[p];
    uint32_t *pfill = malloc(((size_t)t->n_pods + 1) * sizeof *pfill);
    if (!pfill) {
        free(rack_pod);
        return tl_err_nomem(err);
    }
    memcpy(pfill, t->pod_off, (size_t)t->n_pods * sizeof *pfill);
    for (uint32_t r = 0; r < t->n_racks; r++)
        t->pod_racks[pfill[rack_pod[r]]++] = r;
    free(pfill);
    free(rack_pod);
    return 0;
}

int tl_topo_finish(tl_topo *t, tl_err *err)
{
    if (t->is_finished)
        return tl_err_set(err, TL_EINVAL, "topology finished twice");
    if (t->n_nodes == 0)
        return tl_err_set(err, TL_EINVAL, "topology has no nodes");
    int rc = build_adjacency(t, err);
    if (rc)
        return rc;
    t->hosts = malloc(((size_t)t->n_nodes + 1) * sizeof *t->hosts);
    if (!t->hosts)
        return tl_err_nomem(err);
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        if (t->nodes[i].kind != TL_NODE_HOST)
            continue;
        if (t->out_off[i] == t->out_off[i + 1])
            return tl_err_set(err, TL_EINVAL, "host %u has no link", i);
        t->hosts[t->n_hosts++] = i;
    }
    if (t->n_hosts == 0)
        return tl_err_set(err, TL_EINVAL, "topology has no hosts");
    if ((rc = derive_tiers(t, err)) || (rc = build_racks(t, err)))
        return rc;
    t->is_finished = 1;
    return 0;
}

uint32_t tl_topo_n_nodes(const tl_topo *t) { return t->n_nodes; }
uint32_t tl_topo_n_links(const tl_topo *t) { return t->n_links; }
uint32_t tl_topo_n_hosts(const tl_topo *t) { return t->n_hosts; }
uint32_t tl_topo_n_racks(const tl_topo *t) { return t->n_racks; }
uint32_t tl_topo_n_pods(const tl_topo *t) { return t->n_pods; }
uint32_t tl_topo_n_dcs(const tl_topo *t) { return t->n_dcs ? t->n_dcs : 1; }
const tl_node *tl_topo_node(const tl_topo *t, uint32_t id) { return &t->nodes[id]; }
const tl_link *tl_topo_link(const tl_topo *t, uint32_t id) { return &t->links[id]; }
const uint32_t *tl_topo_hosts(const tl_topo *t) { return t->hosts; }

const uint32_t *tl_topo_rack_hosts(const tl_topo *t, uint32_t rack, uint32_t *n)
{
    *n = t->rack_off[rack + 1] - t->rack_off[rack];
    return t->rack_hosts + t->rack_off[rack];
}

const uint32_t *tl_topo_pod_racks(const tl_topo *t, uint32_t pod, uint32_t *n)
{
    *n = t->pod_off[pod + 1] - t->pod_off[pod];
    return t->pod_racks + t->pod_off[pod];
}

const uint32_t *tl_topo_out_chans(const tl_topo *t, uint32_t node, uint32_t *n)
{
    *n = t->out_off[node + 1] - t->out_off[node];
    return t->out_chan + t->out_off[node];
}

uint32_t tl_topo_chan_from(const tl_topo *t, uint32_t chan)
{
    const tl_link *l = &t->links[chan >> 1];
    return (chan & 1) ? l->b : l->a;
}

uint32_t tl_topo_chan_to(const tl_topo *t, uint32_t chan)
{
    const tl_link *l = &t->links[chan >> 1];
    return (chan & 1) ? l->a : l->b;
}

uint32_t tl_topo_host_chan(const tl_topo *t, uint32_t host, int is_in)
{
    uint32_t n;
    const uint32_t *ch = tl_topo_out_chans(t, host, &n);
    return n ? ch[0] ^ (uint32_t)(is_in != 0) : UINT32_MAX;
}

int tl_topo_set_failed(tl_topo *t, uint32_t link, int is_failed, tl_err *err)
{
    if (link >= t->n_links)
        return tl_err_set(err, TL_ERANGE, "link %u does not exist (there are %u links)", link,
                          t->n_links);
    t->links[link].is_failed = is_failed ? 1 : 0;
    return 0;
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

int tl_topo_check_connected(const tl_topo *t, tl_err *err)
{
    if (t->n_nodes == 0)
        return 0;
    uint32_t *parent = malloc((size_t)t->n_nodes * sizeof *parent);
    if (!parent)
        return tl_err_nomem(err);
    for (uint32_t i = 0; i < t->n_nodes; i++)
        parent[i] = i;
    for (uint32_t l = 0; l < t->n_links; l++)
        if (!t->links[l].is_failed)
            parent[uf_find(parent, t->links[l].a)] = uf_find(parent, t->links[l].b);
    int rc = 0;
    int64_t first = -1;
    for (uint32_t i = 0; i < t->n_nodes && !rc; i++) {
        if (t->nodes[i].kind != TL_NODE_HOST)
            continue;
        if (first < 0)
            first = i;
        else if (uf_find(parent, i) != uf_find(parent, (uint32_t)first))
            rc = tl_err_set(err, TL_EINVAL,
                            "hosts %u and %u are not connected: no path of links joins them "
                            "(expected every host to reach every other)",
                            (uint32_t)first, i);
    }
    free(parent);
    return rc;
}
