/* Topology files: Parsimon's JSON (parsimon.txt §4, the parsimon-utils input format)
 * and the HPCC ns-3 topology.txt that Parsimon, m3 and PARALEON feed ns-3 (m3.txt §5,
 * paraleon.txt §5). Readers reject every malformed input with the file, line:column
 * (where known) and JSON path; writers go through tl_afile, so a failed write leaves
 * no half-written file. */
#include "topo_int.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/fileio.h"
#include "tailor/jsonerr.h"
#include "tailor/strutil.h"
#include "tailor/units.h"

/* ---- shared helpers ---- */

/* Shortest "%.Ng" that reads back as exactly v (error rates round-trip bit-exact). */
static void fmt_double(double v, char *buf, size_t n)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* Gives a builder error (a host without link, no hosts) the file's name. */
static void blame_file(tl_err *err, const char *path)
{
    if (!err)
        return;
    char msg[sizeof err->msg];
    memcpy(msg, err->msg, sizeof msg);
    tl_err_at(err, err->code, path, 0, 0, NULL, "%s", msg);
}

/* ---- Parsimon JSON ----
 * {"nodes": [{"id": 0, "kind": "Host"}, ...],
 *  "links": [{"a": 0, "b": 4, "bandwidth": 10000000000, "delay": 1000}, ...]}
 * bandwidth in bit/s, delay in ns, ids 0..n-1 in any order. An optional link key
 * "error_rate" (a number in [0, 1]) carries tl_link.error_rate; Parsimon ignores it.
 * jansson keeps no position for values, so errors after parsing carry the JSON path
 * only; syntax errors carry jansson's line and column. */

typedef struct jctx {
    const char *file;
    tl_err *err;
} jctx;

static int jfail(const jctx *c, int code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int jfail(const jctx *c, int code, const char *path, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tl_err_at(c->err, code, c->file, 0, 0, path, "%s", msg);
}

/* "a string (\"Router\")", "a real number (1.5)", "an array", ... for "found ..." */
static const char *describe(const json_t *v, char *buf, size_t n)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: snprintf(buf, n, "a string (\"%.40s\")", json_string_value(v)); return buf;
    case JSON_INTEGER:
        snprintf(buf, n, "an integer (%lld)", (long long)json_integer_value(v));
        return buf;
    case JSON_REAL: snprintf(buf, n, "a real number (%g)", json_real_value(v)); return buf;
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    }
    return "an unknown value";
}

/* Rejects keys outside allowed, naming the first in file order and the nearest
 * allowed key ("did you mean"). */
static int check_keys(const jctx *c, json_t *obj, const char *prefix, const char *const *allowed,
                      size_t n_allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        size_t i = 0;
        while (i < n_allowed && strcmp(key, allowed[i]) != 0)
            i++;
        if (i < n_allowed)
            continue;
        char path[128], expect[96] = "";
        for (i = 0; i < n_allowed; i++)
            snprintf(expect + strlen(expect), sizeof expect - strlen(expect), "%s%s", i ? ", " : "",
                     allowed[i]);
        const char *hint = tl_suggest(key, allowed, n_allowed);
        snprintf(path, sizeof path, "%s%s%.60s", prefix, prefix[0] ? "." : "", key);
        return jfail(c, TL_EPARSE, path, "unknown key \"%.60s\" (expected %s)%s%s%s", key, expect,
                     hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
    }
    return 0;
}

/* Fetches member key of obj, which must exist and be of JSON type `type`;
 * what_expected names it for the message ("an integer id"). */
static json_t *get_member(const jctx *c, json_t *obj, const char *prefix, const char *key,
                          json_type type, const char *what_expected)
{
    char path[128], buf[96];
    snprintf(path, sizeof path, "%s.%s", prefix, key);
    json_t *v = json_object_get(obj, key);
    if (!v) {
        jfail(c, TL_EPARSE, path, "missing key (expected %s)", what_expected);
        return NULL;
    }
    if (json_typeof(v) != type) {
        jfail(c, TL_EPARSE, path, "expected %s, found %s", what_expected,
              describe(v, buf, sizeof buf));
        return NULL;
    }
    return v;
}

