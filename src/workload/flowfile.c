/* Flow files: tailor's CSV ("id,src,dst,size,start_ns,class") and the ns-3
 * HPCC flow.txt ("N", then "src dst pg dport size start_s" per line; see
 * ../shared/notes/topobench_paraleon.md §B6). Writes are atomic. */
#include "tailor/workload.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/fileio.h"
#include "tailor/time.h"
#include "workload_int.h"

static int cmp_flow(const void *a, const void *b)
{
    const tl_flow *x = a, *y = b;
    if (x->start_ps != y->start_ps)
        return x->start_ps < y->start_ps ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int is_sorted(const tl_flows *f)
{
    for (size_t i = 1; i < f->n; i++)
        if (cmp_flow(&f->v[i - 1], &f->v[i]) > 0)
            return 0;
    return 1;
}

static int find_class(tl_flows *f, const char *name, tl_err *err)
{
    for (uint32_t i = 0; i < f->n_classes; i++)
        if (strcmp(f->class_names[i], name) == 0)
            return (int)i;
    return tl_flows_add_class(f, name, err);
}

static int check_host(const tl_topo *t, uint64_t id, const char *what, const char *path, int line,
                      int col, tl_err *err)
{
    if (!t)
        return 0;
    if (id >= tl_topo_n_nodes(t))
        return tl_err_at(err, TL_ERANGE, path, line, col, NULL,
                         "%s host %" PRIu64 " is out of range: the topology has nodes 0..%u", what,
                         id, tl_topo_n_nodes(t) - 1);
    if (tl_topo_node(t, (uint32_t)id)->kind != TL_NODE_HOST)
        return tl_err_at(err, TL_ERANGE, path, line, col, NULL,
                         "%s node %" PRIu64 " is a switch, not a host", what, id);
    return 0;
}

/* Parses an unsigned integer field ending at ',' or end of string. */
static int parse_u64(char **p, uint64_t *out)
{
    char *end;
    if (!isdigit((unsigned char)**p))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(*p, &end, 10);
    if (errno)
        return -1;
    *out = v;
    *p = end;
    return 0;
}

/* "123" or "123.456" nanoseconds -> picoseconds (at most 3 decimals);
 * -2 for a start past TL_START_MAX_PS. */
static int parse_ns(char **p, int64_t *ps)
{
    uint64_t ns;
    if (parse_u64(p, &ns) != 0)
        return isdigit((unsigned char)**p) ? -2 : -1; /* digits beyond uint64: too late */
    if (ns > (uint64_t)TL_START_MAX_PS / 1000)
        return -2;
    int64_t frac = 0;
    if (**p == '.') {
        (*p)++;
        int digits = 0;
        while (isdigit((unsigned char)**p)) {
            if (++digits > 3)
                return -1;
            frac = frac * 10 + (**p - '0');
            (*p)++;
        }
        if (digits == 0)
            return -1;
        while (digits++ < 3)
            frac *= 10;
    }
    *ps = (int64_t)ns * 1000 + frac;
    return *ps > TL_START_MAX_PS ? -2 : 0;
}

/* The latest start a flow file may give, for messages. */
static double max_start_s(void) { return (double)TL_START_MAX_PS * 1e-12; }

typedef struct id_line {
    uint64_t id;
    size_t line;
} id_line;

static int cmp_id_line(const void *a, const void *b)
{
    const id_line *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* Flow ids name flows in every result: two flows of one id are an error
 * naming both lines. lines[i] is flow i's line. O(n log n). */
int tl_flows_check_unique_ids(const tl_flows *f, const size_t *lines, const char *path, tl_err *err)
{
    id_line *v = malloc((f->n ? f->n : 1) * sizeof *v);
    if (!v)
        return tl_err_nomem(err);
    for (size_t i = 0; i < f->n; i++)
        v[i] = (id_line){f->v[i].id, lines[i]};
    qsort(v, f->n, sizeof *v, cmp_id_line);
    int rc = 0;
    for (size_t i = 1; i < f->n && !rc; i++)
        if (v[i].id == v[i - 1].id)
            rc = tl_err_at(err, TL_EINVAL, path, (int)v[i].line, 1, NULL,
                           "flow id %" PRIu64 " appears again (first on line %zu); ids must be "
                           "unique",
                           v[i].id, v[i - 1].line);
    free(v);
    return rc;
}

int tl_flows_load_csv(tl_flows *f, const char *path, const tl_topo *t, tl_err *err)
{
    tl_flows_init(f);
    size_t *lines = NULL; /* (cap) the line of each flow, for duplicate ids */
    tl_lines lr;
    int rc = tl_lines_open(&lr, path, err);
    if (rc)
        return rc;
    char *s = tl_lines_next(&lr);
    if (!s || strcmp(s, "id,src,dst,size,start_ns,class") != 0) {
        rc = tl_err_at(err, TL_EPARSE, path, 1, 1, NULL,
                       "expected the header 'id,src,dst,size,start_ns,class', found '%.60s'",
                       s ? s : "an empty file");
        goto out;
    }
    static const char *const names[] = {"id", "src", "dst", "size", "start_ns", "class"};
    while ((s = tl_lines_next(&lr))) {
        if (!*s)
            continue;
        if (f->n == f->cap) {
            if ((rc = tl_flows_reserve(f, f->cap ? f->cap * 2 : 1024, err)))
                goto out;
            size_t *l = realloc(lines, f->cap * sizeof *lines);
            if (!l) {
                rc = tl_err_nomem(err);
                goto out;
            }
            lines = l;
        }
        lines[f->n] = (size_t)lr.line;
        tl_flow *fl = &f->v[f->n];
        uint64_t v[4];
        char *p = s;
        int field;
        for (field = 0; field < 5; field++) {
            int bad = field < 4 ? parse_u64(&p, &v[field]) : parse_ns(&p, &fl->start_ps);
            if (bad == -2) {
                rc = tl_err_at(err, TL_ERANGE, path, lr.line, (int)(p - s) + 1, NULL,
                               "field 5 (start_ns): the start is past the %.0f s (%.1f days) "
                               "of flow starts tailor simulates (int64 picoseconds, with room "
                               "for the flows to finish)",
                               max_start_s(), max_start_s() / 86400);
                goto out;
            }
            if (bad || *p != ',') {
                rc = tl_err_at(err, TL_EPARSE, path, lr.line, (int)(p - s) + 1, NULL,
                               "field %d (%s): expected %s followed by ',', found '%.30s'",
                               field + 1, names[field],
                               field < 4 ? "a non-negative integer"
                                         : "nanoseconds with at most 3 decimals",
                               p);
                goto out;
            }
            p++;
        }
        if (!*p || strchr(p, ',')) {
            rc = tl_err_at(err, TL_EPARSE, path, lr.line, (int)(p - s) + 1, NULL,
                           "field 6 (class): expected a class name without commas, found '%.30s'",
                           p);
            goto out;
        }
        if ((rc = check_host(t, v[1], "source", path, lr.line, 0, err)) ||
            (rc = check_host(t, v[2], "destination", path, lr.line, 0, err)))
            goto out;
        if (v[1] == v[2]) {
            rc = tl_err_at(err, TL_EINVAL, path, lr.line, 0, NULL,
                           "source and destination are both host %" PRIu64, v[1]);
            goto out;
        }
        if (v[3] == 0) {
            rc = tl_err_at(err, TL_ERANGE, path, lr.line, 0, NULL, "size must be > 0 bytes");
            goto out;
        }
        int c = find_class(f, p, err);
        if (c < 0) {
            rc = TL_ENOMEM;
            goto out;
        }
        fl->id = v[0];
        fl->src = (uint32_t)v[1];
        fl->dst = (uint32_t)v[2];
        fl->size_bytes = v[3];
        fl->class_idx = (uint32_t)c;
        f->n++;
    }
    if (ferror(lr.f))
        rc = tl_err_at(err, TL_EIO, path, lr.line, 0, NULL, "read error");
    if (!rc && f->n == 0)
        rc = tl_err_at(err, TL_EINVAL, path, lr.line, 0, NULL,
                       "no flows: expected rows 'id,src,dst,size,start_ns,class' after the "
                       "header");
    if (!rc)
        rc = tl_flows_check_unique_ids(f, lines, path, err);
    if (!rc && !is_sorted(f))
        qsort(f->v, f->n, sizeof *f->v, cmp_flow);
out:
    rc = tl_lines_result(&lr, rc, err); /* a read that ran out of memory is not the end */
    free(lines);
    tl_lines_close(&lr);
    if (rc)
        tl_flows_fini(f);
    return rc;
}

int tl_flows_save_csv(const tl_flows *f, const char *path, tl_err *err)
{
    tl_afile af;
    FILE *out = tl_afile_open_buffered(&af, path, err);
    if (!out)
        return err ? err->code : TL_EIO;
    fputs("id,src,dst,size,start_ns,class\n", out);
    for (size_t i = 0; i < f->n; i++) {
        const tl_flow *fl = &f->v[i];
        fprintf(out, "%" PRIu64 ",%u,%u,%" PRIu64 ",", fl->id, fl->src, fl->dst, fl->size_bytes);
        tl_fput_ns(out, fl->start_ps);
        fprintf(out, ",%s\n", f->class_names[fl->class_idx]);
    }
    return tl_afile_commit(&af, err);
}

int tl_flows_load_ns3(tl_flows *f, const char *path, const tl_topo *t, tl_err *err)
{
    tl_flows_init(f);
    tl_lines lr;
    int rc = tl_lines_open(&lr, path, err);
    if (rc)
        return rc;
    char *s = tl_lines_next(&lr), *end = NULL;
    errno = 0;
    unsigned long long n = s && isdigit((unsigned char)s[0]) ? strtoull(s, &end, 10) : 0;
    if (!s || !end || end == s || *end || errno) {
        rc = tl_err_at(err, TL_EPARSE, path, 1, 1, NULL,
                       "expected the number of flows (an integer >= 1) on line 1, found '%.30s'",
                       s ? s : "an empty file");
        goto out;
    }
    if (n == 0 || n > TL_FLOWS_MAX) {
        rc = tl_err_at(err, TL_ERANGE, path, 1, 1, NULL,
                       "expected 1..%llu flows on line 1, found %llu",
                       (unsigned long long)TL_FLOWS_MAX, n);
        goto out;
    }
    /* The array grows with the lines read, so the count on line 1 cannot make
     * us allocate more than the file holds. */
    if ((rc = tl_flows_reserve(f, n < 1024 ? (size_t)n : 1024, err)) ||
        tl_flows_add_class(f, "default", err) < 0) {
        rc = rc ? rc : TL_ENOMEM;
        goto out;
    }
    for (unsigned long long i = 0; i < n; i++) {
        s = tl_lines_next(&lr);
        if (!s) {
            rc = tl_err_at(err, TL_EPARSE, path, lr.line + 1, 1, NULL,
                           "line 1 announces %llu flows, found only %llu", n, i);
            goto out;
        }
        if (f->n == f->cap && (rc = tl_flows_reserve(f, f->cap * 2, err)))
            goto out;
        unsigned long long src, dst, pg, dport, size;
        double start_s;
        int used = 0;
        if (sscanf(s, "%llu %llu %llu %llu %llu %lf %n", &src, &dst, &pg, &dport, &size, &start_s,
                   &used) != 6 ||
            s[used] != '\0' || !(start_s >= 0) || !isfinite(start_s)) {
            rc = tl_err_at(err, TL_EPARSE, path, lr.line, 1, NULL,
                           "expected 'src dst pg dport size start_s', found '%.60s'", s);
            goto out;
        }
        if (!(start_s <= max_start_s())) {
            rc = tl_err_at(err, TL_ERANGE, path, lr.line, 1, NULL,
                           "start_s %g is past the %.0f s (%.1f days) of flow starts tailor "
                           "simulates (int64 picoseconds, with room for the flows to finish)",
                           start_s, max_start_s(), max_start_s() / 86400);
            goto out;
        }
        if ((rc = check_host(t, src, "source", path, lr.line, 1, err)) ||
            (rc = check_host(t, dst, "destination", path, lr.line, 0, err)))
            goto out;
        if (src == dst || size == 0) {
            rc = tl_err_at(err, TL_EINVAL, path, lr.line, 0, NULL,
                           src == dst ? "source and destination are the same host"
                                      : "size must be > 0 bytes");
            goto out;
        }
        f->v[f->n++] = (tl_flow){.id = i,
                                 .src = (uint32_t)src,
                                 .dst = (uint32_t)dst,
                                 .size_bytes = size,
                                 .start_ps = (int64_t)llround(start_s * 1e12),
                                 .class_idx = 0};
    }
    while (!rc && (s = tl_lines_next(&lr)))
        if (s[strspn(s, " \t")])
            rc = tl_err_at(err, TL_EPARSE, path, lr.line, 1, NULL,
                           "line 1 announces %llu flows, but there are more lines: found '%.60s'",
                           n, s);
    if (!rc && ferror(lr.f))
        rc = tl_err_at(err, TL_EIO, path, lr.line, 0, NULL, "read error");
    if (!rc && !is_sorted(f))
        qsort(f->v, f->n, sizeof *f->v, cmp_flow);
out:
    rc = tl_lines_result(&lr, rc, err);
    tl_lines_close(&lr);
    if (rc)
        tl_flows_fini(f);
    return rc;
}

int tl_flows_save_ns3(const tl_flows *f, const char *path, double offset_s, tl_err *err)
{
    tl_afile af;
    FILE *out = tl_afile_open(&af, path, err);
    if (!out)
        return err ? err->code : TL_EIO;
    fprintf(out, "%zu\n", f->n);
    int64_t off_ps = (int64_t)llround(offset_s * 1e12);
    for (size_t i = 0; i < f->n; i++) {
        const tl_flow *fl = &f->v[i];
        int64_t t = fl->start_ps + off_ps;
        /* Seconds with 12 decimals: picosecond-exact, so a round trip is lossless. */
        fprintf(out, "%u %u 3 100 %" PRIu64 " %" PRId64 ".%012" PRId64 "\n", fl->src, fl->dst,
                fl->size_bytes, t / 1000000000000, t % 1000000000000);
    }
    return tl_afile_commit(&af, err);
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

int tl_flows_load_any(tl_flows *f, const char *path, const tl_topo *t, tl_err *err)
{
    if (has_suffix(path, ".csv"))
        return tl_flows_load_csv(f, path, t, err);
    if (has_suffix(path, ".cm"))
        return tl_flows_load_htsim(f, path, t, err);
    return tl_flows_load_ns3(f, path, t, err);
}
