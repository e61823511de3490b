/* Result files (docs/results.md): the per-flow CSV, the ns-3 HPCC fct.txt
 * ("sip dip sport dport size start_ns fct_ns standalone_fct_ns",
 * ../shared/notes/topobench_paraleon.md §B6) and summary.json, which
 * `tailor compare` reads back. Every write goes through a temporary file and a
 * rename (tl_afile); the JSON loader checks the whole shape and names the JSON
 * path, line and column of what is wrong. */
#include "tailor/result.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "tailor/jsonerr.h"
#include "tailor/fileio.h"

/* Checks what the writers rely on: every class index exists, every finished
 * flow has a positive ideal FCT (its slowdown divides by it). */
static int check_results(const tl_flows *f, const tl_flow_result *r, const char *path, tl_err *err)
{
    for (size_t i = 0; i < f->n; i++) {
        if (f->v[i].class_idx >= f->n_classes)
            return tl_err_at(err, TL_EINVAL, path, 0, 0, NULL,
                             "flow %" PRIu64 " has class %u, but there are %u classes",
                             f->v[i].id, f->v[i].class_idx, f->n_classes);
        if (r[i].fct_ps >= 0 && r[i].ideal_ps <= 0)
            return tl_err_at(err, TL_EINVAL, path, 0, 0, NULL,
                             "flow %" PRIu64 " finished but its ideal FCT is %" PRId64
                             " ps; expected > 0",
                             f->v[i].id, r[i].ideal_ps);
    }
    return 0;
}

/* ======================== per-flow CSV ======================== */

/* Nanoseconds, with 3 decimals only when ps is not whole (as flow files write start_ns). */
int tl_result_save_csv(const tl_flows *f, const tl_flow_result *r, const char *path, tl_err *err)
{
    int rc = check_results(f, r, path, err);
    if (rc)
        return rc;
    tl_afile af;
    FILE *out = tl_afile_open_buffered(&af, path, err);
    if (!out)
        return err ? err->code : TL_EIO;
    fputs("id,src,dst,size,start_ns,fct_ns,ideal_ns,slowdown,class\n", out);
    for (size_t i = 0; i < f->n; i++) {
        const tl_flow *fl = &f->v[i];
        fprintf(out, "%" PRIu64 ",%u,%u,%" PRIu64 ",", fl->id, fl->src, fl->dst, fl->size_bytes);
        tl_fput_ns(out, fl->start_ps);
        fputc(',', out);
        if (r[i].fct_ps >= 0)
            tl_fput_ns(out, r[i].fct_ps);
        fputc(',', out);
        tl_fput_ns(out, r[i].ideal_ps);
        fputc(',', out);
        if (r[i].fct_ps >= 0)
            fprintf(out, "%.6f", tl_slowdown(r[i].fct_ps, r[i].ideal_ps));
        fprintf(out, ",%s\n", f->class_names[fl->class_idx]);
    }
    return tl_afile_commit(&af, err);
}

/* ======================== ns-3 fct.txt ======================== */

/* ns-3 HPCC's node_id_to_ip: host i is 11.(i/256).(i%256).1. */
static uint32_t ns3_ip(uint32_t node)
{
    return 0x0b000001u + ((node / 256) << 16) + ((node % 256) << 8);
}

/* Picoseconds to whole nanoseconds, rounded half up (ns-3 keeps ns). */
static int64_t ns_round(int64_t ps)
{
    return ps >= 0 ? (ps + 500) / 1000 : -((-ps + 500) / 1000);
}

int tl_result_save_ns3(const tl_flows *f, const tl_flow_result *r, const char *path, tl_err *err)
{
    tl_afile af;
    FILE *out = tl_afile_open(&af, path, err);
    if (!out)
        return err ? err->code : TL_EIO;
    for (size_t i = 0; i < f->n; i++) {
        const tl_flow *fl = &f->v[i];
        if (r[i].fct_ps < 0)
            continue;
        fprintf(out, "%08x %08x %u 100 %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
                ns3_ip(fl->src), ns3_ip(fl->dst), (unsigned)(10000 + fl->id % 55000),
                fl->size_bytes, ns_round(fl->start_ps), ns_round(r[i].fct_ps),
                ns_round(r[i].ideal_ps));
    }
    return tl_afile_commit(&af, err);
}

/* ======================== summary.json: save ======================== */

_Static_assert(TL_N_PCTS == 4, "the JSON keys below name tl_pcts");
static const char *const pct_keys[TL_N_PCTS] = {"p50", "p90", "p99", "p999"};
static const char *const stats_keys[] = {"count", "mean", "p50", "p90", "p99", "p999", NULL};
static const char *const root_keys[] = {"engine", "unfinished", "buckets", "classes", NULL};

