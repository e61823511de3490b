/* Scenario JSON -> validated tl_scenario (see tailor/spec.h, docs/scenario.md).
 * Rates, times and transport knobs are numbers in the unit their key names
 * (link_delay_ns: 1000) or strings with an explicit unit ("1us", "10Gbps");
 * counts, sizes and shapes are plain numbers. */
#include "tailor/spec.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/cc.h"
#include "tailor/fileio.h"
#include "tailor/pktsim.h"
#include "tailor/jsonerr.h"
#include "tailor/strutil.h"
#include "tailor/time.h"
#include "tailor/units.h"

const char *const tl_engine_names[] = {"pktsim", "flowsim", "parsimon", "m3", NULL};

static const char default_json[] =
    "{\n"
    "  \"name\": \"default\",\n"
    "  \"seed\": 1,\n"
    "  \"topology\": {\n"
    "    \"type\": \"fabric\",\n"
    "    \"pods\": 2,\n"
    "    \"racks_per_pod\": 16,\n"
    "    \"hosts_per_rack\": 8,\n"
    "    \"planes\": 2,\n"
    "    \"oversubscription\": 2,\n"
    "    \"host_link_bps\": \"10Gbps\",\n"
    "    \"fabric_link_bps\": \"40Gbps\",\n"
    "    \"link_delay_ns\": 1000\n"
    "  },\n"
    "  \"workload\": {\n"
    "    \"flows\": 200000,\n"
    "    \"classes\": [\n"
    "      {\n"
    "        \"name\": \"web\",\n"
    "        \"sizes\": {\"cdf\": \"webserver\"},\n"
    "        \"spatial\": {\"type\": \"matrix\", \"matrix\": \"B\"},\n"
    "        \"arrival\": {\"process\": \"lognormal\", \"sigma\": 2},\n"
    "        \"load\": {\"max_link_load\": 0.5}\n"
    "      }\n"
    "    ]\n"
    "  },\n"
    "  \"transport\": {\"cc\": \"dctcp-rate\"},\n"
    "  \"engine\": {\"name\": \"pktsim\"}\n"
    "}\n";

const char *tl_scenario_default_json(void) { return default_json; }

/* ---- parse context and error helpers ---- */

typedef struct ctx {
    tl_json_ctx j; /* file, value positions, where errors go */
    const char *base_dir;
    tl_err *err;
} ctx;

__attribute__((format(printf, 4, 5))) static int fail(ctx *c, const char *path, int code,
                                                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = tl_json_failv(&c->j, 0, path, code, fmt, ap);
    va_end(ap);
    return rc;
}

__attribute__((format(printf, 4, 5))) static int fail_key(ctx *c, const char *path, int code,
                                                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = tl_json_failv(&c->j, 1, path, code, fmt, ap);
    va_end(ap);
    return rc;
}

static size_t count_names(const char *const *names)
{
    size_t n = 0;
    while (names[n])
        n++;
    return n;
}

/* Every key of obj must be in allowed (NULL-terminated). */
static int check_keys(ctx *c, json_t *obj, const char *path, const char *const *allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        size_t i;
        for (i = 0; allowed[i]; i++)
            if (strcmp(key, allowed[i]) == 0)
                break;
        if (allowed[i])
            continue;
        char p[512], list[512] = "";
        const char *s = tl_suggest(key, allowed, count_names(allowed));
        for (i = 0; allowed[i]; i++) {
            strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, allowed[i], sizeof list - strlen(list) - 1);
        }
        if (s)
            return fail_key(c, tl_json_join(p, sizeof p, path, key), TL_EPARSE,
                            "unknown key '%s' (did you mean '%s'?)", key, s);
        return fail_key(c, tl_json_join(p, sizeof p, path, key), TL_EPARSE,
                        "unknown key '%s'; expected one of: %s", key, list);
    }
    return 0;
}

static json_t *get_obj(ctx *c, json_t *parent, const char *path, const char *key, int required,
                       int *rc)
{
    char p[512];
    json_t *v = json_object_get(parent, key);
    if (!v) {
        if (required)
            *rc = fail(c, path, TL_EPARSE, "missing required key '%s' (an object)", key);
        return NULL;
    }
    if (!json_is_object(v)) {
        *rc = fail(c, tl_json_join(p, sizeof p, path, key), TL_EPARSE, "expected an object, found %s",
                   tl_json_type_name(v));
        return NULL;
    }
    return v;
}

static int get_str(ctx *c, json_t *obj, const char *path, const char *key, char *out, size_t n,
                   int required)
{
    char p[512];
    json_t *v = json_object_get(obj, key);
    if (!v)
        return required ? fail(c, path, TL_EPARSE, "missing required key '%s' (a string)", key) : 1;
    if (!json_is_string(v))
        return fail(c, tl_json_join(p, sizeof p, path, key), TL_EPARSE, "expected a string, found %s",
                    tl_json_type_name(v));
    if (strlen(json_string_value(v)) >= n)
        return fail(c, tl_json_join(p, sizeof p, path, key), TL_ERANGE,
                    "string too long (at most %zu characters)", n - 1);
    snprintf(out, n, "%s", json_string_value(v));
    return 0;
}

/* A number in [min, max]; is_int demands a whole number. Returns 1 if absent
 * and not required (out untouched). */
static int get_num(ctx *c, json_t *obj, const char *path, const char *key, double *out, double min,
                   double max, int is_int, int required)
{
    char p[512];
    json_t *v = json_object_get(obj, key);
    tl_json_join(p, sizeof p, path, key);
    if (!v)
        return required ? fail(c, path, TL_EPARSE, "missing required key '%s' (a number)", key) : 1;
    if (!json_is_number(v))
        return fail(c, p, TL_EPARSE, "expected %s, found %s", is_int ? "an integer" : "a number",
                    tl_json_type_name(v));
    double x = json_number_value(v);
    if (is_int && x != floor(x))
        return fail(c, p, TL_EPARSE, "expected an integer, found %g", x);
    if (!(x >= min && x <= max))
        return fail(c, p, TL_ERANGE, "expected a value in [%g, %g], found %g", min, max, x);
    *out = x;
    return 0;
}

