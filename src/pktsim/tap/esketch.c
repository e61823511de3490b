/* Elastic Sketch and its two taps (esketch.h). The hot path is one hash, at
 * most n_slots compares and no allocation. */
#include "esketch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "../transport.h"
#include "tailor/rng.h"
#include "tailor/tune.h"

int tl_esketch_init(tl_esketch *k, uint32_t buckets, uint32_t slots, double evict_ratio,
                    uint64_t light_bytes, int light_bits, uint32_t unit, uint64_t seed, tl_err *err)
{
    memset(k, 0, sizeof *k);
    if (!buckets || !slots || !unit || (light_bits != 8 && light_bits != 16))
        return tl_err_set(err, TL_ERANGE, "Elastic Sketch: needs buckets, slots and unit > 0 and "
                                          "8- or 16-bit light counters, found %u, %u, %u, %d",
                          buckets, slots, unit, light_bits);
    k->n_buckets = buckets;
    k->n_slots = slots;
    k->evict_ratio = evict_ratio;
    k->light_bits = light_bits;
    k->light_w = (uint32_t)(light_bytes * 8 / (uint64_t)light_bits);
    if (!k->light_w)
        k->light_w = 1;
    k->light_unit = unit;
    k->seed = seed;
    size_t n = (size_t)buckets * slots;
    k->id = malloc(n * sizeof *k->id);
    k->pos = calloc(n, sizeof *k->pos);
    k->flag = calloc(n, 1);
    k->neg = calloc(buckets, sizeof *k->neg);
    if (light_bits == 8)
        k->light8 = calloc(k->light_w, 1);
    else
        k->light16 = calloc(k->light_w, 2);
    if (!k->id || !k->pos || !k->flag || !k->neg || (!k->light8 && !k->light16)) {
        tl_esketch_fini(k);
        return tl_err_nomem(err);
    }
    memset(k->id, 0xff, n * sizeof *k->id);
    return 0;
}

void tl_esketch_fini(tl_esketch *k)
{
    free(k->id);
    free(k->pos);
    free(k->flag);
    free(k->neg);
    free(k->light8);
    free(k->light16);
    memset(k, 0, sizeof *k);
}

/* fastrange: a 64-bit hash onto [0, n) without a division. */
static uint32_t slot_of(uint64_t h, uint32_t n) { return (uint32_t)(((h >> 32) * (uint64_t)n) >> 32); }

static uint32_t bucket_of(const tl_esketch *k, uint32_t flow)
{
    return slot_of(tl_mix64(flow ^ k->seed), k->n_buckets);
}

static uint32_t light_of(const tl_esketch *k, uint32_t flow)
{
    return slot_of(tl_mix64(flow ^ (k->seed * 0x9e3779b97f4a7c15ull + 1)), k->light_w);
}

static void light_add(tl_esketch *k, uint32_t flow, uint64_t bytes)
{
    uint64_t units = (bytes + k->light_unit - 1) / k->light_unit;
    uint32_t c = light_of(k, flow);
    k->light_used += (k->light8 ? k->light8[c] : k->light16[c]) == 0;
    if (k->light8) {
        uint64_t v = k->light8[c] + units;
        k->light8[c] = (uint8_t)(v > UINT8_MAX ? UINT8_MAX : v);
    } else {
        uint64_t v = k->light16[c] + units;
        k->light16[c] = (uint16_t)(v > UINT16_MAX ? UINT16_MAX : v);
    }
}

static uint64_t light_get(const tl_esketch *k, uint32_t flow)
{
    uint32_t c = light_of(k, flow);
    return (uint64_t)(k->light8 ? k->light8[c] : k->light16[c]) * k->light_unit;
}

void tl_esketch_insert(tl_esketch *k, uint32_t flow, uint32_t bytes)
{
    k->n_pkts++;
    k->n_bytes += bytes;
    uint32_t b = bucket_of(k, flow);
    size_t base = (size_t)b * k->n_slots;
    size_t free_slot = SIZE_MAX, min_slot = base;
    for (size_t i = base; i < base + k->n_slots; i++) {
        if (k->id[i] == flow) {
            k->pos[i] += bytes;
            return;
        }
        if (k->id[i] == TL_ESK_EMPTY) {
            if (free_slot == SIZE_MAX)
                free_slot = i;
        } else if (k->pos[i] < k->pos[min_slot]) { /* all full when it matters */
            min_slot = i;
        }
    }
    if (free_slot != SIZE_MAX) {
        k->id[free_slot] = flow;
        k->pos[free_slot] = bytes;
        k->flag[free_slot] = 0;
        return;
    }
    /* Ostracism: the bucket's smallest flow leaves once the votes against
     * it reach lambda times its own. */
    k->neg[b] += bytes;
    if ((double)k->neg[b] >= k->evict_ratio * (double)k->pos[min_slot]) {
        light_add(k, k->id[min_slot], k->pos[min_slot]);
        k->id[min_slot] = flow;
        k->pos[min_slot] = bytes;
        k->flag[min_slot] = 1; /* its earlier packets went to the light part */
        k->neg[b] = 0;
        k->n_evictions++;
        return;
    }
    light_add(k, flow, bytes);
}

