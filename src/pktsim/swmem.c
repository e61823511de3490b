/* The switch memory (docs/pktsim.md): each switch's shared buffer with a
 * dynamic threshold per port, and, with PFC, per-ingress accounting,
 * PAUSE/RESUME and headroom, as the HPCC fork of ns-3 keeps them
 * (SwitchMmu). */
#include <math.h>

#include "pktsim_int.h"

/* Whether a switch whose shared buffer holds used bytes takes a packet of
 * bytes into a port queue of q_bytes: it must fit the buffer and, without
 * PFC, the port's dynamic threshold (dt_alpha times the free buffer). With
 * PFC the threshold does not apply: pauses keep the buffer from filling,
 * and only a full buffer drops. */
int swmem_admits(const tl_pktsim *s, uint64_t used, uint64_t q_bytes, uint32_t bytes, int is_pfc)
{
    if (used + bytes > s->buffer_bytes)
        return 0;
    return is_pfc || (double)(q_bytes + bytes) <= s->dt_alpha * (double)(s->buffer_bytes - used);
}

/* PFC: a PAUSE (is_pause) or RESUME for port up reaches it one link delay
 * later, and so for every channel whose counts up keeps
 * (tl_pktsim_set_pfc_ingress). */
static void send_pfc(tl_pktsim *s, port *up, int is_pause, int64_t now)
{
    up->is_pause_sent = (uint8_t)is_pause;
    for (port *q = up;; q = &s->ports[q->pfc_next]) {
        push(s, now + q->prop_ps, (uint32_t)(q - s->ports), EV_PFC, (uint16_t)is_pause);
        if (q->pfc_next == NONE)
            break;
    }
}

/* The port whose PFC counts take the packets that come in over channel c. */
static inline port *pfc_ingress(tl_pktsim *s, uint32_t c) { return &s->ports[s->ports[c].pfc_as]; }

/* The shared buffer switch sw has left (0 when full). */
static inline uint64_t sw_free_bytes(const tl_pktsim *s, uint32_t sw)
{
    uint64_t used = s->sw_used[sw];
    return s->buffer_bytes - (used < s->buffer_bytes ? used : s->buffer_bytes);
}

/* ns-3's HPCC fork resumes a dynamically paused ingress 3 KB below the
 * threshold (SwitchMmu resume_offset). */
#define PFC_RESUME_OFFSET 3000

/* The PAUSE threshold of ingress channel in at switch sw: fixed
 * (pfc_xoff_bytes), or with switch.pfc_shift the switch's free buffer
 * / 2^shift, as the HPCC fork's SwitchMmu::GetPfcThreshold. Its headroom
 * (hdrm_cap) lies outside that buffer; its 4 KB per-queue reserve is not
 * modelled. */
static inline uint64_t pfc_threshold(const tl_pktsim *s, const port *in, uint32_t sw)
{
    return s->is_pfc_dynamic ? sw_free_bytes(s, sw) >> in->pfc_shift : s->pfc_xoff_bytes;
}

static inline int pfc_should_resume(const tl_pktsim *s, const port *in, uint32_t sw)
{
    if (in->hdrm_bytes)
        return 0;
    if (!s->is_pfc_dynamic)
        return in->ingress_bytes < s->pfc_xon_bytes;
    return in->ingress_bytes == 0 || in->ingress_bytes + PFC_RESUME_OFFSET <= pfc_threshold(s, in, sw);
}

int swmem_would_pause(const tl_pktsim *s, const port *in, uint32_t sw, uint64_t held)
{
    uint64_t used = s->sw_used[sw] + held;
    if (used > s->buffer_bytes)
        return 1;
    if (!s->is_pfc_dynamic)
        return held > s->pfc_xoff_bytes;
    uint64_t free = s->buffer_bytes - (used < s->buffer_bytes ? used : s->buffer_bytes);
    return held > free >> in->pfc_shift;
}

/* Takes packet k into switch port p's share of the buffer: 1 if admitted.
 * With PFC, what the full shared buffer cannot take goes to the ingress
 * channel's headroom, kept for the bytes still arriving after a PAUSE;
 * headroom in use pauses too (SwitchMmu). */
int swmem_take(tl_pktsim *s, port *p, pkt *k, int64_t now)
{
    if (p->cap_bytes) /* a per-port buffer (htsim's model); apply_params rules out PFC */
        return p->q_bytes + k->wire_bytes <= p->cap_bytes;
    port *in = s->is_pfc ? pfc_ingress(s, k->in_chan) : NULL;
    if (swmem_admits(s, s->sw_used[p->sw], p->q_bytes, k->wire_bytes, s->is_pfc)) {
        s->sw_used[p->sw] += k->wire_bytes;
        if (in) {
            in->ingress_bytes += k->wire_bytes;
            if (in->ingress_bytes > in->max_ingress_bytes)
                in->max_ingress_bytes = in->ingress_bytes;
        }
    } else if (in && in->hdrm_bytes + k->wire_bytes <= in->hdrm_cap) {
        in->hdrm_bytes += k->wire_bytes;
        s->st.n_headroom_pkts++;
    } else {
        return 0;
    }
    if (in && !in->is_pause_sent &&
        (in->hdrm_bytes || in->ingress_bytes > pfc_threshold(s, in, p->sw)))
        send_pfc(s, in, 1, now);
    return 1;
}

