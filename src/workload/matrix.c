/* Rack-to-rack traffic matrices (parsimon.txt §5.1: matrices A, B, C from the
 * Roy et al. Meta dataset), read from data/matrices/ in tailor's text format:
 *   '#' comments, "racks N", "pods P", P lines "pod i racks a-b", N rows of N
 *   non-negative numbers (row = source rack). */
#include "tailor/workload.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/fileio.h"

void tl_matrix_fini(tl_matrix *m)
{
    if (!m)
        return;
    free(m->pod_of);
    free(m->w);
    m->pod_of = NULL;
    m->w = NULL;
}

static const char *builtin_alias(const char *name)
{
    if (strcmp(name, "A") == 0 || strcmp(name, "a") == 0)
        return "a-32rack";
    if (strcmp(name, "B") == 0 || strcmp(name, "b") == 0)
        return "b-32rack";
    if (strcmp(name, "C") == 0 || strcmp(name, "c") == 0)
        return "c-32rack";
    return name;
}

static char *next_content_line(tl_lines *lr)
{
    char *s;
    while ((s = tl_lines_next(lr))) {
        while (isspace((unsigned char)*s))
            s++;
        if (*s && *s != '#')
            return s;
    }
    return NULL;
}

int tl_matrix_load(tl_matrix *m, const char *name_or_path, tl_err *err)
{
    memset(m, 0, sizeof *m);
    char path[1024];
    const char *name = builtin_alias(name_or_path);
    if (!strchr(name, '/') && !strchr(name, '.')) {
        char rel[256];
        snprintf(rel, sizeof rel, "matrices/%s.txt", name);
        if (tl_data_path(rel, path, sizeof path, err) != 0)
            return tl_err_set(err, TL_EIO,
                              "unknown traffic matrix '%s' (built-in: A, B, C, a-32rack, b-32rack, "
                              "c-32rack, a-full, b-full, c-full; or give a file path)",
                              name_or_path);
    } else {
        snprintf(path, sizeof path, "%s", name);
    }
    const char *base = strrchr(path, '/');
    snprintf(m->name, sizeof m->name, "%s", base ? base + 1 : path);
    char *dot = strrchr(m->name, '.');
    if (dot)
        *dot = '\0';

    tl_lines lr;
    int rc = tl_lines_open(&lr, path, err);
    if (rc)
        return rc;
    char *s;
    unsigned long n_racks = 0, n_pods = 0;
    if (!(s = next_content_line(&lr)) || sscanf(s, "racks %lu", &n_racks) != 1 || n_racks == 0 ||
        n_racks > 100000) {
        rc = tl_err_at(err, TL_EPARSE, path, lr.line, 1, NULL,
                       "expected 'racks N' with 1 <= N <= 100000, found '%s'", s ? s : "end of file");
        goto out;
    }
    if (!(s = next_content_line(&lr)) || sscanf(s, "pods %lu", &n_pods) != 1 || n_pods == 0 ||
        n_pods > n_racks) {
        rc = tl_err_at(err, TL_EPARSE, path, lr.line, 1, NULL,
                       "expected 'pods P' with 1 <= P <= racks, found '%s'", s ? s : "end of file");
        goto out;
    }
    m->n_racks = (uint32_t)n_racks;
    m->n_pods = (uint32_t)n_pods;
    m->pod_of = malloc(n_racks * sizeof *m->pod_of);
    if (!m->pod_of) {
        rc = tl_err_nomem(err);
        goto out;
    }
    for (unsigned long r = 0; r < n_racks; r++)
        m->pod_of[r] = UINT32_MAX;
    for (unsigned long p = 0; p < n_pods; p++) {
        unsigned long pi, a, b;
        if (!(s = next_content_line(&lr)) || sscanf(s, "pod %lu racks %lu-%lu", &pi, &a, &b) != 3 ||
            pi != p || a > b || b >= n_racks) {
            rc = tl_err_at(err, TL_EPARSE, path, lr.line, 1, NULL,
                           "expected 'pod %lu racks a-b' with a <= b < %lu, found '%s'", p, n_racks,
                           s ? s : "end of file");
            goto out;
        }
        for (unsigned long r = a; r <= b; r++)
            m->pod_of[r] = (uint32_t)p;
    }
    for (unsigned long r = 0; r < n_racks; r++)
        if (m->pod_of[r] == UINT32_MAX) {
            rc = tl_err_at(err, TL_EPARSE, path, lr.line, 0, NULL, "rack %lu belongs to no pod", r);
            goto out;
        }
    /* Rows are stored as they are read, so "racks N" alone cannot make us
     * allocate N^2 entries: memory stays in proportion to the file. */
    unsigned long cap_rows = 0;
    for (unsigned long r = 0; r < n_racks; r++) {
        if (!(s = next_content_line(&lr))) {
            rc = tl_err_at(err, TL_EPARSE, path, lr.line + 1, 1, NULL,
                           "expected %lu matrix rows, found %lu", n_racks, r);
            goto out;
        }
        if (r == cap_rows) {
            cap_rows = cap_rows ? 2 * cap_rows : 16;
            if (cap_rows > n_racks)
                cap_rows = n_racks;
            double *w = realloc(m->w, cap_rows * n_racks * sizeof *w);
            if (!w) {
                rc = tl_err_nomem(err);
                goto out;
            }
            m->w = w;
        }
        char *p = s;
        for (unsigned long c = 0; c < n_racks; c++) {
            char *end;
            while (*p == ' ' || *p == '\t')
                p++;
            errno = 0;
            double v = strtod(p, &end);
            if (end == p || errno || !(v >= 0)) {
                rc = tl_err_at(err, TL_EPARSE, path, lr.line, (int)(p - lr.buf) + 1, NULL,
                               "row %lu: expected %lu non-negative numbers, entry %lu is '%.20s'",
                               r, n_racks, c, *p ? p : "missing");
                goto out;
            }
            m->w[r * n_racks + c] = v;
            p = end;
        }
        while (isspace((unsigned char)*p))
            p++;
        if (*p) {
            rc = tl_err_at(err, TL_EPARSE, path, lr.line, (int)(p - lr.buf) + 1, NULL,
                           "row %lu: more than %lu entries", r, n_racks);
            goto out;
        }
    }
out:
    rc = tl_lines_result(&lr, rc, err);
    tl_lines_close(&lr);
    if (rc)
        tl_matrix_fini(m);
    return rc;
}