static json_t *get_array(const jctx *c, json_t *root, const char *key)
{
    char buf[96];
    json_t *v = json_object_get(root, key);
    if (!v) {
        jfail(c, TL_EPARSE, key, "missing key (expected an array)");
        return NULL;
    }
    if (!json_is_array(v)) {
        jfail(c, TL_EPARSE, key, "expected an array, found %s", describe(v, buf, sizeof buf));
        return NULL;
    }
    return v;
}

/* Reads nodes into kinds[id] (n = array size); ids must be a permutation of 0..n-1. */
static int parse_nodes(const jctx *c, json_t *nodes, uint8_t *kinds, int32_t *first_at)
{
    static const char *const keys[] = {"id", "kind"};
    size_t n = json_array_size(nodes), i;
    json_t *node;
    for (i = 0; i < n; i++)
        first_at[i] = -1;
    json_array_foreach(nodes, i, node) {
        char prefix[64], path[80], buf[96];
        snprintf(prefix, sizeof prefix, "nodes[%zu]", i);
        if (!json_is_object(node))
            return jfail(c, TL_EPARSE, prefix, "expected an object {\"id\", \"kind\"}, found %s",
                         describe(node, buf, sizeof buf));
        int rc = check_keys(c, node, prefix, keys, 2);
        if (rc)
            return rc;
        json_t *id = get_member(c, node, prefix, "id", JSON_INTEGER, "an integer id");
        json_t *kind = get_member(c, node, prefix, "kind", JSON_STRING, "\"Host\" or \"Switch\"");
        if (!id || !kind)
            return c->err ? c->err->code : TL_EPARSE;
        json_int_t v = json_integer_value(id);
        snprintf(path, sizeof path, "%s.id", prefix);
        if (v < 0 || (uint64_t)v >= n)
            return jfail(c, TL_ERANGE, path,
                         "expected an id in 0..%zu (ids are 0..n-1 for %zu nodes), found %lld",
                         n - 1, n, (long long)v);
        if (first_at[v] >= 0)
            return jfail(c, TL_EPARSE, path, "duplicate id %lld (also nodes[%d].id)", (long long)v,
                         first_at[v]);
        first_at[v] = (int32_t)i;
        const char *k = json_string_value(kind);
        if (strcmp(k, "Host") == 0)
            kinds[v] = TL_NODE_HOST;
        else if (strcmp(k, "Switch") == 0)
            kinds[v] = TL_NODE_SWITCH;
        else {
            snprintf(path, sizeof path, "%s.kind", prefix);
            return jfail(c, TL_EPARSE, path, "expected \"Host\" or \"Switch\", found \"%.40s\"", k);
        }
    }
    return 0;
}

