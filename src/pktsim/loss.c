/* Random packet loss on arrival at a port, before buffer admission (where
 * Uno's artifact drops, sim/compositequeue.cpp), for UnoRC's experiments
 * (uno.txt §2.4 Table 1, §5.3). Two models: independent (loss.rate per
 * packet) and correlated as Table 1 measured it: the packets arriving at a
 * port form chunks of loss.chunk_pkts, and a chunk loses 1, 2 or 3 of them
 * with probabilities loss.p1..p3 (Setup 1 by default, read as Uno's artifact
 * reads the table: per chunk). Every lossy port draws from its own stream
 * (seed, "loss", channel), so the losses of a seed are the same whatever the
 * load balancer does with the shared stream. Tests can instead name the
 * data packets to drop (loss_set_pattern). */
#include <stdlib.h>
#include <string.h>

#include "pktsim_int.h"

enum { MODEL, RATE, P1, P2, P3, CHUNK, SCOPE, DATA_ONLY, N_KNOBS };
enum { LOSS_NONE, LOSS_BERNOULLI, LOSS_CHUNKED };
enum { SCOPE_WAN, SCOPE_BORDER, SCOPE_SWITCH };

const tl_param_def tl_loss_knobs[TL_LOSS_N_KNOBS] = {
    [MODEL] = {"loss.model", TL_UNIT_NONE, 0, 0, 2, 1, TL_DIR_NEUTRAL,
               "Random loss: 0 none, 1 independent (loss.rate per packet), 2 in chunks as uno.txt "
               "Table 1 measured (loss.p1..p3)."},
    [RATE] = {"loss.rate", TL_UNIT_FRAC, 0, 0, 1, 0, TL_DIR_NEUTRAL,
              "Loss model 1: the probability that a packet is dropped."},
    [P1] = {"loss.p1", TL_UNIT_FRAC, 3.0e-4, 0, 1, 0, TL_DIR_NEUTRAL,
            "Loss model 2: probability that a chunk loses exactly 1 packet (Table 1, Setup 1: "
            "3.0e-4; Setup 2: 4.0e-5)."},
    [P2] = {"loss.p2", TL_UNIT_FRAC, 7.5e-5, 0, 1, 0, TL_DIR_NEUTRAL,
            "... exactly 2 (Setup 1: 7.5e-5; Setup 2: 2.3e-5)."},
    [P3] = {"loss.p3", TL_UNIT_FRAC, 1.6e-5, 0, 1, 0, TL_DIR_NEUTRAL,
            "... exactly 3 (Setup 1: 1.6e-5; Setup 2: 4.9e-6)."},
    [CHUNK] = {"loss.chunk_pkts", TL_UNIT_NONE, 10, 3, 64, 1, TL_DIR_NEUTRAL,
               "Loss model 2: packets per chunk (Table 1: 10)."},
    [SCOPE] = {"loss.scope", TL_UNIT_NONE, 1, 0, 2, 1, TL_DIR_NEUTRAL,
               "Lossy ports: 0 the links between data centers, 1 every port of a link with a "
               "border switch (tier 4) at an end (Uno's artifact), 2 every switch port."},
    [DATA_ONLY] = {"loss.data_only", TL_UNIT_BOOL, 0, 0, 1, 1, TL_DIR_NEUTRAL,
                   "1: only data packets are lost; 0: ACKs and NACKs too (Uno's artifact)."},
};

_Static_assert(N_KNOBS == TL_LOSS_N_KNOBS, "tailor/params.h declares the table's size");

typedef struct loss_port {
    tl_rng rng;
    int model, is_data_only;
    double rate, p[3];
    uint32_t chunk, pos;
    uint64_t mask;            /* positions of the current chunk to drop */
    const uint64_t *pattern;  /* loss_set_pattern: data-packet arrival indices, sorted */
    size_t n_pattern, next_pattern;
    uint64_t n_data;          /* data packets arrived */
} loss_port;

