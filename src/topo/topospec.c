/* Topologies named in one line, "family:key=value,...", for the throughput
 * commands and benchmarks (e.g. "jellyfish:switches=100,degree=8,servers=4",
 * "flattened_butterfly:k=5,n=2,servers=5"). Every generator of topo.h is
 * reachable; unknown families and keys are errors with a suggestion. */
#include "tailor/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/strutil.h"
#include "tailor/units.h"

typedef struct kv {
    char key[32], val[64];
    int is_used;
} kv;

typedef struct spec {
    char family[32];
    kv kv[16];
    int n;
    const char *text;
    tl_err *err;
    int failed;
} spec;

static int parse(spec *s, const char *text, tl_err *err)
{
    memset(s, 0, sizeof *s);
    s->text = text;
    s->err = err;
    const char *colon = strchr(text, ':');
    size_t fl = colon ? (size_t)(colon - text) : strlen(text);
    if (fl == 0 || fl >= sizeof s->family)
        return tl_err_set(err, TL_EPARSE, "topology '%s': expected family:key=value,...", text);
    memcpy(s->family, text, fl);
    const char *p = colon ? colon + 1 : text + fl;
    while (*p) {
        const char *comma = strchr(p, ','), *eq = strchr(p, '=');
        const char *end = comma ? comma : p + strlen(p);
        if (!eq || eq > end || eq == p || s->n == 16 || (size_t)(eq - p) >= sizeof s->kv[0].key ||
            (size_t)(end - eq - 1) >= sizeof s->kv[0].val || end == eq + 1)
            return tl_err_set(err, TL_EPARSE, "topology '%s': expected key=value at '%.*s'", text,
                              (int)(end - p), p);
        kv *k = &s->kv[s->n++];
        memcpy(k->key, p, (size_t)(eq - p));
        memcpy(k->val, eq + 1, (size_t)(end - eq - 1));
        p = comma ? comma + 1 : end;
    }
    return 0;
}

static const char *get(spec *s, const char *key)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->kv[i].key, key) == 0) {
            s->kv[i].is_used = 1;
            return s->kv[i].val;
        }
    return NULL;
}

static uint32_t u32(spec *s, const char *key, uint32_t def, int required)
{
    const char *v = get(s, key);
    if (!v) {
        if (required && !s->failed) {
            s->failed = 1;
            tl_err_set(s->err, TL_EPARSE, "topology '%s': %s needs %s=...", s->text, s->family, key);
        }
        return def;
    }
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (*end || end == v || x > 100000000ul) {
        if (!s->failed) {
            s->failed = 1;
            tl_err_set(s->err, TL_EPARSE, "topology '%s': %s expects a whole number, found '%s'",
                       s->text, key, v);
        }
        return def;
    }
    return (uint32_t)x;
}

static uint64_t rate(spec *s, const char *key)
{
    const char *v = get(s, key);
    uint64_t bps = 0;
    if (v && tl_units_parse_rate(v, &bps) != 0 && !s->failed) {
        s->failed = 1;
        tl_err_set(s->err, TL_EPARSE, "topology '%s': %s expects a rate like 10Gbps, found '%s'",
                   s->text, key, v);
    }
    return bps;
}

static int check_unused(spec *s)
{
    for (int i = 0; i < s->n; i++)
        if (!s->kv[i].is_used)
            return tl_err_set(s->err, TL_EPARSE, "topology '%s': %s does not take '%s'", s->text,
                              s->family, s->kv[i].key);
    return 0;
}

