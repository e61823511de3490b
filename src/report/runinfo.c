/* The run record of a summary.json: what was simulated (hashes of the
 * topology, the flows and the settings; seed, congestion control, engine
 * options, tailor's version) and the conservation counters. `tailor compare`
 * reads it to refuse comparing runs of different flows. */
#include "report_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* FNV-1a over little pieces: stable across machines for the same values. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}
#define MIX(h, x) mix((h), &(x), sizeof(x))

void tl_run_info_init(tl_run_info *r, const tl_topo *t, const tl_flows *f, const tl_params *p,
                      const char *cc, uint64_t seed, const char *options)
{
    memset(r, 0, sizeof *r);
    r->is_set = 1;
    snprintf(r->version, sizeof r->version, "%s", TL_VERSION);
    snprintf(r->cc, sizeof r->cc, "%s", cc ? cc : "");
    snprintf(r->options, sizeof r->options, "%s", options ? options : "");
    r->seed = seed;
    uint64_t h = 1469598103934665603ull;
    uint32_t n_nodes = t ? tl_topo_n_nodes(t) : 0, n_links = t ? tl_topo_n_links(t) : 0;
    h = MIX(h, n_nodes);
    h = MIX(h, n_links);
    for (uint32_t i = 0; i < n_links; i++) {
        const tl_link *l = tl_topo_link(t, i);
        h = MIX(h, l->a);
        h = MIX(h, l->b);
        h = MIX(h, l->rate_bps);
        h = MIX(h, l->delay_ps);
        h = MIX(h, l->error_rate);
        h = MIX(h, l->is_failed);
    }
    uint64_t offered = 0;
    for (size_t i = 0; i < f->n; i++) {
        const tl_flow *fl = &f->v[i];
        h = MIX(h, fl->id);
        h = MIX(h, fl->size_bytes);
        h = MIX(h, fl->start_ps);
        h = MIX(h, fl->src);
        h = MIX(h, fl->dst);
        h = MIX(h, fl->class_idx);
        offered += fl->size_bytes;
    }
    r->flows_hash = h;
    h = mix(h, r->cc, strlen(r->cc) + 1);
    for (size_t i = 0; p && i < p->n; i++)
        h = MIX(h, p->v[i]);
    r->scenario_hash = h;
    r->n_flows = (int64_t)f->n;
    r->bytes_offered = offered > INT64_MAX ? INT64_MAX : (int64_t)offered;
    r->bytes_delivered = r->bytes_retx = r->n_drops = r->n_timeouts = r->n_pfc_pauses = -1;
    r->paused_frac = r->paused_frac_max = -1;
}

static json_t *count_or_null(int64_t x) { return x < 0 ? json_null() : json_integer(x); }

static json_t *hex(uint64_t x)
{
    char b[24];
    snprintf(b, sizeof b, "%016" PRIx64, x);
    return json_string(b);
}

static const char *const run_keys[] = {
    "tailor",          "seed",           "cc",       "scenario_hash", "flows_hash",
    "engine_options",  "flows",          "bytes_offered", "bytes_delivered",
    "bytes_retransmitted", "drops",      "timeouts", "pfc_pauses",    NULL};
/* Added later: a summary of an older tailor has none. */
static const char *const run_keys_later[] = {"paused_fraction", "paused_fraction_max", NULL};

static json_t *frac_or_null(double x) { return x < 0 ? json_null() : json_real(x); }

json_t *tl_run_info_json(const tl_run_info *r, int *n_bad)
{
    json_t *o = json_object();
    tl_json_put(o, "tailor", json_string(r->version), n_bad);
    tl_json_put(o, "seed", json_integer((json_int_t)r->seed), n_bad);
    tl_json_put(o, "cc", json_string(r->cc), n_bad);
    tl_json_put(o, "scenario_hash", hex(r->scenario_hash), n_bad);
    tl_json_put(o, "flows_hash", hex(r->flows_hash), n_bad);
    tl_json_put(o, "engine_options", json_string(r->options), n_bad);
    tl_json_put(o, "flows", count_or_null(r->n_flows), n_bad);
    tl_json_put(o, "bytes_offered", count_or_null(r->bytes_offered), n_bad);
    tl_json_put(o, "bytes_delivered", count_or_null(r->bytes_delivered), n_bad);
    tl_json_put(o, "bytes_retransmitted", count_or_null(r->bytes_retx), n_bad);
    tl_json_put(o, "drops", count_or_null(r->n_drops), n_bad);
    tl_json_put(o, "timeouts", count_or_null(r->n_timeouts), n_bad);
    tl_json_put(o, "pfc_pauses", count_or_null(r->n_pfc_pauses), n_bad);
    tl_json_put(o, "paused_fraction", frac_or_null(r->paused_frac), n_bad);
    tl_json_put(o, "paused_fraction_max", frac_or_null(r->paused_frac_max), n_bad);
    return o;
}