uint64_t tl_esketch_query(const tl_esketch *k, uint32_t flow)
{
    size_t base = (size_t)bucket_of(k, flow) * k->n_slots;
    for (size_t i = base; i < base + k->n_slots; i++)
        if (k->id[i] == flow)
            return k->pos[i] + (k->flag[i] ? light_get(k, flow) : 0);
    return light_get(k, flow);
}

void tl_esketch_each_heavy(const tl_esketch *k, void (*fn)(void *ctx, uint32_t flow, uint64_t bytes),
                           void *ctx)
{
    size_t n = (size_t)k->n_buckets * k->n_slots;
    for (size_t i = 0; i < n; i++)
        if (k->id[i] != TL_ESK_EMPTY)
            fn(ctx, k->id[i], k->pos[i] + (k->flag[i] ? light_get(k, k->id[i]) : 0));
}

double tl_esketch_light_flows(const tl_esketch *k)
{
    uint32_t zeros = k->light_w - k->light_used;
    double w = k->light_w;
    double est = zeros ? -w * log((double)zeros / w) : w * log(w);
    size_t n = (size_t)k->n_buckets * k->n_slots, flagged = 0;
    for (size_t i = 0; i < n; i++)
        flagged += k->id[i] != TL_ESK_EMPTY && k->flag[i];
    est -= (double)flagged;
    return est > 0 ? est : 0;
}

void tl_esketch_reset(tl_esketch *k)
{
    size_t n = (size_t)k->n_buckets * k->n_slots;
    memset(k->id, 0xff, n * sizeof *k->id);
    memset(k->pos, 0, n * sizeof *k->pos);
    memset(k->flag, 0, n);
    memset(k->neg, 0, k->n_buckets * sizeof *k->neg);
    if (k->light8)
        memset(k->light8, 0, k->light_w);
    else
        memset(k->light16, 0, k->light_w * sizeof *k->light16);
    k->n_pkts = k->n_bytes = 0;
    k->light_used = 0;
}

/* ---- the taps ---- */

static int tap_init(void *vst, const tl_tap_init *in, tl_err *err)
{
    tl_esketch_tap *st = vst;
    const double *k = tl_params_table(in->params, tl_monitor_knobs);
    double mtu = tl_params_get(in->params, "nic.mtu_bytes");
    tl_rng r;
    tl_rng_init(&r, in->seed, "esketch", (uint64_t)in->id);
    return tl_esketch_init(&st->sk, (uint32_t)k[TL_MON_BUCKETS], (uint32_t)k[TL_MON_SLOTS],
                           k[TL_MON_EVICT], (uint64_t)k[TL_MON_LIGHT_BYTES],
                           (int)k[TL_MON_LIGHT_BITS], (uint32_t)mtu, tl_rng_u64(&r), err);
}

static void tap_fini(void *vst) { tl_esketch_fini(&((tl_esketch_tap *)vst)->sk); }

/* PARALEON: the first ToR on a packet's path inserts it and sets the mark;
 * later ToRs see the mark and only forward. */
static int on_packet(void *vst, const tl_tap_pkt *p, int64_t now)
{
    if (p->kind != PK_DATA || p->is_marked)
        return 0;
    tl_esketch_insert(&((tl_esketch_tap *)vst)->sk, p->flow, p->payload_bytes);
    return 1;
}

static int on_packet_naive(void *vst, const tl_tap_pkt *p, int64_t now)
{
    if (p->kind == PK_DATA)
        tl_esketch_insert(&((tl_esketch_tap *)vst)->sk, p->flow, p->payload_bytes);
    return 0;
}

const tl_tap_ops tl_tap_esketch = {
    .name = "esketch",
    .doc = "PARALEON's Elastic Sketch at one ToR: inserts each data packet that no earlier ToR "
           "marked, then marks it (monitor.* knobs size it).",
    .state_bytes = sizeof(tl_esketch_tap),
    .init = tap_init,
    .on_packet = on_packet,
    .fini = tap_fini,
};

const tl_tap_ops tl_tap_esketch_naive = {
    .name = "esketch-naive",
    .doc = "A naive Elastic Sketch at one ToR: inserts every data packet it forwards, marked or "
           "not (paraleon.txt §IV-B3's baseline).",
    .state_bytes = sizeof(tl_esketch_tap),
    .init = tap_init,
    .on_packet = on_packet_naive,
    .fini = tap_fini,
};