static int get_u32(ctx *c, json_t *obj, const char *path, const char *key, uint32_t *out,
                   uint32_t min, uint32_t max, int required)
{
    double x;
    int rc = get_num(c, obj, path, key, &x, min, max, 1, required);
    if (rc == 0)
        *out = (uint32_t)x;
    return rc;
}

/* Boolean key: *out keeps its value when the key is absent. */
static int get_bool(ctx *c, json_t *obj, const char *path, const char *key, int *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    if (!json_is_boolean(v)) {
        char p[256];
        snprintf(p, sizeof p, "%s.%s", path, key);
        return fail(c, p, TL_EPARSE, "expected true or false, found %s", tl_json_type_name(v));
    }
    *out = json_is_true(v);
    return 0;
}

/* Rate: number of bit/s, or a string like "10Gbps". */
static int get_rate(ctx *c, json_t *obj, const char *path, const char *key, uint64_t *out,
                    int required)
{
    char p[512];
    json_t *v = json_object_get(obj, key);
    tl_json_join(p, sizeof p, path, key);
    if (!v)
        return required ? fail(c, path, TL_EPARSE, "missing required key '%s' (a rate)", key) : 1;
    if (json_is_string(v)) {
        if (tl_units_parse_rate(json_string_value(v), out) != 0 || *out == 0)
            return fail(c, p, TL_EPARSE,
                        "expected a rate from 1 bit/s to 1e18 bit/s like \"10Gbps\", found "
                        "\"%s\"",
                        json_string_value(v));
        return 0;
    }
    double x;
    int rc = get_num(c, obj, path, key, &x, 1, 1e16, 0, 1);
    if (rc == 0)
        *out = (uint64_t)llround(x);
    return rc;
}

/* Time: number in the key's unit (scale_ps per unit), or a string like "1us". */
static int get_time(ctx *c, json_t *obj, const char *path, const char *key, int64_t scale_ps,
                    int64_t *out, int required)
{
    char p[512];
    json_t *v = json_object_get(obj, key);
    tl_json_join(p, sizeof p, path, key);
    if (!v)
        return required ? fail(c, path, TL_EPARSE, "missing required key '%s' (a time)", key) : 1;
    if (json_is_string(v)) {
        /* every time of a scenario fits the horizon (tailor/time.h), so that
         * sums of them (a path's delays, a class's start plus its duration)
         * stay inside int64 picoseconds */
        if (tl_units_parse_time(json_string_value(v), out) != 0 || *out < 0 ||
            *out > TL_START_MAX_PS)
            return fail(c, p, TL_EPARSE,
                        "expected a time from 0 to %.4g s (26.7 days) like \"1us\", found \"%s\"",
                        (double)TL_START_MAX_PS * 1e-12, json_string_value(v));
        return 0;
    }
    double x;
    int rc = get_num(c, obj, path, key, &x, 0, (double)TL_START_MAX_PS / (double)scale_ps, 0, 1);
    if (rc == 0)
        *out = (int64_t)llround(x * (double)scale_ps);
    return rc;
}

/* A relative path resolves against the scenario's folder. */
static void resolve(const ctx *c, const char *in, char *out, size_t n)
{
    if (in[0] == '/' || !c->base_dir || !c->base_dir[0])
        snprintf(out, n, "%s", in);
    else
        snprintf(out, n, "%s/%s", c->base_dir, in);
}

/* Moves a nested loader's error under a JSON path: a location inside the
 * nested file (its line) is kept; otherwise the scenario's position is used. */
static int wrap(ctx *c, const char *path, const tl_err *inner)
{
    if (inner->file[0] && inner->line > 0) {
        tl_err e = *inner;
        snprintf(e.path, sizeof e.path, "%s", path);
        if (c->err)
            *c->err = e;
        return e.code;
    }
    char buf[700];
    tl_err_format(inner, buf, sizeof buf);
    return fail(c, path, inner->code, "%s", buf);
}

/* ---- sections ---- */

#define OPT(rc_expr)                                                                               \
    do {                                                                                           \
        int r_ = (rc_expr);                                                                        \
        if (r_ < 0)                                                                                \
            return r_;                                                                             \
    } while (0)

/* The rate and delay keys every generator shares: host_link_bps, a fabric
 * rate key (fabric_link_bps or chain_link_bps) and link_delay_ns, each with a
 * default when absent. */
static int get_link_params(ctx *c, json_t *o, const char *P, const char *fabric_key,
                           uint64_t host_def, uint64_t fabric_def, uint64_t *host_bps,
                           uint64_t *fabric_bps, int64_t *delay_ps)
{
    *host_bps = host_def;
    *fabric_bps = fabric_def;
    *delay_ps = 1000000; /* 1 us: parsimon-eval's and Uno's per-link delay */
    OPT(get_rate(c, o, P, "host_link_bps", host_bps, 0));
    OPT(get_rate(c, o, P, fabric_key, fabric_bps, 0));
    OPT(get_time(c, o, P, "link_delay_ns", 1000, delay_ps, 0));
    return 0;
}