/* Frees the switch buffer that packet k held at port p. With PFC its
 * ingress channel's headroom drains first, as in the HPCC fork's SwitchMmu
 * (whichever of its packets leaves), then the shared buffer; the ingress
 * may then resume. */
void swmem_release(tl_pktsim *s, const port *p, const pkt *k, int64_t now)
{
    if (p->sw == NONE || p->cap_bytes)
        return;
    uint64_t b = k->wire_bytes;
    if (!s->is_pfc) {
        s->sw_used[p->sw] -= b;
        return;
    }
    port *in = pfc_ingress(s, k->in_chan);
    uint64_t h = in->hdrm_bytes < b ? in->hdrm_bytes : b;
    in->hdrm_bytes -= h;
    in->ingress_bytes -= b - h;
    s->sw_used[p->sw] -= b - h;
    if (in->is_pause_sent && pfc_should_resume(s, in, p->sw))
        send_pfc(s, in, 0, now);
}

/* A PAUSE or RESUME reaches port p. */
void swmem_on_pfc(tl_pktsim *s, port *p, int is_pause, int64_t now)
{
    if (is_pause && !p->is_paused) {
        p->is_paused = 1;
        p->n_pauses++;
        p->paused_since_ps = now;
    } else if (!is_pause && p->is_paused) {
        p->is_paused = 0;
        p->paused_ps += now - p->paused_since_ps;
        if (p->is_host)
            nic_kick(s, p, now);
        else if (p->busy_until_ps <= now && !p->is_txdone_armed)
            port_on_txdone(s, p, now);
    }
}

/* Per-port buffer and PFC settings from the knobs (at create and after a
 * change). port_cap, wan_cap: switch.port_buffer_bytes and
 * switch.wan_port_buffer_bytes. */
void swmem_configure(tl_pktsim *s, int shift, uint64_t port_cap, uint64_t wan_cap)
{
    for (uint32_t c = 0; c < s->n_ports; c++) {
        port *q = &s->ports[c];
        q->cap_bytes = q->sw == NONE ? 0 : q->pclass == TL_PORT_WAN && wan_cap ? wan_cap : port_cap;
    }
    /* Dynamic PFC as the HPCC fork's third.cc sets it: the shift falls by one
     * per doubling of a port's rate over the NIC rate (the slowest host link
     * here), so fast fabric ports may hold more. */
    s->is_pfc_dynamic = shift > 0;
    uint64_t nic_bps = UINT64_MAX;
    for (uint32_t c = 0; c < s->n_ports; c++)
        if (s->ports[c].is_host && s->ports[c].rate_bps < nic_bps)
            nic_bps = s->ports[c].rate_bps;
    /* PFC headroom per ingress channel: what can still arrive once it is
     * paused. The PAUSE takes one link delay to land, during which the
     * bytes on the wire and those sent meanwhile (two delays at line rate)
     * keep coming, then the packet being sent when it lands; plus the one
     * that set it off. So a lossless fabric never drops (ns-3's third.cc
     * gives 3 link delays at line rate). */
    uint64_t pkt_bytes = s->mtu_bytes + s->header_bytes;
    for (uint32_t c = 0; c < s->n_ports; c++) {
        port *q = &s->ports[c];
        double bdp = (double)q->rate_bps * (double)q->prop_ps / 8e12;
        q->hdrm_cap = s->is_pfc ? 2 * (uint64_t)ceil(bdp) + 2 * pkt_bytes : 0;
        int sh = shift;
        for (uint64_t r = q->rate_bps; r > nic_bps && sh > 0; r /= 2)
            sh--;
        q->pfc_shift = (uint8_t)sh;
    }
}

int tl_pktsim_set_pfc_ingress(tl_pktsim *s, uint32_t chan, uint32_t as_chan, tl_err *err)
{
    if (chan >= s->n_ports || as_chan >= s->n_ports || chan == as_chan)
        return tl_err_set(err, TL_ERANGE, "PFC ingress: channels %u and %u (of %u) must be two",
                          chan, as_chan, s->n_ports);
    port *p = &s->ports[chan], *a = &s->ports[as_chan];
    if (p->to != a->to || s->node_sw[p->to] == NONE)
        return tl_err_set(err, TL_EINVAL, "PFC ingress: channels %u and %u do not end at one "
                          "switch", chan, as_chan);
    if (p->pfc_as != chan || p->pfc_next != NONE || a->pfc_as != as_chan)
        return tl_err_set(err, TL_EINVAL, "PFC ingress: channel %u already counts with another, "
                          "or %u counts as another", chan, as_chan);
    p->pfc_as = as_chan;
    p->pfc_next = a->pfc_next;
    a->pfc_next = chan;
    return 0;
}