/* A statistic: null when NaN (an empty bucket), since JSON has no NaN. */
static json_t *num_or_null(double x)
{
    return isnan(x) ? json_null() : json_real(x);
}

static json_t *buckets_json(const tl_slowdown_stats *st, int *n_bad)
{
    json_t *o = json_object();
    for (int b = 0; b < TL_N_BUCKETS; b++) {
        json_t *s = json_object();
        tl_json_put(s, "count", json_integer((json_int_t)st[b].count), n_bad);
        tl_json_put(s, "mean", num_or_null(st[b].mean), n_bad);
        for (int i = 0; i < TL_N_PCTS; i++)
            tl_json_put(s, pct_keys[i], num_or_null(st[b].p[i]), n_bad);
        tl_json_put(o, tl_bucket_names[b], s, n_bad);
    }
    return o;
}

int tl_summary_save_json(const tl_summary *s, const char *path, tl_err *err)
{
    int n_bad = 0;
    json_t *root = json_object();
    if (s->run.is_set)
        tl_json_put(root, "run", tl_run_info_json(&s->run, &n_bad), &n_bad);
    tl_json_put(root, "engine", json_string(s->engine), &n_bad);
    tl_json_put(root, "unfinished", json_integer((json_int_t)s->n_unfinished), &n_bad);
    tl_json_put(root, "buckets", buckets_json(s->all, &n_bad), &n_bad);
    json_t *classes = json_object();
    for (uint32_t c = 0; c < s->n_classes; c++) {
        if (classes && json_object_get(classes, s->class_names[c])) {
            json_decref(root);
            json_decref(classes);
            return tl_err_at(err, TL_EINVAL, path, 0, 0, NULL,
                             "two classes are named '%s'; summary.json keys classes by name",
                             s->class_names[c]);
        }
        const tl_slowdown_stats *row = &s->by_class[(size_t)c * TL_N_BUCKETS];
        tl_json_put(classes, s->class_names[c], buckets_json(row, &n_bad), &n_bad);
    }
    tl_json_put(root, "classes", classes, &n_bad);
    return tl_json_save(root, n_bad, path, err);
}

/* ======================== summary.json: load ======================== */

typedef tl_json_ctx ctx;

/* Error at a JSON path, located by line:column (at the key for at_key). */
__attribute__((format(printf, 5, 6))) static int fail(ctx *c, const char *path, int at_key,
                                                      int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = tl_json_failv(c, at_key, path, code, fmt, ap);
    va_end(ap);
    return rc;
}

int tl_report_check_keys(ctx *c, const json_t *o, const char *path, const char *const *allowed,
                         const char *const *optional)
{
    char p[512];
    if (!json_is_object(o))
        return fail(c, path, 0, TL_EPARSE, "expected an object, found %s", tl_json_type_name(o));
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v)
    {
        size_t i = 0, j = 0;
        while (allowed[i] && strcmp(allowed[i], key) != 0)
            i++;
        while (optional && optional[j] && strcmp(optional[j], key) != 0)
            j++;
        if (!allowed[i] && !(optional && optional[j])) {
            char list[256] = "";
            for (i = 0; allowed[i]; i++) {
                strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, allowed[i], sizeof list - strlen(list) - 1);
            }
            return fail(c, tl_json_join(p, sizeof p, path, key), 1, TL_EPARSE,
                        "unknown key '%s'; expected one of: %s", key, list);
        }
    }
    for (size_t i = 0; allowed[i]; i++)
        if (!json_object_get(o, allowed[i]))
            return fail(c, path, 0, TL_EPARSE, "missing required key '%s'", allowed[i]);
    return 0;
}

static int check_object(ctx *c, const json_t *o, const char *path, const char *const *allowed)
{
    return tl_report_check_keys(c, o, path, allowed, NULL);
}