static int parse_topology(ctx *c, json_t *o, tl_topo_spec *t)
{
    const char *P = "topology";
    char type[32];
    OPT(get_str(c, o, P, "type", type, sizeof type, 1));
    const uint64_t G10 = 10000000000ull, G40 = 40000000000ull, G100 = 100000000000ull;
    static const char *const types[] = {"fabric", "fat_tree", "leaf_spine", "parking_lot",
                                        "two_dc", "file", NULL};
    if (strcmp(type, "fabric") == 0) {
        static const char *const keys[] = {"type", "pods", "racks_per_pod", "hosts_per_rack",
                                           "planes", "spines_per_plane", "oversubscription",
                                           "host_link_bps", "fabric_link_bps", "link_delay_ns",
                                           "failed_links", NULL};
        OPT(check_keys(c, o, P, keys));
        t->kind = TL_TOPO_FABRIC;
        tl_fabric_params *f = &t->fabric;
        OPT(get_u32(c, o, P, "pods", &f->pods, 1, 1024, 1));
        OPT(get_u32(c, o, P, "racks_per_pod", &f->racks_per_pod, 1, 4096, 1));
        OPT(get_u32(c, o, P, "hosts_per_rack", &f->hosts_per_rack, 1, 4096, 1));
        OPT(get_u32(c, o, P, "planes", &f->planes, 1, 256, 1));
        int has_spines = get_u32(c, o, P, "spines_per_plane", &f->spines_per_plane, 1, 4096, 0);
        OPT(has_spines);
        double oversub;
        int has_os = get_num(c, o, P, "oversubscription", &oversub, 1e-3, 1e6, 0, 0);
        OPT(has_os);
        if (has_spines == 0 && has_os == 0)
            return fail_key(c, "topology.oversubscription", TL_EPARSE,
                            "give either spines_per_plane or oversubscription, not both");
        if (has_spines != 0 && has_os != 0)
            return fail(c, P, TL_EPARSE,
                        "missing required key 'spines_per_plane' (or 'oversubscription')");
        if (has_os == 0) {
            /* Fabric-switch oversubscription = racks_per_pod / spines_per_plane
             * (links are all fabric_link_bps; parsimon-eval's definition). */
            double s = f->racks_per_pod / oversub;
            if (fabs(s - llround(s)) > 1e-9 || llround(s) < 1)
                return fail(c, "topology.oversubscription", TL_ERANGE,
                            "racks_per_pod (%u) / oversubscription (%g) must be a whole number "
                            "of spines per plane, found %g",
                            f->racks_per_pod, oversub, s);
            f->spines_per_plane = (uint32_t)llround(s);
        }
        OPT(get_link_params(c, o, P, "fabric_link_bps", G10, G40, &f->host_bps, &f->fabric_bps,
                            &f->delay_ps));
    } else if (strcmp(type, "fat_tree") == 0) {
        static const char *const keys[] = {"type", "k", "hosts_per_edge", "host_link_bps",
                                           "fabric_link_bps", "link_delay_ns", "failed_links",
                                           NULL};
        OPT(check_keys(c, o, P, keys));
        t->kind = TL_TOPO_FATTREE;
        tl_fattree_params *f = &t->fattree;
        OPT(get_u32(c, o, P, "k", &f->k, 2, 256, 1));
        if (f->k % 2)
            return fail(c, "topology.k", TL_ERANGE, "expected an even k, found %u", f->k);
        OPT(get_u32(c, o, P, "hosts_per_edge", &f->hosts_per_edge, 1, 4096, 0));
        OPT(get_link_params(c, o, P, "fabric_link_bps", G100, G100, &f->host_bps, &f->fabric_bps,
                            &f->delay_ps));
    } else if (strcmp(type, "leaf_spine") == 0) {
        static const char *const keys[] = {"type", "leaves", "spines", "hosts_per_leaf",
                                           "host_link_bps", "fabric_link_bps", "link_delay_ns",
                                           "failed_links", NULL};
        OPT(check_keys(c, o, P, keys));
        t->kind = TL_TOPO_LEAFSPINE;
        tl_leafspine_params *f = &t->leafspine;
        OPT(get_u32(c, o, P, "leaves", &f->leaves, 1, 65536, 1));
        OPT(get_u32(c, o, P, "spines", &f->spines, 1, 65536, 1));
        OPT(get_u32(c, o, P, "hosts_per_leaf", &f->hosts_per_leaf, 1, 4096, 1));
        OPT(get_link_params(c, o, P, "fabric_link_bps", G100, G100, &f->host_bps, &f->fabric_bps,
                            &f->delay_ps));
    } else if (strcmp(type, "parking_lot") == 0) {
        static const char *const keys[] = {"type", "hops", "hosts_per_switch", "host_link_bps",
                                           "chain_link_bps", "link_delay_ns", "failed_links",
                                           NULL};
        OPT(check_keys(c, o, P, keys));
        t->kind = TL_TOPO_PARKING_LOT;
        tl_parking_params *f = &t->parking;
        OPT(get_u32(c, o, P, "hops", &f->hops, 1, 64, 1));
        f->hosts_per_switch = 1;
        OPT(get_u32(c, o, P, "hosts_per_switch", &f->hosts_per_switch, 1, 4096, 0));
        OPT(get_link_params(c, o, P, "chain_link_bps", G10, G40, &f->host_bps, &f->chain_bps,
                            &f->delay_ps));
    } else if (strcmp(type, "two_dc") == 0) {
        static const char *const keys[] = {"type", "k", "core_border_links", "inter_dc_links",
                                           "host_link_bps", "fabric_link_bps", "wan_link_bps",
                                           "link_delay_ns", "wan_delay_ns", "failed_links", NULL};
        OPT(check_keys(c, o, P, keys));
        t->kind = TL_TOPO_TWO_DC;
        tl_twodc_params *f = &t->two_dc;
        f->k = 8;
        f->core_border_links = 1;
        f->inter_dc_links = 8;
        OPT(get_u32(c, o, P, "k", &f->k, 2, 256, 0));
        if (f->k % 2)
            return fail(c, "topology.k", TL_ERANGE, "expected an even k, found %u", f->k);
        OPT(get_u32(c, o, P, "core_border_links", &f->core_border_links, 1, 1024, 0));
        OPT(get_u32(c, o, P, "inter_dc_links", &f->inter_dc_links, 1, 4096, 0));
        f->wan_bps = G100;
        f->wan_delay_ps = 886500000; /* uno.txt §5.1 artifacts: 886.5 us one way */
        OPT(get_link_params(c, o, P, "fabric_link_bps", G100, G100, &f->host_bps, &f->fabric_bps,
                            &f->delay_ps));
        OPT(get_rate(c, o, P, "wan_link_bps", &f->wan_bps, 0));
        OPT(get_time(c, o, P, "wan_delay_ns", 1000, &f->wan_delay_ps, 0));
    } else if (strcmp(type, "file") == 0) {
        static const char *const keys[] = {"type", "format", "path", "failed_links", NULL};
        OPT(check_keys(c, o, P, keys));
        char fmt[32], path[900];
        OPT(get_str(c, o, P, "format", fmt, sizeof fmt, 1));
        OPT(get_str(c, o, P, "path", path, sizeof path, 1));
        if (strcmp(fmt, "parsimon") == 0)
            t->kind = TL_TOPO_FILE_PARSIMON;
        else if (strcmp(fmt, "ns3") == 0)
            t->kind = TL_TOPO_FILE_NS3;
        else
            return fail(c, "topology.format", TL_EPARSE,
                        "expected \"parsimon\" or \"ns3\", found \"%s\"", fmt);
        resolve(c, path, t->file, sizeof t->file);
    } else {
        const char *s = tl_suggest(type, types, count_names(types));
        return fail(c, "topology.type", TL_EPARSE,
                    "unknown topology type \"%s\"%s%s%s; expected fabric, fat_tree, leaf_spine, "
                    "parking_lot, two_dc or file",
                    type, s ? " (did you mean \"" : "", s ? s : "", s ? "\"?)" : "");
    }
    json_t *fl = json_object_get(o, "failed_links");
    if (fl) {
        if (!json_is_array(fl))
            return fail(c, "topology.failed_links", TL_EPARSE,
                        "expected an array of link ids, found %s", tl_json_type_name(fl));
        t->n_failed = (uint32_t)json_array_size(fl);
        t->failed_links = calloc(t->n_failed + 1, sizeof *t->failed_links);
        if (!t->failed_links)
            return tl_err_nomem(c->err);
        for (uint32_t i = 0; i < t->n_failed; i++) {
            json_t *x = json_array_get(fl, i);
            char p[64];
            snprintf(p, sizeof p, "topology.failed_links[%u]", i);
            if (!json_is_integer(x) || json_integer_value(x) < 0 ||
                json_integer_value(x) > UINT32_MAX)
                return fail(c, p, TL_EPARSE, "expected a link id (integer >= 0), found %s",
                            tl_json_type_name(x));
            t->failed_links[i] = (uint32_t)json_integer_value(x);
        }
    }
    return 0;
}

