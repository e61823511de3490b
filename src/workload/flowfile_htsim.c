/* htsim's connection matrices (the .cm files of Uno's artifact and csg-htsim,
 * ../shared/data/uno/README.md): "Nodes N", "Connections M", then one
 * "src->dst id ID start START_US size BYTES" per flow; lines starting with #
 * are comments. src and dst are host indices (tl_topo_hosts order: in a
 * two_dc topology hosts 0-127 are DC 0's, as htsim numbers them). Flows
 * whose hosts sit in one data center form class "intra", the others
 * "inter"; in a one-DC network every flow is "default". */
#include "tailor/workload.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/fileio.h"
#include "tailor/topo.h"
#include "workload_int.h"

static int by_start(const void *a, const void *b)
{
    const tl_flow *x = a, *y = b;
    if (x->start_ps != y->start_ps)
        return x->start_ps < y->start_ps ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The next line that is not a comment or blank, or NULL. */
static char *next_line(tl_lines *lr)
{
    char *s;
    while ((s = tl_lines_next(lr)) && (s[strspn(s, " \t")] == '#' || !s[strspn(s, " \t")]))
        ;
    return s;
}

/* "Key <count>" on the next line into *out. */
static int header(tl_lines *lr, const char *key, uint64_t max, uint64_t *out, const char *path,
                  tl_err *err)
{
    char *s = next_line(lr), *end = NULL;
    size_t n = strlen(key);
    if (!s || strncmp(s, key, n) != 0 || s[n] != ' ')
        return tl_err_at(err, TL_EPARSE, path, lr->line, 1, NULL, "expected '%s <count>', found '%.60s'",
                         key, s ? s : "the end of the file");
    unsigned long long v = strtoull(s + n + 1, &end, 10);
    if (end == s + n + 1 || end[strspn(end, " \t\r")] || v == 0 || v > max)
        return tl_err_at(err, TL_EPARSE, path, lr->line, (int)n + 2, NULL,
                         "expected a count in 1..%" PRIu64 " after '%s', found '%.40s'", max, key,
                         s + n + 1);
    *out = v;
    return 0;
}

int tl_flows_load_htsim(tl_flows *f, const char *path, const tl_topo *t, tl_err *err)
{
    tl_flows_init(f);
    size_t *lines = NULL; /* each flow's line, for duplicate ids */
    tl_lines lr;
    int rc = tl_lines_open(&lr, path, err);
    if (rc)
        return rc;
    uint32_t n_hosts = tl_topo_n_hosts(t);
    const uint32_t *hosts = tl_topo_hosts(t);
    int is_multi_dc = 0;
    for (uint32_t i = 1; i < n_hosts; i++)
        is_multi_dc |= tl_topo_node(t, hosts[i])->dc != tl_topo_node(t, hosts[0])->dc;
    uint64_t n_nodes = 0, n = 0;
    if ((rc = header(&lr, "Nodes", UINT32_MAX, &n_nodes, path, err)) ||
        (rc = header(&lr, "Connections", TL_FLOWS_MAX, &n, path, err)))
        goto out;
    if ((rc = tl_flows_reserve(f, n < 1024 ? (size_t)n : 1024, err)))
        goto out;
    if (is_multi_dc ? tl_flows_add_class(f, "intra", err) < 0 || tl_flows_add_class(f, "inter", err) < 0
                    : tl_flows_add_class(f, "default", err) < 0) {
        rc = err ? err->code : TL_ENOMEM;
        goto out;
    }
    size_t lines_cap = n < 1024 ? (size_t)n : 1024;
    if (!(lines = malloc(lines_cap * sizeof *lines))) {
        rc = tl_err_nomem(err);
        goto out;
    }
    char *s;
    while ((s = next_line(&lr))) {
        if (f->n == n) {
            rc = tl_err_at(err, TL_EPARSE, path, lr.line, 1, NULL,
                           "'Connections %" PRIu64 "' announces %" PRIu64 " flows, but there are "
                           "more lines: found '%.60s'", n, n, s);
            goto out;
        }
        if (f->n == f->cap && (rc = tl_flows_reserve(f, f->cap * 2, err)))
            goto out;
        if (f->n == lines_cap) {
            size_t *l = realloc(lines, 2 * lines_cap * sizeof *lines);
            if (!l) {
                rc = tl_err_nomem(err);
                goto out;
            }
            lines = l, lines_cap *= 2;
        }
        lines[f->n] = lr.line;
        unsigned long long src, dst, id, size;
        double start_us;
        int used = 0;
        if (sscanf(s, "%llu->%llu id %llu start %lf size %llu %n", &src, &dst, &id, &start_us,
                   &size, &used) != 5 ||
            s[used] != '\0' || !(start_us >= 0) || !isfinite(start_us) || start_us > 1e12) {
            rc = tl_err_at(err, TL_EPARSE, path, lr.line, 1, NULL,
                           "expected 'SRC->DST id ID start MICROSECONDS size BYTES', found '%.60s'",
                           s);
            goto out;
        }
        if (src >= n_hosts || dst >= n_hosts) {
            rc = tl_err_at(err, TL_ERANGE, path, lr.line, 1, NULL,
                           "host %llu is not in the topology, which has hosts 0..%u",
                           src >= n_hosts ? src : dst, n_hosts - 1);
            goto out;
        }
        if (src == dst || size == 0) {
            rc = tl_err_at(err, TL_EINVAL, path, lr.line, 1, NULL,
                           src == dst ? "source and destination are the same host"
                                      : "size must be > 0 bytes");
            goto out;
        }
        uint32_t a = hosts[src], b = hosts[dst];
        int is_inter = tl_topo_node(t, a)->dc != tl_topo_node(t, b)->dc;
        f->v[f->n++] = (tl_flow){.id = id,
                                 .src = a,
                                 .dst = b,
                                 .size_bytes = size,
                                 .start_ps = (int64_t)llround(start_us * 1e6),
                                 .class_idx = (uint32_t)(is_multi_dc && is_inter)};
    }
    if (ferror(lr.f))
        rc = tl_err_at(err, TL_EIO, path, lr.line, 0, NULL, "read error");
    else if (f->n != n)
        rc = tl_err_at(err, TL_EPARSE, path, lr.line, 1, NULL,
                       "'Connections %" PRIu64 "' announces %" PRIu64 " flows, found only %zu", n, n,
                       f->n);
    if (!rc)
        rc = tl_flows_check_unique_ids(f, lines, path, err);
    if (!rc)
        qsort(f->v, f->n, sizeof *f->v, by_start);
out:
    free(lines);
    rc = tl_lines_result(&lr, rc, err);
    tl_lines_close(&lr);
    if (rc)
        tl_flows_fini(f);
    return rc;
}