static int get_str(tl_json_ctx *c, const json_t *o, const char *key, char *out, size_t n)
{
    char p[64];
    const json_t *v = json_object_get(o, key);
    tl_json_join(p, sizeof p, "run", key);
    if (!json_is_string(v))
        return tl_json_fail(c, 0, p, TL_EPARSE, "expected a string, found %s",
                            tl_json_type_name(v));
    if (strlen(json_string_value(v)) >= n)
        return tl_json_fail(c, 0, p, TL_ERANGE, "too long (at most %zu characters)", n - 1);
    snprintf(out, n, "%s", json_string_value(v));
    return 0;
}

static int get_hex(tl_json_ctx *c, const json_t *o, const char *key, uint64_t *out)
{
    char s[32], p[64], *end;
    int rc = get_str(c, o, key, s, sizeof s);
    if (rc)
        return rc;
    *out = strtoull(s, &end, 16);
    if (strlen(s) != 16 || *end)
        return tl_json_fail(c, 0, tl_json_join(p, sizeof p, "run", key), TL_EPARSE,
                            "expected 16 hexadecimal digits, found '%s'", s);
    return 0;
}

/* A count >= 0, or null for -1 (allow_null). */
static int get_count(tl_json_ctx *c, const json_t *o, const char *key, int allow_null,
                     int64_t *out)
{
    char p[64];
    const json_t *v = json_object_get(o, key);
    tl_json_join(p, sizeof p, "run", key);
    if (allow_null && json_is_null(v)) {
        *out = -1;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return tl_json_fail(c, 0, p, TL_EPARSE, "expected an integer >= 0%s, found %s",
                            allow_null ? " or null" : "", tl_json_type_name(v));
    *out = json_integer_value(v);
    return 0;
}

/* A fraction in [0, 1], or null or absent (a summary of an older tailor)
 * for -1. */
static int get_frac(tl_json_ctx *c, const json_t *o, const char *key, double *out)
{
    char p[64];
    const json_t *v = json_object_get(o, key);
    *out = -1;
    if (!v || json_is_null(v))
        return 0;
    double x = json_is_number(v) ? json_number_value(v) : -1;
    if (!(x >= 0 && x <= 1))
        return tl_json_fail(c, 0, tl_json_join(p, sizeof p, "run", key), TL_EPARSE,
                            "expected a fraction from 0 to 1 or null, found %s",
                            json_is_number(v) ? "a number outside it" : tl_json_type_name(v));
    *out = x;
    return 0;
}

int tl_run_info_parse(tl_json_ctx *c, const json_t *o, tl_run_info *r)
{
    memset(r, 0, sizeof *r);
    int64_t seed;
    int rc = tl_report_check_keys(c, o, "run", run_keys, run_keys_later);
    rc = rc ? rc : get_str(c, o, "tailor", r->version, sizeof r->version);
    rc = rc ? rc : get_str(c, o, "cc", r->cc, sizeof r->cc);
    rc = rc ? rc : get_str(c, o, "engine_options", r->options, sizeof r->options);
    rc = rc ? rc : get_hex(c, o, "scenario_hash", &r->scenario_hash);
    rc = rc ? rc : get_hex(c, o, "flows_hash", &r->flows_hash);
    rc = rc ? rc : get_count(c, o, "seed", 0, &seed);
    rc = rc ? rc : get_count(c, o, "flows", 1, &r->n_flows);
    rc = rc ? rc : get_count(c, o, "bytes_offered", 1, &r->bytes_offered);
    rc = rc ? rc : get_count(c, o, "bytes_delivered", 1, &r->bytes_delivered);
    rc = rc ? rc : get_count(c, o, "bytes_retransmitted", 1, &r->bytes_retx);
    rc = rc ? rc : get_count(c, o, "drops", 1, &r->n_drops);
    rc = rc ? rc : get_count(c, o, "timeouts", 1, &r->n_timeouts);
    rc = rc ? rc : get_count(c, o, "pfc_pauses", 1, &r->n_pfc_pauses);
    rc = rc ? rc : get_frac(c, o, "paused_fraction", &r->paused_frac);
    rc = rc ? rc : get_frac(c, o, "paused_fraction_max", &r->paused_frac_max);
    if (rc)
        return rc;
    r->seed = (uint64_t)seed;
    r->is_set = 1;
    return 0;
}
