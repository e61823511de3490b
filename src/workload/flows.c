/* The flow table shared by every engine (id, endpoints, size, start, class). */
#include "tailor/workload.h"
#include "workload_int.h"
#include "tailor/memlimit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tl_flows_init(tl_flows *f) { memset(f, 0, sizeof *f); }

void tl_flows_fini(tl_flows *f)
{
    if (!f)
        return;
    free(f->v);
    for (uint32_t i = 0; i < f->n_classes; i++)
        free(f->class_names[i]);
    free(f->class_names);
    memset(f, 0, sizeof *f);
}

int tl_flows_add_class(tl_flows *f, const char *name, tl_err *err)
{
    char **names = realloc(f->class_names, (f->n_classes + 1) * sizeof *names);
    if (!names)
        return tl_err_nomem(err), -1;
    f->class_names = names;
    names[f->n_classes] = strdup(name);
    if (!names[f->n_classes])
        return tl_err_nomem(err), -1;
    return (int)f->n_classes++;
}

int flows_check_memory(size_t n, const char *who, tl_err *err)
{
    char what[128];
    snprintf(what, sizeof what, "%s%zu flows (and an engine's state for each)", who, n);
    return tl_mem_check(4.0 * (double)n * sizeof(tl_flow), what, err);
}

int tl_flows_reserve(tl_flows *f, size_t n, tl_err *err)
{
    if (n <= f->cap)
        return 0;
    size_t bytes;
    if (__builtin_mul_overflow(n, sizeof *f->v, &bytes))
        return tl_err_set(err, TL_ERANGE, "%zu flows do not fit in memory", n);
    if (flows_check_memory(n, "", err))
        return err ? err->code : TL_ERANGE;
    tl_flow *v = realloc(f->v, bytes);
    if (!v)
        return tl_err_nomem(err);
    f->v = v;
    f->cap = n;
    return 0;
}

void tl_workload_spec_fini(tl_workload_spec *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->n_classes; i++) {
        tl_sizedist_fini(&w->classes[i].sizes);
        tl_matrix_fini(&w->classes[i].spatial.matrix);
    }
    free(w->classes);
    memset(w, 0, sizeof *w);
}
