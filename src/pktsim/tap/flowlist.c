#include "flowlist.h"

#include <stdlib.h>
#include <string.h>

int tl_flowlist_init(tl_flowlist *l, size_t n_flows, tl_err *err)
{
    l->n_flows = n_flows;
    l->n_touched = 0;
    l->bytes = calloc(n_flows ? n_flows : 1, sizeof *l->bytes);
    l->touched = malloc((n_flows ? n_flows : 1) * sizeof *l->touched);
    if (!l->bytes || !l->touched) {
        tl_flowlist_fini(l);
        return tl_err_nomem(err);
    }
    return 0;
}

void tl_flowlist_fini(tl_flowlist *l)
{
    free(l->bytes);
    free(l->touched);
    memset(l, 0, sizeof *l);
}

void tl_flowlist_clear(tl_flowlist *l)
{
    for (size_t i = 0; i < l->n_touched; i++)
        l->bytes[l->touched[i]] = 0;
    l->n_touched = 0;
}