static int get_count(ctx *c, const json_t *v, const char *path, uint64_t *out)
{
    if (!json_is_integer(v))
        return fail(c, path, 0, TL_EPARSE, "expected a non-negative integer, found %s",
                    tl_json_type_name(v));
    if (json_integer_value(v) < 0)
        return fail(c, path, 0, TL_ERANGE,
                    "expected a non-negative integer, found %" JSON_INTEGER_FORMAT,
                    json_integer_value(v));
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* {count, mean, p50, p90, p99, p999}: the statistics are numbers when count >
 * 0 and null when count == 0, as the writer makes them. */
static int parse_stats(ctx *c, const json_t *o, const char *path, tl_slowdown_stats *st)
{
    char p[512];
    int rc = check_object(c, o, path, stats_keys);
    if (rc)
        return rc;
    if ((rc = get_count(c, json_object_get(o, "count"), tl_json_join(p, sizeof p, path, "count"),
                        &st->count)))
        return rc;
    for (int i = 0; i < 1 + TL_N_PCTS; i++) {
        const char *key = i == 0 ? "mean" : pct_keys[i - 1];
        double *out = i == 0 ? &st->mean : &st->p[i - 1];
        const json_t *v = json_object_get(o, key);
        tl_json_join(p, sizeof p, path, key);
        if (st->count == 0) {
            if (!json_is_null(v))
                return fail(c, p, 0, TL_EPARSE, "expected null (count is 0), found %s",
                            tl_json_type_name(v));
            *out = NAN;
        } else {
            if (!json_is_number(v))
                return fail(c, p, 0, TL_EPARSE,
                            "expected a number (count is %" PRIu64 "), found %s", st->count,
                            tl_json_type_name(v));
            *out = json_number_value(v);
        }
    }
    return 0;
}

/* {"0-1KB": stats, ..., "all": stats} into st[TL_N_BUCKETS]. */
static int parse_buckets(ctx *c, const json_t *o, const char *path, tl_slowdown_stats *st)
{
    const char *names[TL_N_BUCKETS + 1];
    for (int b = 0; b < TL_N_BUCKETS; b++)
        names[b] = tl_bucket_names[b];
    names[TL_N_BUCKETS] = NULL;
    int rc = check_object(c, o, path, names);
    for (int b = 0; !rc && b < TL_N_BUCKETS; b++) {
        char p[512];
        rc = parse_stats(c, json_object_get(o, names[b]), tl_json_join(p, sizeof p, path, names[b]),
                         &st[b]);
    }
    return rc;
}

static int parse_summary(ctx *c, const json_t *root, tl_summary *s)
{
    static const char *const maybe[] = {"run", NULL};
    int rc = tl_report_check_keys(c, root, "", root_keys, maybe);
    if (rc)
        return rc;
    const json_t *run = json_object_get(root, "run");
    if (run && (rc = tl_run_info_parse(c, run, &s->run)))
        return rc;
    const json_t *v = json_object_get(root, "engine");
    if (!json_is_string(v))
        return fail(c, "engine", 0, TL_EPARSE, "expected a string, found %s", tl_json_type_name(v));
    if (strlen(json_string_value(v)) >= sizeof s->engine)
        return fail(c, "engine", 0, TL_ERANGE, "engine name too long (at most %zu characters)",
                    sizeof s->engine - 1);
    snprintf(s->engine, sizeof s->engine, "%s", json_string_value(v));
    if ((rc = get_count(c, json_object_get(root, "unfinished"), "unfinished", &s->n_unfinished)))
        return rc;
    if ((rc = parse_buckets(c, json_object_get(root, "buckets"), "buckets", s->all)))
        return rc;

    const json_t *classes = json_object_get(root, "classes");
    if (!json_is_object(classes))
        return fail(c, "classes", 0, TL_EPARSE, "expected an object, found %s",
                    tl_json_type_name(classes));
    size_t n = json_object_size(classes);
    if (n > UINT32_MAX)
        return fail(c, "classes", 0, TL_ERANGE, "too many classes (%zu)", n);
    s->class_names = calloc(n ? n : 1, sizeof *s->class_names);
    s->by_class = calloc(n ? n * TL_N_BUCKETS : 1, sizeof *s->by_class);
    if (!s->class_names || !s->by_class)
        return tl_err_nomem(c->err);
    const char *key;
    json_t *cv;
    json_object_foreach((json_t *)classes, key, cv)
    {
        char p[512];
        uint32_t idx = s->n_classes;
        if (!(s->class_names[idx] = strdup(key)))
            return tl_err_nomem(c->err);
        s->n_classes++;
        if ((rc = parse_buckets(c, cv, tl_json_join(p, sizeof p, "classes", key),
                                &s->by_class[(size_t)idx * TL_N_BUCKETS])))
            return rc;
    }
    return 0;
}

/* Reads a whole file into a NUL-terminated buffer the caller frees. */

int tl_summary_load_json(tl_summary *s, const char *path, tl_err *err)
{
    memset(s, 0, sizeof *s);
    char *text = tl_read_file(path, NULL, err);
    if (!text)
        return err ? err->code : TL_EIO;
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        free(text);
        return tl_json_load_fail(err, path, &je);
    }
    ctx c;
    int rc = tl_json_ctx_init(&c, path, text, err);
    if (!rc)
        rc = parse_summary(&c, root, s);
    tl_json_ctx_fini(&c);
    json_decref(root);
    free(text);
    if (rc)
        tl_summary_fini(s);
    return rc;
}