static int parse_link(const jctx *c, json_t *link, size_t i, uint32_t n_nodes, tl_topo *t)
{
    static const char *const keys[] = {"a", "b", "bandwidth", "delay", "error_rate"};
    char prefix[64], path[80], buf[96];
    snprintf(prefix, sizeof prefix, "links[%zu]", i);
    if (!json_is_object(link))
        return jfail(c, TL_EPARSE, prefix,
                     "expected an object {\"a\", \"b\", \"bandwidth\", \"delay\"}, found %s",
                     describe(link, buf, sizeof buf));
    int rc = check_keys(c, link, prefix, keys, 5);
    if (rc)
        return rc;
    static const char *const ends[] = {"a", "b"};
    uint32_t end[2];
    for (int e = 0; e < 2; e++) {
        json_t *v = get_member(c, link, prefix, ends[e], JSON_INTEGER, "an integer node id");
        if (!v)
            return c->err ? c->err->code : TL_EPARSE;
        json_int_t id = json_integer_value(v);
        if (id < 0 || id >= n_nodes) {
            snprintf(path, sizeof path, "%s.%s", prefix, ends[e]);
            return jfail(c, TL_ERANGE, path, "node %lld does not exist (ids 0..%u)", (long long)id,
                         n_nodes - 1);
        }
        end[e] = (uint32_t)id;
    }
    if (end[0] == end[1])
        return jfail(c, TL_EINVAL, prefix, "link joins node %u to itself", end[0]);
    json_t *bw = get_member(c, link, prefix, "bandwidth", JSON_INTEGER, "an integer in bit/s");
    json_t *delay = get_member(c, link, prefix, "delay", JSON_INTEGER, "an integer in ns");
    if (!bw || !delay)
        return c->err ? c->err->code : TL_EPARSE;
    json_int_t bps = json_integer_value(bw), ns = json_integer_value(delay);
    int64_t delay_ps;
    if (bps <= 0) {
        snprintf(path, sizeof path, "%s.bandwidth", prefix);
        return jfail(c, TL_ERANGE, path, "expected a bandwidth > 0 bit/s, found %lld",
                     (long long)bps);
    }
    if (ns < 0 || __builtin_mul_overflow((int64_t)ns, (int64_t)1000, &delay_ps)) {
        snprintf(path, sizeof path, "%s.delay", prefix);
        return jfail(c, TL_ERANGE, path, "expected a delay in 0..%lld ns, found %lld",
                     (long long)(INT64_MAX / 1000), (long long)ns);
    }
    double error_rate = 0;
    json_t *er = json_object_get(link, "error_rate");
    if (er) {
        snprintf(path, sizeof path, "%s.error_rate", prefix);
        if (!json_is_number(er))
            return jfail(c, TL_EPARSE, path, "expected a number in [0, 1], found %s",
                         describe(er, buf, sizeof buf));
        error_rate = json_number_value(er);
        if (!(error_rate >= 0 && error_rate <= 1))
            return jfail(c, TL_ERANGE, path, "expected a number in [0, 1], found %g", error_rate);
    }
    int64_t id = tl_topo_add_link(t, end[0], end[1], (uint64_t)bps, delay_ps, c->err);
    if (id < 0)
        return c->err ? c->err->code : TL_ENOMEM;
    t->links[id].error_rate = error_rate;
    return 0;
}

tl_topo *tl_topo_load_parsimon(const char *path, tl_err *err)
{
    jctx c = {.file = path, .err = err};
    json_error_t je;
    tl_topo *t = NULL;
    uint8_t *kinds = NULL;
    int32_t *first_at = NULL;
    /* opened here rather than by json_load_file, for an errno-based message */
    FILE *f = fopen(path, "r");
    if (!f) {
        tl_err_at(err, tl_io_code(errno), path, 0, 0, NULL, "cannot open: %s", strerror(errno));
        return NULL;
    }
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!root) {
        tl_json_load_fail(err, path, &je);
        return NULL;
    }
    static const char *const keys[] = {"nodes", "links"};
    char buf[96];
    json_t *nodes, *links, *link;
    size_t n, i;
    if (!json_is_object(root)) {
        jfail(&c, TL_EPARSE, NULL, "expected an object {\"nodes\", \"links\"}, found %s",
              describe(root, buf, sizeof buf));
        goto fail;
    }
    if (check_keys(&c, root, "", keys, 2) || !(nodes = get_array(&c, root, "nodes")) ||
        !(links = get_array(&c, root, "links")))
        goto fail;
    n = json_array_size(nodes);
    if (n == 0) {
        jfail(&c, TL_EPARSE, "nodes", "expected at least one node, found an empty array");
        goto fail;
    }
    if (n > TL_TOPO_MAX_COUNT || json_array_size(links) > TL_TOPO_MAX_COUNT) {
        jfail(&c, TL_ERANGE, n > TL_TOPO_MAX_COUNT ? "nodes" : "links",
              "expected at most %u entries", TL_TOPO_MAX_COUNT);
        goto fail;
    }
    kinds = malloc(n);
    first_at = malloc(n * sizeof *first_at);
    if (!kinds || !first_at) {
        tl_err_nomem(err);
        goto fail;
    }
    if (parse_nodes(&c, nodes, kinds, first_at))
        goto fail;
    if (!(t = tl_topo_create(err)))
        goto fail;
    for (i = 0; i < n; i++)
        if (tl_topo_add_node(t, kinds[i], TL_TIER_AUTO, -1, -1, 0, err) < 0)
            goto fail;
    json_array_foreach(links, i, link) {
        if (parse_link(&c, link, i, (uint32_t)n, t))
            goto fail;
    }
    if (tl_topo_finish(t, err) || tl_topo_check_connected(t, err)) {
        blame_file(err, path);
        goto fail;
    }
    free(kinds);
    free(first_at);
    json_decref(root);
    return t;
