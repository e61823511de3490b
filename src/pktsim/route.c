/* pktsim's path store (docs/pktsim.md): every path a subflow is given is
 * interned once, as its hop count followed by its channels, and named by
 * the offset of its first channel; packets carry that offset, so a packet
 * keeps the path it was sent on after its subflow moves. The paths of a
 * source/destination pair are its ECMP paths, materialised as load
 * balancers first pick them: a load balancer that sprays every packet over
 * a new entropy adds no storage once each ECMP path of the pair has been
 * seen (htsim precomputes the same sets; interning builds them lazily, so
 * the 6,144-host fabric stores only the paths its flows use). */
#include <stdlib.h>
#include <string.h>

#include "pktsim_int.h"

static uint64_t path_hash(const uint32_t *ch, int h)
{
    uint64_t x = (uint64_t)h;
    for (int i = 0; i < h; i++)
        x = tl_mix64(x ^ ch[i]);
    return x;
}

static int same_path(const tl_pktsim *s, uint32_t off, const uint32_t *ch, int h)
{
    return s->path[off - 1] == (uint32_t)h && memcmp(s->path + off, ch, (size_t)h * sizeof *ch) == 0;
}

/* Doubles the hash table and re-inserts every path. */
static int ht_grow(tl_pktsim *s)
{
    size_t ncap = s->path_ht_cap * 2;
    uint32_t *nt = calloc(ncap, sizeof *nt);
    if (!nt)
        return TL_ENOMEM;
    for (size_t i = 0; i < s->path_ht_cap; i++) {
        uint32_t off = s->path_ht[i];
        if (!off)
            continue;
        int h = (int)s->path[off - 1];
        size_t j = path_hash(s->path + off, h) & (ncap - 1);
        while (nt[j])
            j = (j + 1) & (ncap - 1);
        nt[j] = off;
    }
    free(s->path_ht);
    s->path_ht = nt;
    s->path_ht_cap = ncap;
    return 0;
}

/* The offset of path ch[0..h) in the store, adding it if new; 0 on failure. */
static uint32_t intern(tl_pktsim *s, const uint32_t *ch, int h)
{
    size_t j = path_hash(ch, h) & (s->path_ht_cap - 1);
    for (; s->path_ht[j]; j = (j + 1) & (s->path_ht_cap - 1))
        if (same_path(s, s->path_ht[j], ch, h))
            return s->path_ht[j];
    if (s->path_used + (size_t)h + 1 > s->path_cap) {
        size_t ncap = s->path_cap * 2;
        if (ncap > UINT32_MAX)
            return 0;
        uint32_t *np = realloc(s->path, ncap * sizeof *np);
        if (!np)
            return 0;
        s->path = np;
        s->path_cap = ncap;
    }
    uint32_t off = (uint32_t)s->path_used + 1;
    s->path[off - 1] = (uint32_t)h;
    memcpy(s->path + off, ch, (size_t)h * sizeof *ch);
    s->path_used += (size_t)h + 1;
    s->path_ht[j] = off;
    if (++s->path_n * 2 > s->path_ht_cap && ht_grow(s))
        return 0;
    return off;
}

int route_path(tl_pktsim *s, uint32_t fi, uint64_t e, uint32_t *off, tl_err *err)
{
    const tl_flow *fw = &s->flows->v[fi];
    const tl_routes *r = s->own_routes ? s->own_routes : s->routes;
    uint64_t id = e ? fw->id ^ tl_mix64(e) : fw->id;
    uint32_t ch[TL_MAX_HOPS];
    int h = tl_routes_path(r, id, fw->src, fw->dst, ch, TL_MAX_HOPS, err);
    if (h < 0)
        return h;
    *off = intern(s, ch, h);
    if (!*off)
        return tl_err_nomem(err);
    return h;
}

int route_init(tl_pktsim *s, size_t n_flows, tl_err *err)
{
    s->path_cap = (n_flows ? n_flows : 1) * 8;
    s->path = malloc(s->path_cap * sizeof *s->path);
    s->path_ht_cap = 64;
    while (s->path_ht_cap < 2 * n_flows)
        s->path_ht_cap *= 2;
    s->path_ht = calloc(s->path_ht_cap, sizeof *s->path_ht);
    if (!s->path || !s->path_ht)
        return tl_err_nomem(err);
    s->path_used = 0;
    return 0;
}

void route_free(tl_pktsim *s)
{
    free(s->path);
    free(s->path_ht);
    tl_routes_destroy(s->own_routes);
}

/* A link went down: routes avoid every link failed so far, and each
 * unfinished connection's subflows move to their paths under them (packets
 * already sent keep theirs). A connection left without a route will never
 * finish. */
int route_on_link_fail(tl_pktsim *s, uint32_t link, int64_t now)
{
    tl_routes_destroy(s->own_routes);
    s->own_routes = tl_routes_create_masked(s->topo, s->seed, s->link_down, &s->sticky);
    if (!s->own_routes)
        return s->sticky.code;
    const size_t n = s->flows->n;
    const uint32_t n_sub = s->tp->n_subflows;
    for (size_t i = 0; i < n; i++) {
        conn *c = &s->cn[i];
        if (c->is_rx_done || c->is_unreachable)
            continue;
        port *old_nic = &s->ports[c->nic_port];
        int is_cut = 0;
        for (uint32_t j = 0; j < n_sub && !is_cut; j++) {
            tl_subflow *sf = &s->sub[i * n_sub + j];
            tl_err perr;
            uint32_t off;
            int h = route_path(s, (uint32_t)i, sf->entropy, &off, &perr);
            if (h == TL_ENOMEM)
                return pktsim_fail_nomem(s);
            if (h < 0) {
                is_cut = 1;
                break;
            }
            sf->path_off = off;
            sf->hops = (uint8_t)h;
        }
        if (is_cut) { /* cut off: it will never finish */
            c->is_unreachable = 1;
            s->n_unreachable++;
            s->st.n_flows_unreachable++;
            if (c->is_started) {
                s->st.n_flows_active--;
                tp_tx_done(s, (uint32_t)i);
            }
            continue;
        }
        uint32_t nic = s->path[s->sub[i * n_sub].path_off];
        if (nic != c->nic_port) {
            int was_in = c->is_in_rr;
            nic_remove(s, old_nic, (uint32_t)i);
            c->nic_port = nic;
            if (was_in)
                nic_add(s, &s->ports[nic], (uint32_t)i);
        }
    }
    return 0;
}