static int parse_sizes(ctx *c, json_t *o, const char *P, tl_sizedist *d)
{
    static const char *const keys[] = {"cdf", "dist", "mean_bytes", "shape", NULL};
    OPT(check_keys(c, o, P, keys));
    char cdf[900], dist[32], p[512];
    int has_cdf = get_str(c, o, P, "cdf", cdf, sizeof cdf, 0);
    OPT(has_cdf);
    int has_dist = get_str(c, o, P, "dist", dist, sizeof dist, 0);
    OPT(has_dist);
    if ((has_cdf == 0) == (has_dist == 0))
        return fail(c, P, TL_EPARSE,
                    "expected exactly one of 'cdf' (a built-in name or a file) or 'dist' "
                    "(exponential, pareto, lognormal, gaussian, fixed)");
    tl_err inner;
    tl_err_clear(&inner);
    if (has_cdf == 0) {
        char path[1024];
        if (strchr(cdf, '/') || strchr(cdf, '.'))
            resolve(c, cdf, path, sizeof path);
        else
            snprintf(path, sizeof path, "%s", cdf);
        if (tl_sizedist_load(d, path, &inner) != 0)
            return wrap(c, tl_json_join(p, sizeof p, P, "cdf"), &inner);
        return 0;
    }
    static const char *const dists[] = {"exponential", "pareto", "lognormal", "gaussian", "fixed",
                                        NULL};
    static const tl_size_kind kinds[] = {TL_SIZE_EXP, TL_SIZE_PARETO, TL_SIZE_LOGNORMAL,
                                         TL_SIZE_GAUSSIAN, TL_SIZE_FIXED};
    size_t k;
    for (k = 0; dists[k] && strcmp(dists[k], dist) != 0; k++)
        ;
    if (!dists[k])
        return fail(c, tl_json_join(p, sizeof p, P, "dist"), TL_EPARSE,
                    "expected one of exponential, pareto, lognormal, gaussian, fixed; found \"%s\"",
                    dist);
    double mean, shape = 0;
    OPT(get_num(c, o, P, "mean_bytes", &mean, 1, 1e15, 0, 1));
    int needs_shape = kinds[k] == TL_SIZE_PARETO || kinds[k] == TL_SIZE_LOGNORMAL ||
                      kinds[k] == TL_SIZE_GAUSSIAN;
    OPT(get_num(c, o, P, "shape", &shape, 0, 1e15, 0, needs_shape));
    if (tl_sizedist_param(d, kinds[k], mean, shape, &inner) != 0)
        return wrap(c, tl_json_join(p, sizeof p, P, "shape"), &inner);
    return 0;
}

static int parse_spatial(ctx *c, json_t *o, const char *P, tl_spatial_spec *s)
{
    static const char *const keys[] = {"type", "matrix", "senders", "destination",
                                       "intra_fraction", NULL};
    OPT(check_keys(c, o, P, keys));
    char type[32], p[512];
    OPT(get_str(c, o, P, "type", type, sizeof type, 1));
    static const char *const types[] = {"uniform", "matrix", "permutation", "incast",
                                        "all_to_all", "dc_mix", NULL};
    size_t k;
    for (k = 0; types[k] && strcmp(types[k], type) != 0; k++)
        ;
    if (!types[k]) {
        const char *sug = tl_suggest(type, types, count_names(types));
        return fail(c, tl_json_join(p, sizeof p, P, "type"), TL_EPARSE,
                    "unknown spatial pattern \"%s\"%s%s%s; expected uniform, matrix, "
                    "permutation, incast, all_to_all or dc_mix",
                    type, sug ? " (did you mean \"" : "", sug ? sug : "", sug ? "\"?)" : "");
    }
    s->kind = (tl_spatial_kind)k; /* types[] follows tl_spatial_kind's order */
    s->incast_dst = -1;
    if (s->kind == TL_SPATIAL_MATRIX) {
        char m[900], path[1024];
        OPT(get_str(c, o, P, "matrix", m, sizeof m, 1));
        if (strchr(m, '/') || strchr(m, '.'))
            resolve(c, m, path, sizeof path);
        else
            snprintf(path, sizeof path, "%s", m);
        tl_err inner;
        tl_err_clear(&inner);
        if (tl_matrix_load(&s->matrix, path, &inner) != 0)
            return wrap(c, tl_json_join(p, sizeof p, P, "matrix"), &inner);
    } else if (s->kind == TL_SPATIAL_INCAST) {
        OPT(get_u32(c, o, P, "senders", &s->n_senders, 1, UINT32_MAX, 1));
        double d;
        int has = get_num(c, o, P, "destination", &d, 0, UINT32_MAX, 1, 0);
        OPT(has);
        if (has == 0)
            s->incast_dst = (int64_t)d;
    } else if (s->kind == TL_SPATIAL_DC_MIX) {
        OPT(get_num(c, o, P, "intra_fraction", &s->intra_frac, 0, 1, 0, 1));
    }
    return 0;
}

