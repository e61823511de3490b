/* The NIC scheduler of a host (docs/pktsim.md): control packets first, then
 * the host's active connections round-robin, each asked by its transport
 * for a packet (which the transport may refuse: window full, or paced until
 * later). */
#include "pktsim_int.h"

void nic_remove(tl_pktsim *s, port *p, uint32_t ci)
{
    conn *c = &s->cn[ci];
    if (!c->is_in_rr)
        return;
    c->is_in_rr = 0;
    if (c->rr_next == ci) {
        p->rr_head = NONE;
        return;
    }
    s->cn[c->rr_prev].rr_next = c->rr_next;
    s->cn[c->rr_next].rr_prev = c->rr_prev;
    if (p->rr_head == ci)
        p->rr_head = c->rr_next;
}

void nic_add(tl_pktsim *s, port *p, uint32_t ci)
{
    conn *c = &s->cn[ci];
    if (c->is_in_rr)
        return;
    c->is_in_rr = 1;
    if (p->rr_head == NONE) {
        c->rr_next = c->rr_prev = ci;
        p->rr_head = ci;
        return;
    }
    uint32_t h = p->rr_head, t = s->cn[h].rr_prev; /* insert before the cursor: served last */
    c->rr_next = h;
    c->rr_prev = t;
    s->cn[t].rr_next = ci;
    s->cn[h].rr_prev = ci;
}

/* The NIC p may have work: if idle, it sends its next packet. */
void nic_kick(tl_pktsim *s, port *p, int64_t now)
{
    if (p->busy_until_ps > now) {
        if (p->q_head[0] != NONE || p->rr_head != NONE)
            port_arm_txdone(s, p, p->busy_until_ps);
        return;
    }
    uint32_t i = port_dequeue(s, p, now);
    if (i == NONE && p->rr_head != NONE && !p->is_paused) {
        int64_t wake = INT64_MAX;
        /* One lap of the ring: it ends back at the first connection that
         * stayed in it (the head itself may leave, so the head cannot mark
         * the lap). */
        uint32_t ci = p->rr_head, lap = NONE;
        while (p->rr_head != NONE && ci != lap) {
            uint32_t nx = s->cn[ci].rr_next;
            int64_t w;
            uint32_t k = s->tp->pull(s, ci, now, &w);
            if (k == NONE && w == TL_PULL_IDLE) { /* nothing to send: leave until kicked */
                nic_remove(s, p, ci);
                ci = nx;
                continue;
            }
            if (lap == NONE)
                lap = ci;
            if (k != NONE) {
                i = k;
                p->rr_head = s->cn[ci].is_in_rr ? s->cn[ci].rr_next : p->rr_head;
                break;
            }
            if (w != TL_PULL_BLOCKED && w < wake)
                wake = w;
            ci = nx;
        }
        if (i == NONE && wake != INT64_MAX)
            port_arm_txdone(s, p, wake);
    }
    if (i == NONE)
        return;
    port_start_tx(s, p, i, now);
    if (p->q_head[0] != NONE || p->rr_head != NONE)
        port_arm_txdone(s, p, p->busy_until_ps);
}
