/* tl_pktsim_check_invariants: the numbered invariants of pktsim_int.h,
 * checked (tests call it between runs and at the end); a violation aborts. */
#include <stdio.h>
#include <stdlib.h>

#include "pktsim_int.h"

/* Checked in every build type (NDEBUG too): tests rely on it. */
#define CHECK(x)                                                                         \
    do {                                                                                 \
        if (!(x)) {                                                                      \
            fprintf(stderr, "pktsim invariant violated: %s (%s:%d)\n", #x, __FILE__, __LINE__); \
            abort();                                                                     \
        }                                                                                \
    } while (0)

static void check_port(const tl_pktsim *s, const port *p, uint64_t *sw_q)
{
    uint64_t q = 0;
    for (int c = 0; c < 2; c++) { /* 1 */
        uint32_t last = NONE;
        for (uint32_t i = p->q_head[c]; i != NONE; i = P(s, i)->next) {
            q += P(s, i)->wire_bytes;
            last = i;
        }
        CHECK(last == p->q_tail[c]);
    }
    CHECK(q == p->q_bytes);
    for (uint32_t j = 1; j < p->ring_n; j++) { /* 2 */
        uint32_t a = (p->ring_head + j - 1) & (p->ring_cap - 1);
        uint32_t b = (p->ring_head + j) & (p->ring_cap - 1);
        CHECK(p->ring_arr_ps[a] <= p->ring_arr_ps[b]);
    }
    if (p->cap_bytes) /* a per-port buffer (switch.port_buffer_bytes) */
        CHECK(p->q_bytes <= p->cap_bytes);
    else if (p->sw != NONE)
        sw_q[p->sw] += p->q_bytes;
}

void tl_pktsim_check_invariants(const tl_pktsim *s)
{
    uint32_t n_sw = 0;
    for (uint32_t v = 0; v < tl_topo_n_nodes(s->topo); v++)
        if (s->node_sw[v] != NONE)
            n_sw++;
    uint64_t *sw_q = calloc(n_sw + 1, sizeof *sw_q);
    uint64_t *sw_h = calloc(n_sw + 1, sizeof *sw_h);
    CHECK(sw_q && sw_h);
    for (uint32_t c = 0; c < s->n_ports; c++) {
        const port *p = &s->ports[c];
        check_port(s, p, sw_q);
        /* headroom bytes sit outside the shared buffer, at the far-end switch */
        if (s->node_sw[p->to] != NONE)
            sw_h[s->node_sw[p->to]] += p->hdrm_bytes;
    }
    for (uint32_t w = 0; w < n_sw; w++) /* 3 */
        CHECK(s->sw_used[w] + sw_h[w] == sw_q[w]);
    free(sw_q);
    free(sw_h);
    for (uint32_t c = 0; c < s->n_ports; c++) { /* 4 */
        const port *p = &s->ports[c];
        if (p->rr_head == NONE)
            continue;
        uint32_t i = p->rr_head, n = 0;
        do {
            CHECK(s->cn[i].is_in_rr && s->cn[i].nic_port == c);
            CHECK(s->cn[s->cn[i].rr_next].rr_prev == i);
            i = s->cn[i].rr_next;
            CHECK(++n <= s->flows->n);
        } while (i != p->rr_head);
    }
    size_t n_sub = s->flows->n * s->tp->n_subflows; /* 5 */
    for (size_t g = 0; g < n_sub; g++)
        CHECK(s->sub[g].path_off >= 1 && s->sub[g].path_off + s->sub[g].hops <= s->path_used &&
               s->path[s->sub[g].path_off - 1] == s->sub[g].hops);
}