static int parse_class(ctx *c, json_t *o, const char *P, uint32_t idx, tl_class_spec *cl)
{
    static const char *const keys[] = {"name", "sizes", "spatial", "arrival", "load", "start_ns",
                                       "flows", NULL};
    OPT(check_keys(c, o, P, keys));
    int rc = 0;
    char p[512];
    snprintf(cl->name, sizeof cl->name, "class%u", idx);
    OPT(get_str(c, o, P, "name", cl->name, sizeof cl->name, 0));
    if (!cl->name[0] || strpbrk(cl->name, ", \t\n\""))
        return fail(c, tl_json_join(p, sizeof p, P, "name"), TL_EPARSE,
                    "expected a non-empty name without commas, spaces or quotes, found \"%s\"",
                    cl->name);
    json_t *sz = get_obj(c, o, P, "sizes", 1, &rc);
    if (!sz)
        return rc;
    OPT(parse_sizes(c, sz, tl_json_join(p, sizeof p, P, "sizes"), &cl->sizes));
    json_t *sp = get_obj(c, o, P, "spatial", 1, &rc);
    if (!sp)
        return rc;
    OPT(parse_spatial(c, sp, tl_json_join(p, sizeof p, P, "spatial"), &cl->spatial));

    cl->arrival = TL_ARRIVAL_POISSON;
    json_t *ar = get_obj(c, o, P, "arrival", 0, &rc);
    if (rc)
        return rc;
    if (ar) {
        char ap[512], proc[32];
        tl_json_join(ap, sizeof ap, P, "arrival");
        static const char *const akeys[] = {"process", "sigma", NULL};
        OPT(check_keys(c, ar, ap, akeys));
        OPT(get_str(c, ar, ap, "process", proc, sizeof proc, 1));
        if (strcmp(proc, "poisson") == 0) {
            cl->arrival = TL_ARRIVAL_POISSON;
        } else if (strcmp(proc, "lognormal") == 0) {
            cl->arrival = TL_ARRIVAL_LOGNORMAL;
            OPT(get_num(c, ar, ap, "sigma", &cl->sigma, 1e-6, 10, 0, 1));
        } else if (strcmp(proc, "simultaneous") == 0) {
            cl->arrival = TL_ARRIVAL_SIMULTANEOUS;
        } else {
            return fail(c, tl_json_join(p, sizeof p, ap, "process"), TL_EPARSE,
                        "expected poisson, lognormal or simultaneous, found \"%s\"", proc);
        }
    }
    json_t *ld = get_obj(c, o, P, "load", cl->arrival != TL_ARRIVAL_SIMULTANEOUS, &rc);
    if (rc)
        return rc;
    if (ld) {
        char lp[512];
        tl_json_join(lp, sizeof lp, P, "load");
        static const char *const lkeys[] = {"max_link_load", "flows_per_s", "offered_bps", NULL};
        OPT(check_keys(c, ld, lp, lkeys));
        if (json_object_size(ld) != 1)
            return fail(c, lp, TL_EPARSE,
                        "expected exactly one of max_link_load, flows_per_s, offered_bps");
        json_t *v;
        if ((v = json_object_get(ld, "max_link_load"))) {
            cl->load_kind = TL_LOAD_MAX_LINK;
            if (!json_is_number(v))
                return fail(c, tl_json_join(p, sizeof p, lp, "max_link_load"), TL_EPARSE,
                            "expected a number in (0, 1), found %s", tl_json_type_name(v));
            cl->load_value = json_number_value(v);
            if (!(cl->load_value > 0 && cl->load_value < 1))
                return fail(c, tl_json_join(p, sizeof p, lp, "max_link_load"), TL_ERANGE,
                            "expected a number in (0, 1) (a fraction of link capacity), found %g",
                            cl->load_value);
        } else if (json_object_get(ld, "flows_per_s")) {
            cl->load_kind = TL_LOAD_FLOWS_PER_S;
            OPT(get_num(c, ld, lp, "flows_per_s", &cl->load_value, 1e-9, 1e15, 0, 1));
            if (cl->load_value <= 0)
                return fail(c, tl_json_join(p, sizeof p, lp, "flows_per_s"), TL_ERANGE, "must be > 0");
        } else {
            uint64_t bps;
            cl->load_kind = TL_LOAD_BPS;
            OPT(get_rate(c, ld, lp, "offered_bps", &bps, 1));
            cl->load_value = (double)bps;
        }
    }
    OPT(get_time(c, o, P, "start_ns", 1000, &cl->start_ps, 0));
    double nf;
    int has = get_num(c, o, P, "flows", &nf, 1, 1e12, 1, 0);
    OPT(has);
    if (has == 0)
        cl->n_flows = (uint64_t)nf;
    return 0;
}

