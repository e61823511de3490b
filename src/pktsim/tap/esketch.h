/* Elastic Sketch (Yang et al., SIGCOMM'18), as PARALEON runs it at every ToR
 * (paraleon.txt §III-A, §IV-A): a heavy part of buckets, each with up to
 * `slots` flows (id, vote+, flag) and one vote- shared by them, and a light
 * part, a count-min row of small saturating counters. Counts are payload
 * bytes of data packets, keyed by tailor's flow index (no fingerprint
 * collisions); light counters count MTU-sized units, rounded up, so a light
 * estimate never under-counts while no counter has saturated. */
#ifndef TAILOR_PKTSIM_TAP_ESKETCH_H
#define TAILOR_PKTSIM_TAP_ESKETCH_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"

#define TL_ESK_EMPTY UINT32_MAX

typedef struct tl_esketch {
    uint32_t n_buckets, n_slots;
    double evict_ratio;   /* lambda: evict when vote-/vote+ reaches it */
    uint32_t *id;         /* (n_buckets x n_slots) flow, TL_ESK_EMPTY if free */
    uint64_t *pos;        /* vote+ of each slot */
    uint8_t *flag;        /* the slot's flow may have bytes in the light part */
    uint64_t *neg;        /* (n_buckets) vote- */
    uint32_t light_w;     /* counters */
    int light_bits;       /* 8 or 16 */
    uint8_t *light8;
    uint16_t *light16;
    uint32_t light_unit;  /* bytes per light count */
    uint32_t light_used;  /* non-zero light counters (linear counting needs no scan) */
    uint64_t seed;        /* hash salt */
    uint64_t n_pkts, n_bytes;  /* inserted since the last reset */
    uint64_t n_evictions;
} tl_esketch;

/* Sizes: heavy buckets x slots, light part light_bytes of light_bits-bit
 * counters of unit bytes each. */
int tl_esketch_init(tl_esketch *k, uint32_t buckets, uint32_t slots, double evict_ratio,
                    uint64_t light_bytes, int light_bits, uint32_t unit, uint64_t seed, tl_err *err);
void tl_esketch_fini(tl_esketch *k);
void tl_esketch_insert(tl_esketch *k, uint32_t flow, uint32_t bytes);
/* The estimate of flow's bytes since the last reset: exact for an unflagged
 * heavy entry, never below the truth otherwise (unless a light counter
 * saturated). */
uint64_t tl_esketch_query(const tl_esketch *k, uint32_t flow);
/* Calls fn for every heavy entry with its estimate (vote+, plus the light
 * part's count when flagged). */
void tl_esketch_each_heavy(const tl_esketch *k, void (*fn)(void *ctx, uint32_t flow, uint64_t bytes),
                           void *ctx);
/* Flows counted only in the light part, estimated by linear counting of its
 * zero counters minus the flagged heavy entries (which also reach it). */
double tl_esketch_light_flows(const tl_esketch *k);
void tl_esketch_reset(tl_esketch *k);

/* The state of the taps "esketch" (PARALEON: inserts unmarked data packets
 * and marks them) and "esketch-naive" (every ToR inserts every data packet). */
typedef struct tl_esketch_tap {
    tl_esketch sk;
} tl_esketch_tap;

#endif