fail:
    free(kinds);
    free(first_at);
    json_decref(root);
    tl_topo_destroy(t);
    return NULL;
}

/* Written by hand, one node or link per line, so that large topologies stay
 * readable and diffable (json_dumpf puts every key on its own line). Delays are
 * rounded to the nearest ns: the format has no finer unit. */
int tl_topo_save_parsimon(const tl_topo *t, const char *path, tl_err *err)
{
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (!f)
        return err ? err->code : TL_EIO;
    fprintf(f, "{\n  \"nodes\": [\n");
    for (uint32_t i = 0; i < t->n_nodes; i++)
        fprintf(f, "    {\"id\": %u, \"kind\": \"%s\"}%s\n", i,
                t->nodes[i].kind == TL_NODE_HOST ? "Host" : "Switch",
                i + 1 < t->n_nodes ? "," : "");
    fprintf(f, "  ],\n  \"links\": [\n");
    for (uint32_t i = 0; i < t->n_links; i++) {
        const tl_link *l = &t->links[i];
        if (l->rate_bps > (uint64_t)INT64_MAX) {
            tl_afile_abort(&af);
            return tl_err_at(err, TL_ERANGE, path, 0, 0, NULL,
                             "link %u: bandwidth %llu bit/s exceeds the JSON integer range", i,
                             (unsigned long long)l->rate_bps);
        }
        fprintf(f, "    {\"a\": %u, \"b\": %u, \"bandwidth\": %llu, \"delay\": %lld", l->a, l->b,
                (unsigned long long)l->rate_bps,
                (long long)(l->delay_ps / 1000 + (l->delay_ps % 1000 >= 500)));
        if (l->error_rate != 0) {
            char er[32];
            fmt_double(l->error_rate, er, sizeof er);
            fprintf(f, ", \"error_rate\": %s", er);
        }
        fprintf(f, "}%s\n", i + 1 < t->n_links ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return tl_afile_commit(&af, err);
}

/* ---- ns-3 HPCC topology.txt ----
 * line 1: <nodes> <switches> <links>
 * line 2: the switch ids (absent when there are no switches)
 * then one line per full-duplex link: <a> <b> <rate> <delay> <error_rate>,
 * rate like 100Gbps, delay like 1000ns or 0.001ms. Every id not on line 2 is a host.
 * ns-3 reads the file as whitespace-separated tokens; we hold it to one record per
 * line so that errors can name the line, and skip blank lines. */

typedef struct nsctx {
    tl_lines lr;
    tl_err *err;
    char *cur;   /* tokenizer position in lr.buf */
    int tok_col; /* 1-based column of the last token */
} nsctx;

static int nsfail(nsctx *c, int code, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int nsfail(nsctx *c, int code, int col, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tl_err_at(c->err, code, c->lr.path, c->lr.line, col, NULL, "%s", msg);
}

/* Next non-blank line (the tokenizer then walks it), or NULL at end of file. */
static char *next_record(nsctx *c)
{
    char *line;
    while ((line = tl_lines_next(&c->lr))) {
        if (line[strspn(line, " \t")] != '\0') {
            c->cur = line;
            return line;
        }
    }
    return NULL;
}

/* Next whitespace-separated token of the current line (NUL-terminated in place). */
static char *next_tok(nsctx *c)
{
    char *s = c->cur + strspn(c->cur, " \t");
    if (*s == '\0') {
        c->cur = s;
        return NULL;
    }
    size_t len = strcspn(s, " \t");
    c->cur = s + len;
    if (*c->cur)
        *c->cur++ = '\0';
    c->tok_col = (int)(s - c->lr.buf) + 1;
    return s;
}

static int parse_u32(const char *s, uint32_t *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
        return -1;
    unsigned long long v = strtoull(s, NULL, 10);
    if (v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* A node id token: decimal, below n_nodes. */
static int parse_node_id(nsctx *c, const char *tok, uint32_t n_nodes, uint32_t *id)
{
    if (!tok)
        return nsfail(c, TL_EPARSE, 0, "expected a node id, found the end of the line");
    if (parse_u32(tok, id))
        return nsfail(c, TL_EPARSE, c->tok_col, "expected a node id, found '%.40s'", tok);
    if (*id >= n_nodes)
        return nsfail(c, TL_ERANGE, c->tok_col, "node %u does not exist (ids 0..%u)", *id,
                      n_nodes - 1);
    return 0;
}

static int end_of_file(nsctx *c, const char *expected)
{
    int rc = tl_lines_result(&c->lr, 0, c->err);
    if (rc)
        return rc;
    return tl_err_at(c->err, TL_EPARSE, c->lr.path, c->lr.line + 1, 0, NULL,
                     "unexpected end of file: expected %s", expected);
}

static int parse_ns3_header(nsctx *c, uint32_t counts[3])
{
    static const char *const names[3] = {"nodes", "switches", "links"};
    if (!next_record(c))
        return end_of_file(c, "'<nodes> <switches> <links>'");
    for (int i = 0; i < 3; i++) {
        const char *tok = next_tok(c);
        if (!tok)
            return nsfail(c, TL_EPARSE, 0,
                          "expected '<nodes> <switches> <links>', found %d number%s", i,
                          i == 1 ? "" : "s");
        if (parse_u32(tok, &counts[i]))
            return nsfail(c, TL_EPARSE, c->tok_col, "expected the number of %s, found '%.40s'",
                          names[i], tok);
    }
    if (next_tok(c))
        return nsfail(c, TL_EPARSE, c->tok_col,
                      "expected '<nodes> <switches> <links>' only, found more");
    if (counts[0] == 0 || counts[0] > TL_TOPO_MAX_COUNT || counts[2] > TL_TOPO_MAX_COUNT)
        return nsfail(c, TL_ERANGE, 0, "expected 1..%u nodes and at most %u links, found %u and %u",
                      TL_TOPO_MAX_COUNT, TL_TOPO_MAX_COUNT, counts[0], counts[2]);
    if (counts[1] > counts[0])
        return nsfail(c, TL_ERANGE, 0, "expected at most %u switches (one per node), found %u",
                      counts[0], counts[1]);
    return 0;
}

/* Switch ids with their columns, to report a duplicate where it stands. */
typedef struct swid {
    uint32_t id;
    int col;
} swid;

static int cmp_swid(const void *x, const void *y)
{
    const swid *a = x, *b = y;
    return a->id != b->id ? (a->id < b->id ? -1 : 1) : a->col - b->col;
}

/* Reads line 2 into *sw (n_switches entries, sorted by id), growing it as ids come
 * so that the allocation is bounded by the line, not by the count on line 1. */
static int parse_ns3_switches(nsctx *c, uint32_t n_nodes, uint32_t n_switches, swid **sw)
{
    if (n_switches == 0)
        return 0;
    if (!next_record(c))
        return end_of_file(c, "the line of switch ids");
    uint32_t found = 0, cap = 0;
    const char *tok;
    while ((tok = next_tok(c))) {
        if (found == n_switches)
            return nsfail(c, TL_EPARSE, c->tok_col, "line 1 declares %u switches, found more ids",
                          n_switches);
        if (found == cap) {
            cap = cap ? 2 * cap : 64;
            swid *grown = realloc(*sw, (size_t)cap * sizeof *grown);
            if (!grown)
                return tl_err_nomem(c->err);
            *sw = grown;
        }
        int rc = parse_node_id(c, tok, n_nodes, &(*sw)[found].id);
        if (rc)
            return rc;
        (*sw)[found++].col = c->tok_col;
    }
    if (found < n_switches)
        return nsfail(c, TL_EPARSE, 0, "line 1 declares %u switches, found %u ids", n_switches,
                      found);
    qsort(*sw, n_switches, sizeof **sw, cmp_swid);
    for (uint32_t i = 1; i < n_switches; i++)
        if ((*sw)[i].id == (*sw)[i - 1].id)
            return nsfail(c, TL_EPARSE, (*sw)[i].col, "switch %u listed twice", (*sw)[i].id);
    return 0;
}

static int parse_ns3_link(nsctx *c, uint32_t n_nodes, tl_link *out)
{
    uint32_t a, b;
    int rc = parse_node_id(c, next_tok(c), n_nodes, &a);
    if (rc || (rc = parse_node_id(c, next_tok(c), n_nodes, &b)))
        return rc;
    if (a == b)
        return nsfail(c, TL_EINVAL, c->tok_col, "link joins node %u to itself", a);
    const char *tok = next_tok(c);
    uint64_t rate_bps;
    if (!tok)
        return nsfail(c, TL_EPARSE, 0, "expected 'a b rate delay error_rate', found 2 fields");
    if (tl_units_parse_rate(tok, &rate_bps))
        return nsfail(c, TL_EPARSE, c->tok_col, "expected a rate like 100Gbps, found '%.40s'", tok);
    if (rate_bps == 0)
        return nsfail(c, TL_ERANGE, c->tok_col, "expected a rate > 0, found '%.40s'", tok);
    int64_t delay_ps;
    if (!(tok = next_tok(c)))
        return nsfail(c, TL_EPARSE, 0, "expected 'a b rate delay error_rate', found 3 fields");
    if (tl_units_parse_time(tok, &delay_ps))
        return nsfail(c, TL_EPARSE, c->tok_col,
                      "expected a delay like 1000ns or 0.001ms, found '%.40s'", tok);
    if (delay_ps < 0)
        return nsfail(c, TL_ERANGE, c->tok_col, "expected a delay >= 0, found '%.40s'", tok);
    if (!(tok = next_tok(c)))
        return nsfail(c, TL_EPARSE, 0, "expected 'a b rate delay error_rate', found 4 fields");
    char *end;
    double error_rate = strtod(tok, &end);
    if (end == tok || *end)
        return nsfail(c, TL_EPARSE, c->tok_col, "expected an error rate (a number), found '%.40s'",
                      tok);
    if (!(error_rate >= 0 && error_rate <= 1))
        return nsfail(c, TL_ERANGE, c->tok_col, "expected an error rate in [0, 1], found '%.40s'",
                      tok);
    if (next_tok(c))
        return nsfail(c, TL_EPARSE, c->tok_col,
                      "expected 'a b rate delay error_rate' only, found a sixth field");
    *out = (tl_link){
        .a = a, .b = b, .rate_bps = rate_bps, .delay_ps = delay_ps, .error_rate = error_rate};
    return 0;
}

/* The whole file is read and checked before any node is allocated, so that the
 * counts of line 1 cannot make us allocate more than the file describes: the
 * switches are listed on line 2 and every host needs one of the links that follow. */
tl_topo *tl_topo_load_ns3(const char *path, tl_err *err)
{
    nsctx c = {.err = err};
    tl_topo *t = NULL;
    swid *sw = NULL;
    tl_link *links = NULL;
    uint32_t counts[3], n_links = 0, cap_links = 0;
    if (tl_lines_open(&c.lr, path, err))
        return NULL;
    if (parse_ns3_header(&c, counts))
        goto fail;
    if (parse_ns3_switches(&c, counts[0], counts[1], &sw))
        goto fail;
    while (next_record(&c)) {
        if (n_links == counts[2]) {
            nsfail(&c, TL_EPARSE, 0, "line 1 declares %u links, found more", counts[2]);
            goto fail;
        }
        if (n_links == cap_links) {
            cap_links = cap_links ? 2 * cap_links : 256;
            tl_link *grown = realloc(links, (size_t)cap_links * sizeof *links);
            if (!grown) {
                tl_err_nomem(err);
                goto fail;
            }
            links = grown;
        }
        if (parse_ns3_link(&c, counts[0], &links[n_links]))
            goto fail;
        n_links++;
    }
    if (tl_lines_result(&c.lr, 0, err))
        goto fail;
    if (n_links < counts[2]) {
        char what[96];
        snprintf(what, sizeof what, "a link line (line 1 declares %u links, found %u)", counts[2],
                 n_links);
        end_of_file(&c, what);
        goto fail;
    }
    if ((uint64_t)counts[0] - counts[1] > 2 * (uint64_t)n_links) {
        tl_err_at(err, TL_EINVAL, path, 1, 0, NULL,
                  "%u nodes of which %u switches: the %u hosts need at least %u links (one each, "
                  "two per link at most), found %u",
                  counts[0], counts[1], counts[0] - counts[1], (counts[0] - counts[1] + 1) / 2,
                  n_links);
        goto fail;
    }
    if (!(t = tl_topo_create(err)))
        goto fail;
    for (uint32_t i = 0, s = 0; i < counts[0]; i++) {
        int is_switch = s < counts[1] && sw[s].id == i;
        s += is_switch;
        if (tl_topo_add_node(t, is_switch ? TL_NODE_SWITCH : TL_NODE_HOST, TL_TIER_AUTO, -1, -1, 0,
                             err) < 0)
            goto fail;
    }
    for (uint32_t l = 0; l < n_links; l++) {
        const tl_link *k = &links[l];
        if (tl_topo_add_link(t, k->a, k->b, k->rate_bps, k->delay_ps, err) < 0)
            goto fail;
        t->links[l].error_rate = k->error_rate;
    }
    if (tl_topo_finish(t, err) || tl_topo_check_connected(t, err)) {
        blame_file(err, path);
        goto fail;
    }
    free(sw);
    free(links);
    tl_lines_close(&c.lr);
    return t;
fail:
    free(sw);
    free(links);
    tl_lines_close(&c.lr);
    tl_topo_destroy(t);
    return NULL;
}

/* ns-3's DataRate parser knows no Tbps: whole multiples of 1 Tb/s are written in Gbps. */
static void fmt_ns3_rate(uint64_t bps, char *buf, size_t n)
{
    if (bps >= 1000000000000ull && bps % 1000000000ull == 0)
        snprintf(buf, n, "%lluGbps", (unsigned long long)(bps / 1000000000ull));
    else
        tl_units_fmt_rate(bps, buf, n);
}

int tl_topo_save_ns3(const tl_topo *t, const char *path, tl_err *err)
{
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (!f)
        return err ? err->code : TL_EIO;
    uint32_t n_switches = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++)
        n_switches += t->nodes[i].kind == TL_NODE_SWITCH;
    fprintf(f, "%u %u %u\n", t->n_nodes, n_switches, t->n_links);
    if (n_switches) {
        const char *sep = "";
        for (uint32_t i = 0; i < t->n_nodes; i++)
            if (t->nodes[i].kind == TL_NODE_SWITCH) {
                fprintf(f, "%s%u", sep, i);
                sep = " ";
            }
        fputc('\n', f);
    }
    for (uint32_t i = 0; i < t->n_links; i++) {
        const tl_link *l = &t->links[i];
        char rate[40], delay[40], er[32];
        fmt_ns3_rate(l->rate_bps, rate, sizeof rate);
        tl_units_fmt_time(l->delay_ps, delay, sizeof delay);
        fmt_double(l->error_rate, er, sizeof er);
        fprintf(f, "%u %u %s %s %s\n", l->a, l->b, rate, delay, er);
    }
    return tl_afile_commit(&af, err);
}