static int parse_workload(ctx *c, json_t *o, tl_workload_spec *w)
{
    const char *P = "workload";
    static const char *const keys[] = {"flows", "duration_ns", "classes", "calibration_samples",
                                       "file", NULL};
    OPT(check_keys(c, o, P, keys));
    char file[900];
    int has_file = get_str(c, o, P, "file", file, sizeof file, 0);
    OPT(has_file);
    double nf;
    int has = get_num(c, o, P, "flows", &nf, 1, 1e12, 1, 0);
    OPT(has);
    if (has == 0)
        w->n_flows = (uint64_t)nf;
    OPT(get_time(c, o, P, "duration_ns", 1000, &w->duration_ps, 0));
    OPT(get_u32(c, o, P, "calibration_samples", &w->calib_samples, 1000, 1000000000, 0));
    json_t *cls = json_object_get(o, "classes");
    if (has_file == 0) { /* a flow file: htsim .cm, tailor .csv or ns-3 flow.txt */
        if (cls || json_object_get(o, "duration_ns"))
            return fail(c, P, TL_EPARSE,
                        "'file' gives the flows; it takes no 'classes' or 'duration_ns' "
                        "(only 'flows', to keep the first N)");
        resolve(c, file, w->file, sizeof w->file);
        return 0;
    }
    if (!cls)
        return fail(c, P, TL_EPARSE, "missing required key 'classes' (an array of traffic classes)");
    if (!json_is_array(cls) || json_array_size(cls) == 0)
        return fail(c, "workload.classes", TL_EPARSE,
                    "expected a non-empty array of traffic classes, found %s",
                    json_is_array(cls) ? "an empty array" : tl_json_type_name(cls));
    /* n_classes only once the array exists: fini walks it */
    w->classes = calloc(json_array_size(cls), sizeof *w->classes);
    if (!w->classes)
        return tl_err_nomem(c->err);
    w->n_classes = (uint32_t)json_array_size(cls);
    for (uint32_t i = 0; i < w->n_classes; i++) {
        char p[64];
        snprintf(p, sizeof p, "workload.classes[%u]", i);
        json_t *co = json_array_get(cls, i);
        if (!json_is_object(co))
            return fail(c, p, TL_EPARSE, "expected an object, found %s", tl_json_type_name(co));
        OPT(parse_class(c, co, p, i, &w->classes[i]));
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(w->classes[j].name, w->classes[i].name) == 0)
                return fail(c, p, TL_EPARSE, "class name \"%s\" is used twice",
                            w->classes[i].name);
    }
    return 0;
}

/* A plug-in name of kind at path: one pktsim has. */
static int check_plugin(ctx *c, const char *path, const char *kind, const char *name)
{
    char known[256];
    if (tl_pktsim_has_plugin(kind, name, known, sizeof known))
        return 0;
    return fail(c, path, TL_EPARSE, "unknown %s \"%s\"; known: %s",
                strcmp(kind, "lb") == 0          ? "load balancer"
                : strcmp(kind, "qpolicy") == 0 ? "queue policy"
                                               : "transport protocol",
                name, known);
}

/* transport.lb, transport.protocol and transport.queue_policy {"host",
 * "dc", "wan"}: pktsim's
 * plug-ins by name (docs/plugins.md). */
static int parse_plugins(ctx *c, json_t *o, tl_scenario *sc)
{
    int rc = get_str(c, o, "transport", "lb", sc->lb, sizeof sc->lb, 0);
    OPT(rc);
    if (rc == 0)
        OPT(check_plugin(c, "transport.lb", "lb", sc->lb));
    rc = get_str(c, o, "transport", "protocol", sc->protocol, sizeof sc->protocol, 0);
    OPT(rc);
    if (rc == 0)
        OPT(check_plugin(c, "transport.protocol", "transport", sc->protocol));
    rc = 0;
    json_t *q = get_obj(c, o, "transport", "queue_policy", 0, &rc);
    OPT(rc);
    if (!q)
        return 0;
    static const char *const classes[] = {"host", "dc", "wan", NULL};
    OPT(check_keys(c, q, "transport.queue_policy", classes));
    for (int k = 0; classes[k]; k++) {
        char p[64];
        snprintf(p, sizeof p, "transport.queue_policy.%s", classes[k]);
        rc = get_str(c, q, "transport.queue_policy", classes[k], sc->qpolicy[k],
                     sizeof sc->qpolicy[k], 0);
        OPT(rc);
        if (rc == 0)
            OPT(check_plugin(c, p, "qpolicy", sc->qpolicy[k]));
    }
    return 0;
}

/* The knob groups of a "transport" object at P ({"<group>": {"<knob>":
 * value}} -> registry "group.knob"), skipping the keys that are not knobs. */
