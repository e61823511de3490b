/* Decomposition (parsimon.txt §3.1): every flow on its ECMP path, and every
 * directed link's flows with the volumes the link-level topologies need. */
#include <stdlib.h>
#include <string.h>

#include "parsimon/parsimon_int.h"

void ps_decomp_fini(ps_decomp *d)
{
    free(d->path_off), free(d->path), free(d->chan_off), free(d->chan_flows);
    free(d->bytes), free(d->ack_bytes), free(d->pkts), free(d->first_ps), free(d->last_ps);
    memset(d, 0, sizeof *d);
}

int ps_decompose(ps_decomp *d, const tl_routes *r, const tl_flows *f, uint32_t mtu,
                 uint32_t ack_bytes, tl_err *err)
{
    memset(d, 0, sizeof *d);
    tl_flow_paths fp;
    int rc = tl_flow_paths_build(&fp, r, f, err);
    if (rc)
        return rc;
    /* d takes the arrays over */
    uint32_t nc = fp.n_chans;
    d->n_chans = nc;
    d->n_flows = f->n;
    d->path_off = fp.path_off, d->path = fp.path;
    d->chan_off = fp.chan_off, d->chan_flows = fp.chan_flows;
    d->bytes = calloc((size_t)nc + 1, sizeof *d->bytes);
    d->ack_bytes = calloc((size_t)nc + 1, sizeof *d->ack_bytes);
    d->pkts = calloc((size_t)nc + 1, sizeof *d->pkts);
    d->first_ps = malloc(((size_t)nc + 1) * sizeof *d->first_ps);
    d->last_ps = malloc(((size_t)nc + 1) * sizeof *d->last_ps);
    if (!d->bytes || !d->ack_bytes || !d->pkts || !d->first_ps || !d->last_ps) {
        ps_decomp_fini(d);
        return tl_err_nomem(err);
    }
    for (uint32_t c = 0; c < nc; c++)
        d->first_ps[c] = INT64_MAX, d->last_ps[c] = INT64_MIN;
    for (size_t i = 0; i < f->n; i++) {
        const tl_flow *fl = &f->v[i];
        uint64_t pk = ps_packets(fl->size_bytes, mtu);
        for (uint32_t k = d->path_off[i]; k < d->path_off[i + 1]; k++) {
            uint32_t c = d->path[k];
            d->bytes[c] += fl->size_bytes;
            d->pkts[c] += pk;
            d->ack_bytes[c] += pk * ack_bytes;
            if (fl->start_ps < d->first_ps[c])
                d->first_ps[c] = fl->start_ps;
            if (fl->start_ps > d->last_ps[c])
                d->last_ps[c] = fl->start_ps;
        }
    }
    return 0;
}

double ps_ack_rate_bps(const ps_decomp *d, const tl_topo *t, uint32_t chan, uint32_t header)
{
    uint32_t rev = chan ^ 1u;
    if (d->chan_off[rev + 1] == d->chan_off[rev])
        return 0;
    /* The reverse link's data clocks these ACKs, and it cannot carry its
     * bytes faster than its rate: with few flows the arrival span can be far
     * shorter than that, and the paper's rate (ACK bytes / arrival span)
     * would exceed the link. */
    double rate = (double)tl_topo_link(t, tl_chan_link(rev))->rate_bps;
    double wire_s = (double)(d->bytes[rev] + d->pkts[rev] * header) * 8 / rate;
    double span_s = (double)(d->last_ps[rev] - d->first_ps[rev]) * 1e-12;
    return (double)d->ack_bytes[rev] * 8 / (span_s > wire_s ? span_s : wire_s);
}

double ps_load(const ps_decomp *d, const tl_topo *t, uint32_t chan)
{
    if (d->chan_off[chan + 1] - d->chan_off[chan] < 2 || d->last_ps[chan] <= d->first_ps[chan])
        return 0;
    double span_s = (double)(d->last_ps[chan] - d->first_ps[chan]) * 1e-12;
    return (double)d->bytes[chan] * 8 / span_s /
           (double)tl_topo_link(t, tl_chan_link(chan))->rate_bps;
}

/* The channel before chan on flow i's path, or UINT32_MAX if chan is its
 * first hop (or not on it). Paths are a few hops long. */
static uint32_t prev_chan(const ps_decomp *d, size_t i, uint32_t chan)
{
    for (uint32_t k = d->path_off[i] + 1; k < d->path_off[i + 1]; k++)
        if (d->path[k] == chan)
            return d->path[k - 1];
    return UINT32_MAX;
}

/* The channel after chan on flow i's path, or UINT32_MAX. */
static uint32_t next_chan(const ps_decomp *d, size_t i, uint32_t chan)
{
    for (uint32_t k = d->path_off[i]; k + 1 < d->path_off[i + 1]; k++)
        if (d->path[k] == chan)
            return d->path[k + 1];
    return UINT32_MAX;
}

int ps_is_passthrough(const ps_decomp *d, const tl_topo *t, uint32_t chan)
{
    uint32_t a = d->chan_off[chan], n = d->chan_off[chan + 1] - a;
    if (n == 0)
        return 0;
    uint32_t up = prev_chan(d, d->chan_flows[a], chan);
    if (up == UINT32_MAX ||
        tl_topo_link(t, tl_chan_link(up))->rate_bps > tl_topo_link(t, tl_chan_link(chan))->rate_bps)
        return 0;
    for (uint32_t i = 1; i < n; i++)
        if (prev_chan(d, d->chan_flows[a + i], chan) != up)
            return 0;
    /* The ACKs crossing chan belong to the reverse channel's flows: they
     * enter chan's tail through up too only if those flows all leave
     * through up's reverse. */
    uint32_t rev = chan ^ 1u, ra = d->chan_off[rev], rn = d->chan_off[rev + 1] - ra;
    for (uint32_t i = 0; i < rn; i++)
        if (next_chan(d, d->chan_flows[ra + i], rev) != (up ^ 1u))
            return 0;
    return 1;
}