tl_topo *tl_topo_from_spec(const char *text, uint64_t seed, tl_err *err)
{
    static const char *const families[] = {
        "fat_tree",  "leaf_spine", "fabric", "jellyfish", "hypercube", "flattened_butterfly",
        "hyperx",    "dragonfly",  "slimfly", "bcube",    "dcell",     "longhop", NULL};
    spec s;
    if (parse(&s, text, err))
        return NULL;
    tl_topo *t = NULL;
    uint64_t bps = rate(&s, "link_bps");
    const char *f = s.family;
    if (strcmp(f, "fat_tree") == 0) {
        tl_fattree_params p = {.k = u32(&s, "k", 0, 1), .hosts_per_edge = u32(&s, "servers", 0, 0),
                               .host_bps = bps, .fabric_bps = bps};
        if (!s.failed && !check_unused(&s))
            t = tl_topo_fattree(&p, err);
    } else if (strcmp(f, "leaf_spine") == 0) {
        tl_leafspine_params p = {.leaves = u32(&s, "leaves", 0, 1), .spines = u32(&s, "spines", 0, 1),
                                 .hosts_per_leaf = u32(&s, "servers", 0, 1), .host_bps = bps,
                                 .fabric_bps = bps};
        if (!s.failed && !check_unused(&s))
            t = tl_topo_leafspine(&p, err);
    } else if (strcmp(f, "fabric") == 0) {
        tl_fabric_params p = {.pods = u32(&s, "pods", 0, 1), .racks_per_pod = u32(&s, "racks", 0, 1),
                              .hosts_per_rack = u32(&s, "servers", 0, 1),
                              .planes = u32(&s, "planes", 0, 1),
                              .spines_per_plane = u32(&s, "spines", 0, 1)};
        if (!s.failed && !check_unused(&s))
            t = tl_topo_fabric(&p, err);
    } else if (strcmp(f, "jellyfish") == 0) {
        uint32_t n = u32(&s, "switches", 0, 1), d = u32(&s, "degree", 0, 1),
                 sv = u32(&s, "servers", 1, 0), sd = u32(&s, "seed", (uint32_t)seed, 0);
        if (!s.failed && !check_unused(&s))
            t = tl_topo_jellyfish(n, d, sv, sd, bps, err);
    } else if (strcmp(f, "hypercube") == 0) {
        uint32_t d = u32(&s, "dim", 0, 1), sv = u32(&s, "servers", 1, 0);
        if (!s.failed && !check_unused(&s))
            t = tl_topo_hypercube(d, sv, bps, err);
    } else if (strcmp(f, "flattened_butterfly") == 0) {
        uint32_t k = u32(&s, "k", 0, 1), n = u32(&s, "n", 0, 1), sv = u32(&s, "servers", 0, 0);
        if (!s.failed && !check_unused(&s))
            t = tl_topo_flattened_butterfly(k, n, sv ? sv : k, bps, err);
    } else if (strcmp(f, "hyperx") == 0) {
        const char *sz = get(&s, "sizes");
        uint32_t dims[8], nd = 0;
        for (const char *p = sz; p && *p && nd < 8;) {
            char *end;
            unsigned long x = strtoul(p, &end, 10);
            if (end == p || x < 2 || x > 1024) {
                nd = 0;
                break;
            }
            dims[nd++] = (uint32_t)x;
            p = *end == 'x' ? end + 1 : end;
            if (*end && *end != 'x') {
                nd = 0;
                break;
            }
        }
        uint32_t m = u32(&s, "multiplicity", 1, 0), sv = u32(&s, "servers", 1, 0);
        if (!nd && !s.failed) {
            s.failed = 1;
            tl_err_set(err, TL_EPARSE, "topology '%s': hyperx needs sizes=AxBx... (each >= 2)",
                       text);
        }
        if (!s.failed && !check_unused(&s))
            t = tl_topo_hyperx(dims, nd, m, sv, bps, err);
    } else if (strcmp(f, "dragonfly") == 0) {
        uint32_t a = u32(&s, "a", 0, 1), p = u32(&s, "p", 0, 1), h = u32(&s, "h", 0, 1);
        if (!s.failed && !check_unused(&s))
            t = tl_topo_dragonfly(a, p, h, bps, err);
    } else if (strcmp(f, "slimfly") == 0) {
        uint32_t q = u32(&s, "q", 0, 1), sv = u32(&s, "servers", 1, 0);
        if (!s.failed && !check_unused(&s))
            t = tl_topo_slimfly(q, sv, bps, err);
    } else if (strcmp(f, "bcube") == 0) {
        uint32_t n = u32(&s, "n", 0, 1), k = u32(&s, "k", 0, 1);
        if (!s.failed && !check_unused(&s))
            t = tl_topo_bcube(n, k, bps, err);
    } else if (strcmp(f, "dcell") == 0) {
        uint32_t n = u32(&s, "n", 0, 1), k = u32(&s, "k", 0, 1);
        if (!s.failed && !check_unused(&s))
            t = tl_topo_dcell(n, k, bps, err);
    } else if (strcmp(f, "longhop") == 0) {
        uint32_t d = u32(&s, "dim", 0, 1), sv = u32(&s, "servers", 1, 0);
        if (!s.failed && !check_unused(&s))
            t = tl_topo_longhop(d, sv, bps, err);
    } else {
        size_t n = 0;
        while (families[n])
            n++;
        const char *sug = tl_suggest(f, families, n);
        tl_err_set(err, TL_EPARSE,
                   "unknown topology family '%s'%s%s%s; known: fat_tree, leaf_spine, fabric, "
                   "jellyfish, hypercube, flattened_butterfly, hyperx, dragonfly, slimfly, bcube, "
                   "dcell, longhop",
                   f, sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
    }
    if (!t && err && !err->code && s.failed == 0)
        tl_err_set(err, TL_EPARSE, "topology '%s' could not be built", text);
    return t;
}