static int parse_knob_groups(ctx *c, json_t *o, const char *P, tl_params *params)
{
    int rc;
    tl_err inner;
    const char *group;
    json_t *g;
    json_object_foreach(o, group, g)
    {
        if (strcmp(group, "cc") == 0 || strcmp(group, "preset") == 0 ||
            strcmp(group, "lb") == 0 || strcmp(group, "queue_policy") == 0 ||
            strcmp(group, "protocol") == 0)
            continue;
        char gp[256];
        tl_json_join(gp, sizeof gp, P, group);
        if (!json_is_object(g))
            return fail(c, gp, TL_EPARSE,
                        "expected an object of %s.* parameters, found %s", group, tl_json_type_name(g));
        const char *knob;
        json_t *v;
        json_object_foreach(g, knob, v)
        {
            char name[256], kp[512];
            snprintf(name, sizeof name, "%s.%s", group, knob);
            tl_json_join(kp, sizeof kp, gp, knob);
            int idx = tl_params_find(name);
            if (idx < 0) {
                const char *s = tl_params_suggest(name);
                return fail_key(c, kp, TL_EPARSE, "unknown parameter '%s'%s%s%s", name,
                                s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
            }
            tl_err_clear(&inner);
            if (json_is_number(v))
                rc = tl_params_set(params, name, json_number_value(v), &inner);
            else if (json_is_string(v))
                rc = tl_params_set_text(params, name, json_string_value(v), &inner);
            else if (json_is_boolean(v))
                rc = tl_params_set(params, name, json_is_true(v), &inner);
            else
                return fail(c, kp, TL_EPARSE, "expected a number or a string, found %s",
                            tl_json_type_name(v));
            if (rc)
                return fail(c, kp, inner.code, "%s", inner.msg);
        }
    }
    return 0;
}

/* transport: {"cc": name, "<group>": {"<knob>": value}} -> registry "group.knob". */
static int parse_transport(ctx *c, json_t *o, tl_scenario *sc)
{
    const char *P = "transport";
    snprintf(sc->cc, sizeof sc->cc, "%s", TL_CC_DEFAULT);
    int rc = get_str(c, o, P, "cc", sc->cc, sizeof sc->cc, 0);
    OPT(rc);
    const tl_cc_desc *cc = tl_cc_lookup(sc->cc);
    if (!cc) {
        const char *s = tl_cc_suggest(sc->cc);
        char known[256];
        tl_cc_names(known, sizeof known, ", ", ", ", 0);
        return fail(c, "transport.cc", TL_EPARSE,
                    "unknown congestion control \"%s\"%s%s%s; known: %s", sc->cc,
                    s ? " (did you mean \"" : "", s ? s : "", s ? "\"?)" : "", known);
    }
    /* The CC's own starting point (PFC on for the RDMA CCs), then a named
     * preset, then the explicit knobs, each over the one before. */
    tl_err inner;
    tl_err_clear(&inner);
    if (cc->default_preset && tl_params_apply_preset(&sc->params, cc->default_preset, &inner) != 0)
        return fail(c, "transport.cc", inner.code, "%s", inner.msg);
    char preset[64];
    rc = get_str(c, o, P, "preset", preset, sizeof preset, 0);
    OPT(rc);
    if (rc == 0 && tl_params_apply_preset(&sc->params, preset, &inner) != 0)
        return fail(c, "transport.preset", inner.code, "%s", inner.msg);
    OPT(parse_plugins(c, o, sc));
    return parse_knob_groups(c, o, P, &sc->params);
}

static int parse_engine(ctx *c, json_t *o, tl_engine_spec *e)
{
    const char *P = "engine";
    static const char *const keys[] = {"name",          "threads",      "cluster",
                                       "bucket_min",    "bucket_ratio", "fat_factor",
                                       "cluster_wmape", "cluster_load", "paths",
                                       "model",         "no_model",     "path_pktsim",
                                       "passthrough",   "residual",     "cluster_scale",
                                       "until_ns",      "norm_pkts",    "pfc_by_channel",
                                       "share_sources", "max_from_bytes", NULL};
    OPT(check_keys(c, o, P, keys));
    OPT(get_str(c, o, P, "name", e->name, sizeof e->name, 0));
    size_t k;
    for (k = 0; tl_engine_names[k] && strcmp(tl_engine_names[k], e->name) != 0; k++)
        ;
    if (!tl_engine_names[k])
        return fail(c, "engine.name", TL_EPARSE,
                    "unknown engine \"%s\"; expected pktsim, flowsim, parsimon or m3", e->name);
    uint32_t th = 0;
    OPT(get_u32(c, o, P, "threads", &th, 0, 1024, 0));
    e->n_threads = (int)th;
    OPT(get_bool(c, o, P, "cluster", &e->is_cluster));
    OPT(get_bool(c, o, P, "passthrough", &e->is_passthrough));
    OPT(get_bool(c, o, P, "residual", &e->is_residual));
    OPT(get_bool(c, o, P, "pfc_by_channel", &e->is_pfc_by_channel));
    OPT(get_bool(c, o, P, "share_sources", &e->is_share_sources));
    OPT(get_u32(c, o, P, "bucket_min", &e->bucket_min, 1, 1000000, 0));
    OPT(get_u32(c, o, P, "norm_pkts", &e->norm_pkts, 1, 1000000, 0));
    OPT(get_num(c, o, P, "bucket_ratio", &e->bucket_ratio, 1, 1000, 0, 0));
    OPT(get_num(c, o, P, "fat_factor", &e->fat_factor, 1, 1000, 0, 0));
    OPT(get_num(c, o, P, "max_from_bytes", &e->max_from_bytes, 0, 1e15, 1, 0));
    OPT(get_num(c, o, P, "cluster_wmape", &e->cluster_wmape, 0, 10, 0, 0));
    OPT(get_num(c, o, P, "cluster_load", &e->cluster_load, 0, 10, 0, 0));
    OPT(get_num(c, o, P, "cluster_scale", &e->cluster_scale, 1, 100, 0, 0));
    OPT(get_u32(c, o, P, "paths", &e->n_paths, 1, 10000000, 0));
    OPT(get_str(c, o, P, "model", e->model, sizeof e->model, 0));
    OPT(get_bool(c, o, P, "no_model", &e->is_no_model));
    OPT(get_bool(c, o, P, "path_pktsim", &e->is_path_pktsim));
    OPT(get_time(c, o, P, "until_ns", 1000, &e->until_ps, 0));
    return 0;
}

int tl_scenario_parse(tl_scenario *sc, const char *text, const char *source, const char *base_dir,
                      tl_err *err)
{
    memset(sc, 0, sizeof *sc);
    snprintf(sc->source, sizeof sc->source, "%s", source);
    snprintf(sc->engine.name, sizeof sc->engine.name, "pktsim");
    /* Parsimon's options the scenario does not set stay unset (NaN, 0, -1),
     * so the engine's own defaults (tl_parsimon_opts_default) apply */
    sc->engine.bucket_ratio = sc->engine.fat_factor = sc->engine.max_from_bytes = NAN;
    sc->engine.cluster_wmape = sc->engine.cluster_load = sc->engine.cluster_scale = NAN;
    sc->engine.is_passthrough = sc->engine.is_residual = -1;
    sc->engine.n_paths = 500; /* m3.txt §3.2: 500 paths bound the p99 sampling error to 10% */
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return tl_json_load_fail(err, source, &je);
    ctx c = {.base_dir = base_dir, .err = err};
    int rc = tl_json_ctx_init(&c.j, source, text, err);
    if (rc)
        goto out;
    if (!json_is_object(root)) {
        rc = fail(&c, "", TL_EPARSE, "expected a scenario object at the top, found %s",
                  tl_json_type_name(root));
        goto out;
    }
    static const char *const keys[] = {"name", "seed", "topology", "workload", "transport",
                                       "engine", "description", NULL};
    if ((rc = check_keys(&c, root, "", keys)))
        goto out;
    if ((rc = tl_params_init(&sc->params, err)))
        goto out;
    snprintf(sc->name, sizeof sc->name, "scenario");
    if ((rc = get_str(&c, root, "", "name", sc->name, sizeof sc->name, 0)) < 0)
        goto out;
    json_t *seed = json_object_get(root, "seed");
    if (seed) {
        if (!json_is_integer(seed) || json_integer_value(seed) < 0) {
            rc = fail(&c, "seed", TL_EPARSE, "expected an integer >= 0, found %s",
                      json_is_integer(seed) ? "a negative integer" : tl_json_type_name(seed));
            goto out;
        }
        sc->seed = (uint64_t)json_integer_value(seed);
    }
    rc = 0;
    json_t *o;
    if (!(o = get_obj(&c, root, "", "topology", 1, &rc)) || (rc = parse_topology(&c, o, &sc->topo)))
        goto out;
    if (!(o = get_obj(&c, root, "", "workload", 1, &rc)) ||
        (rc = parse_workload(&c, o, &sc->workload)))
        goto out;
    o = get_obj(&c, root, "", "transport", 0, &rc);
    if (rc)
        goto out;
    if (o) {
        if ((rc = parse_transport(&c, o, sc)))
            goto out;
    } else {
        snprintf(sc->cc, sizeof sc->cc, "%s", TL_CC_DEFAULT);
    }
    o = get_obj(&c, root, "", "engine", 0, &rc);
    if (rc)
        goto out;
    if (o && (rc = parse_engine(&c, o, &sc->engine)))
        goto out;
    if (!sc->workload.n_flows && !sc->workload.duration_ps) {
        int all_bounded = 1;
        for (uint32_t i = 0; i < sc->workload.n_classes; i++)
            all_bounded &= sc->workload.classes[i].n_flows > 0;
        if (!all_bounded) {
            rc = fail(&c, "workload", TL_EPARSE,
                      "the workload needs a bound: 'flows' (a count) or 'duration_ns'");
            goto out;
        }
    }
out:
    tl_json_ctx_fini(&c.j);
    json_decref(root);
    if (rc)
        tl_scenario_fini(sc);
    return rc;
}

int tl_params_apply_preset_file(tl_params *p, const char *cc, const char *path, tl_err *err)
{
    char *text = tl_read_file(path, NULL, err);
    if (!text) {
        if (err && err->code == TL_EIO)
            snprintf(err->msg, sizeof err->msg, "cannot open the preset file");
        return err ? err->code : TL_EIO;
    }
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        free(text);
        return tl_json_load_fail(err, path, &je);
    }
    ctx c = {.err = err};
    int rc = tl_json_ctx_init(&c.j, path, text, err);
    json_t *o = NULL;
    static const char *const keys[] = {"transport", "description", NULL};
    if (!rc && !json_is_object(root))
        rc = fail(&c, "", TL_EPARSE, "expected a preset object ({\"transport\": {...}}), found %s",
                  tl_json_type_name(root));
    if (!rc)
        rc = check_keys(&c, root, "", keys);
    if (!rc && !(o = get_obj(&c, root, "", "transport", 1, &rc)) && !rc)
        rc = TL_EPARSE;
    char found[64] = "";
    if (!rc && get_str(&c, o, "transport", "cc", found, sizeof found, 0) < 0)
        rc = err->code;
    if (!rc && found[0] && strcmp(found, cc) != 0)
        rc = fail(&c, "transport.cc", TL_EINVAL,
                  "the preset is for congestion control \"%s\", the run uses \"%s\"", found,
                  cc);
    static const char *const not_here[] = {"preset", "lb", "queue_policy", "protocol"};
    for (size_t k = 0; !rc && k < sizeof not_here / sizeof *not_here; k++)
        if (json_object_get(o, not_here[k])) {
            char kp[64];
            rc = fail_key(&c, tl_json_join(kp, sizeof kp, "transport", not_here[k]), TL_EPARSE,
                          "a preset file holds knob groups only (and \"cc\" to check)");
        }
    if (!rc)
        rc = parse_knob_groups(&c, o, "transport", p);
    tl_json_ctx_fini(&c.j);
    json_decref(root);
    free(text);
    return rc;
}

