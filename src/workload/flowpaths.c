/* Flows on their paths and channels' flows (the decomposition of
 * parsimon.txt §3.1 and m3.txt §3.2): one routing pass, two CSR arrays. */
#include <stdlib.h>
#include <string.h>

#include "tailor/workload.h"

void tl_flow_paths_fini(tl_flow_paths *fp)
{
    free(fp->path_off), free(fp->path), free(fp->chan_off), free(fp->chan_flows);
    memset(fp, 0, sizeof *fp);
}

int tl_flow_paths_build(tl_flow_paths *fp, const tl_routes *r, const tl_flows *f, tl_err *err)
{
    memset(fp, 0, sizeof *fp);
    uint32_t nc = 2 * tl_topo_n_links(tl_routes_topo(r));
    fp->n_flows = f->n;
    fp->n_chans = nc;
    size_t cap = f->n * 4 + 16; /* grows: paths are 2-6 hops in data-center fabrics */
    fp->path_off = malloc((f->n + 1) * sizeof *fp->path_off);
    fp->path = malloc(cap * sizeof *fp->path);
    fp->chan_off = calloc((size_t)nc + 1, sizeof *fp->chan_off);
    uint32_t *fill = NULL;
    if (!fp->path_off || !fp->path || !fp->chan_off)
        goto nomem;
    size_t used = 0;
    for (size_t i = 0; i < f->n; i++) {
        const tl_flow *fl = &f->v[i];
        if (used + TL_MAX_HOPS > cap) {
            cap *= 2;
            uint32_t *p = realloc(fp->path, cap * sizeof *p);
            if (!p)
                goto nomem;
            fp->path = p;
        }
        fp->path_off[i] = (uint32_t)used;
        int h = tl_routes_path(r, fl->id, fl->src, fl->dst, fp->path + used, TL_MAX_HOPS, err);
        if (h < 0) {
            tl_flow_paths_fini(fp);
            return h;
        }
        for (int k = 0; k < h; k++)
            fp->chan_off[fp->path[used + k] + 1]++;
        used += (size_t)h;
    }
    fp->path_off[f->n] = (uint32_t)used;
    for (uint32_t c = 0; c < nc; c++)
        fp->chan_off[c + 1] += fp->chan_off[c];
    fp->chan_flows = malloc(((size_t)fp->chan_off[nc] + 1) * sizeof *fp->chan_flows);
    fill = malloc(((size_t)nc + 1) * sizeof *fill);
    if (!fp->chan_flows || !fill)
        goto nomem;
    memcpy(fill, fp->chan_off, (size_t)nc * sizeof *fill);
    for (size_t i = 0; i < f->n; i++) /* flow order, so each list is in start order */
        for (uint32_t k = fp->path_off[i]; k < fp->path_off[i + 1]; k++)
            fp->chan_flows[fill[fp->path[k]]++] = (uint32_t)i;
    free(fill);
    return 0;
nomem:
    free(fill);
    tl_flow_paths_fini(fp);
    return tl_err_nomem(err);
}