static int is_lossy(const tl_pktsim *s, const port *p, int scope)
{
    if (p->sw == NONE)
        return 0; /* a host's NIC: packets start there */
    const tl_node *a = tl_topo_node(s->topo, p->from), *b = tl_topo_node(s->topo, p->to);
    switch (scope) {
    case SCOPE_WAN: return p->pclass == TL_PORT_WAN;
    case SCOPE_BORDER: return a->tier == 4 || b->tier == 4 || p->pclass == TL_PORT_WAN;
    default: return 1;
    }
}

static loss_port *port_state(tl_pktsim *s, port *p, tl_err *err)
{
    if (p->loss)
        return p->loss;
    loss_port *l = calloc(1, sizeof *l);
    if (!l) {
        tl_err_nomem(err);
        return NULL;
    }
    tl_rng_init(&l->rng, s->seed, "loss", (uint64_t)(p - s->ports));
    p->loss = l;
    return l;
}

int loss_build(tl_pktsim *s, tl_err *err)
{
    const double *k = tl_params_table(&s->params, tl_loss_knobs);
    if (k[MODEL] == LOSS_NONE)
        return 0;
    for (uint32_t c = 0; c < s->n_ports; c++) {
        port *p = &s->ports[c];
        if (!is_lossy(s, p, (int)k[SCOPE]))
            continue;
        loss_port *l = port_state(s, p, err);
        if (!l)
            return err->code;
        l->model = (int)k[MODEL];
        l->is_data_only = k[DATA_ONLY] != 0;
        l->rate = k[RATE];
        l->p[0] = k[P1], l->p[1] = k[P2], l->p[2] = k[P3];
        l->chunk = (uint32_t)k[CHUNK];
    }
    return 0;
}

int loss_set_pattern(tl_pktsim *s, uint32_t chan, const uint64_t *idx, size_t n, tl_err *err)
{
    if (chan >= s->n_ports || s->ports[chan].sw == NONE)
        return tl_err_set(err, TL_EINVAL, "loss pattern: channel %u is not a switch port", chan);
    loss_port *l = port_state(s, &s->ports[chan], err);
    if (!l)
        return err->code;
    l->pattern = idx;
    l->n_pattern = n;
    l->next_pattern = 0;
    return 0;
}

void loss_free(tl_pktsim *s)
{
    for (uint32_t c = 0; s->ports && c < s->n_ports; c++) {
        free(s->ports[c].loss);
        s->ports[c].loss = NULL;
    }
}

/* k distinct positions of a chunk of n, as a bit mask. */
static uint64_t pick(tl_rng *r, uint32_t n, int k)
{
    uint64_t m = 0;
    while (k > 0) {
        uint64_t bit = 1ull << tl_rng_below(r, n);
        if (!(m & bit)) {
            m |= bit;
            k--;
        }
    }
    return m;
}

int loss_drops(tl_pktsim *s, port *p, const pkt *k)
{
    loss_port *l = p->loss;
    int is_data = k->kind == PK_DATA;
    if (l->pattern) {
        if (!is_data)
            return 0;
        uint64_t i = l->n_data++;
        while (l->next_pattern < l->n_pattern && l->pattern[l->next_pattern] < i)
            l->next_pattern++;
        return l->next_pattern < l->n_pattern && l->pattern[l->next_pattern] == i;
    }
    if (l->is_data_only && !is_data)
        return 0;
    if (l->model == LOSS_BERNOULLI)
        return tl_rng_uniform(&l->rng) < l->rate;
    if (l->pos == 0) {
        double u = tl_rng_uniform(&l->rng);
        int n = u < l->p[2] ? 3 : u < l->p[2] + l->p[1] ? 2 : u < l->p[2] + l->p[1] + l->p[0] ? 1 : 0;
        l->mask = n ? pick(&l->rng, l->chunk, n) : 0;
    }
    int drop = (l->mask >> l->pos) & 1;
    l->pos = l->pos + 1 == l->chunk ? 0 : l->pos + 1;
    return drop;
}