int tl_scenario_load(tl_scenario *sc, const char *path, tl_err *err)
{
    memset(sc, 0, sizeof *sc);
    char *text = tl_read_file(path, NULL, err);
    if (!text) {
        if (err && err->code == TL_EIO)
            snprintf(err->msg, sizeof err->msg, "cannot open the scenario file");
        return err ? err->code : TL_EIO;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    int rc = tl_scenario_parse(sc, text, path, dir, err);
    free(text);
    return rc;
}

void tl_scenario_fini(tl_scenario *sc)
{
    if (!sc)
        return;
    free(sc->topo.failed_links);
    tl_workload_spec_fini(&sc->workload);
    tl_params_fini(&sc->params);
    memset(sc, 0, sizeof *sc);
}

void tl_scenario_pktsim_opts(const tl_scenario *sc, tl_pktsim_opts *o)
{
    *o = (tl_pktsim_opts){.cc = sc->cc,
                          .lb = sc->lb[0] ? sc->lb : NULL,
                          .transport = sc->protocol[0] ? sc->protocol : NULL};
    for (int k = 0; k < TL_PORT_N_CLASSES; k++)
        o->qpolicy[k] = sc->qpolicy[k][0] ? sc->qpolicy[k] : NULL;
}

tl_topo *tl_scenario_build_topo(const tl_scenario *sc, tl_err *err)
{
    const tl_topo_spec *s = &sc->topo;
    tl_topo *t = NULL;
    switch (s->kind) {
    case TL_TOPO_FABRIC: t = tl_topo_fabric(&s->fabric, err); break;
    case TL_TOPO_FATTREE: t = tl_topo_fattree(&s->fattree, err); break;
    case TL_TOPO_LEAFSPINE: t = tl_topo_leafspine(&s->leafspine, err); break;
    case TL_TOPO_PARKING_LOT: t = tl_topo_parking_lot(&s->parking, err); break;
    case TL_TOPO_TWO_DC: t = tl_topo_two_dc(&s->two_dc, err); break;
    case TL_TOPO_FILE_PARSIMON: t = tl_topo_load_parsimon(s->file, err); break;
    case TL_TOPO_FILE_NS3: t = tl_topo_load_ns3(s->file, err); break;
    }
    if (!t) {
        if (err && !err->path[0])
            snprintf(err->path, sizeof err->path, "topology");
        if (err && !err->file[0])
            snprintf(err->file, sizeof err->file, "%s", sc->source);
        return NULL;
    }
    for (uint32_t i = 0; i < s->n_failed; i++)
        if (tl_topo_set_failed(t, s->failed_links[i], 1, err) != 0) {
            if (err) {
                snprintf(err->path, sizeof err->path, "topology.failed_links[%u]", i);
                snprintf(err->file, sizeof err->file, "%s", sc->source);
            }
            tl_topo_destroy(t);
            return NULL;
        }
    return t;
}
