/* Erasure-coded selective repeat, UnoRC's transport (uno.txt §4.2): a flow
 * is cut into blocks of x data and y parity packets (ec.data_pkts,
 * ec.parity_pkts; (8,2) by default) and a block is complete once any x of
 * its x + y packets have arrived (the coding is modelled, not computed). As
 * Uno's artifact does, the flow is padded to whole blocks of full packets
 * (sim/lcp.cpp), so every packet carries one MSS.
 *
 * The receiver acknowledges every packet, naming it and saying whether its
 * block is complete. At a block's first arrival it starts a timer of
 * ec.wait_ps (0: nic.rto_ps, plus nic.wan_rto_extra_ps between data
 * centers, the artifact's queueing allowance); if the block is still short
 * when it fires, one NACK asks for the missing count, and the timer starts
 * again at the block's next arrival. The sender resends that many of the
 * block's unacknowledged packets (all of them with ec.resend_all, as the
 * artifact), keeps sack's per-packet timeout for packets of blocks not yet
 * complete, and forgets the rest of a block once it is complete. The flow
 * ends when its last block completes. Flows that ec.scope leaves uncoded
 * run as blocks of one packet without parity: plain selective repeat.
 *
 * Per connection it holds arrays of its packets and blocks, allocated at
 * open (sender) and first arrival (receiver) and freed when that side is
 * done. */
#include <stdlib.h>
#include <string.h>

#include "sr_core.h"
#include "gbn_core.h" /* gbn_cnp */

enum { DATA, PARITY, SCOPE, WAIT, RESEND_ALL, N_KNOBS };
const tl_param_def tl_ec_knobs[TL_EC_N_KNOBS] = {
    [DATA] = {"ec.data_pkts", TL_UNIT_NONE, 8, 1, 63, 1, TL_DIR_NEUTRAL,
              "Data packets per erasure-coded block, x (uno.txt §5.2.3: (8, 2); (10, 2) also "
              "runs)."},
    [PARITY] = {"ec.parity_pkts", TL_UNIT_NONE, 2, 0, 32, 1, TL_DIR_NEUTRAL,
                "Parity packets per block, y: a block survives any y losses. x + y <= 64."},
    [SCOPE] = {"ec.scope", TL_UNIT_NONE, 0, 0, 1, 1, TL_DIR_NEUTRAL,
               "Flows that are coded: 0 those between data centers (uno.txt §4.2), 1 every flow "
               "(Uno's artifact)."},
    [WAIT] = {"ec.wait_ps", TL_UNIT_PS, 0, 0, 1e13, 1, TL_DIR_NEUTRAL,
              "The receiver NACKs a block still short this long after its first packet; 0 = "
              "nic.rto_ps, plus nic.wan_rto_extra_ps between data centers (the artifact's 5 "
              "intra-DC plus 3 inter-DC drain times)."},
    [RESEND_ALL] = {"ec.resend_all", TL_UNIT_BOOL, 0, 0, 1, 1, TL_DIR_NEUTRAL,
                    "On a NACK resend every unacknowledged packet of the block (Uno's artifact) "
                    "instead of only as many as it misses."},
};
_Static_assert(N_KNOBS == TL_EC_N_KNOBS, "tailor/params.h declares the table's size");

enum { TX_UNSENT = 0, TX_OUT, TX_LOST, TX_ACKED }; /* a packet at the sender */

typedef struct sent_rec {
    uint32_t p;
    int64_t at;
} sent_rec;

typedef struct ec {
    uint32_t x, n;  /* data and all packets per block */
    uint32_t n_blocks, n_pkts;
    /* sender */
    uint8_t *tx;        /* (n_pkts) TX_* */
    int64_t *sent_ps;   /* (n_pkts) last sending */
    uint8_t *tx_done;   /* (n_blocks) the receiver has the block */
    uint32_t nxt, blocks_left, tx_cum;
    uint64_t in_flight;
    sent_rec *fifo;     /* every sending in time order, for the timeout */
    uint32_t fifo_head, fifo_n, fifo_cap;
    uint32_t *retx;     /* packets to send again, FIFO */
    uint32_t retx_head, retx_n, retx_cap;
    int64_t rto_ps, tx_timer_ps, last_send_ps;
    uint32_t last_wire;
    /* receiver */
    uint64_t *rx_mask;  /* (n_blocks) packets in */
    int64_t *armed_ps;  /* (n_blocks) the block's NACK timer, 0 = off */
    uint8_t *rx_done;
    uint32_t rx_left, rx_cum;
    sent_rec *rx_fifo;  /* armed timers in time order (one wait per flow) */
    uint32_t rx_head, rx_n, rx_cap;
    int64_t wait_ps, rx_timer_ps, last_cnp_ps;
    pkt last;           /* the last data packet in: a NACK retraces its path */
    int is_rx_open;
} ec;

static uint64_t block_data_bytes(tl_pktsim *s, uint32_t c, const ec *t, uint32_t b)
{
    uint64_t size = tp_flow(s, c)->size_bytes, lo = (uint64_t)b * t->x * tp_mss(s);
    uint64_t hi = lo + (uint64_t)t->x * tp_mss(s);
    return (hi < size ? hi : size) - (lo < size ? lo : size);
}

/* Real flow bytes packet p carries (0 for parity and padding). */
static uint32_t real_bytes(tl_pktsim *s, uint32_t c, const ec *t, uint32_t p)
{
    uint32_t b = p / t->n, i = p % t->n;
    if (i >= t->x)
        return 0;
    uint64_t size = tp_flow(s, c)->size_bytes, mss = tp_mss(s);
    uint64_t lo = ((uint64_t)b * t->x + i) * mss;
    return lo >= size ? 0 : (uint32_t)(size - lo < mss ? size - lo : mss);
}

static void close_tx(ec *t)
{
    free(t->tx), free(t->sent_ps), free(t->tx_done), free(t->fifo), free(t->retx);
    t->tx = t->tx_done = NULL, t->sent_ps = NULL, t->fifo = NULL, t->retx = NULL;
    t->fifo_n = t->fifo_cap = t->retx_n = t->retx_cap = 0;
}

static void close_rx(ec *t)
{
    free(t->rx_mask), free(t->armed_ps), free(t->rx_done), free(t->rx_fifo);
    t->rx_mask = NULL, t->armed_ps = NULL, t->rx_done = NULL, t->rx_fifo = NULL;
    t->rx_n = t->rx_cap = 0;
}

static void close_conn(tl_pktsim *s, uint32_t c)
{
    ec *t = tp_state(s, c);
    close_tx(t);
    close_rx(t);
}

static int open(tl_pktsim *s, uint32_t c, int64_t now, tl_err *err)
{
    ec *t = tp_state(s, c);
    const double *k = tl_params_table(tp_params(s), tl_ec_knobs);
    int is_coded = k[SCOPE] != 0 || tp_crosses_dcs(s, c);
    t->x = is_coded ? (uint32_t)k[DATA] : 1;
    t->n = t->x + (is_coded ? (uint32_t)k[PARITY] : 0);
    if (t->n > 64)
        return tl_err_set(err, TL_ERANGE, "ec: blocks of %u data and %u parity packets pass 64",
                          t->x, t->n - t->x);
    uint64_t size = tp_flow(s, c)->size_bytes, per = (uint64_t)t->x * tp_mss(s);
    uint64_t blocks = size ? (size + per - 1) / per : 1;
    if (blocks * t->n > UINT32_MAX / 2)
        return tl_err_set(err, TL_ERANGE, "flow %llu: %llu bytes are too many packets for ec",
                          (unsigned long long)tp_flow(s, c)->id, (unsigned long long)size);
    t->n_blocks = t->blocks_left = t->rx_left = (uint32_t)blocks;
    t->n_pkts = (uint32_t)(blocks * t->n);
    t->tx = calloc(t->n_pkts, 1);
    t->sent_ps = calloc(t->n_pkts, sizeof *t->sent_ps);
    t->tx_done = calloc(t->n_blocks, 1);
    if (!t->tx || !t->sent_ps || !t->tx_done)
        return tl_err_nomem(err);
    int64_t extra = tp_crosses_dcs(s, c) ? tp_wan_rto_extra_ps(s) : 0;
    t->rto_ps = tp_rto_ps(s) + tp_sub(s, c, 0)->io.base_rtt_ps + extra;
    tp_sub(s, c, 0)->io.rto_ps = t->rto_ps;
    t->wait_ps = t->n == t->x ? 0 : k[WAIT] > 0 ? (int64_t)k[WAIT] : tp_rto_ps(s) + extra;
    t->last_cnp_ps = INT64_MIN / 2;
    tp_ready(s, c);
    tp_kick(s, c, now);
    return 0;
}

/* One connection timer serves both ends: each keeps its own due time. */
static void arm(tl_pktsim *s, uint32_t c, int64_t *due, int64_t at)
{
    if (!*due || at < *due) {
        *due = at;
        tp_timer(s, c, at);
    }
}

static void arm_tx(tl_pktsim *s, uint32_t c, ec *t)
{
    if (t->fifo_n)
        arm(s, c, &t->tx_timer_ps, t->fifo[t->fifo_head & (t->fifo_cap - 1)].at + t->rto_ps);
}

static int is_needed(const ec *t, uint32_t p)
{
    return t->tx[p] != TX_ACKED && !t->tx_done[p / t->n];
}

static uint32_t pull(tl_pktsim *s, uint32_t c, int64_t now, int64_t *wake)
{
    ec *t = tp_state(s, c);
    tl_subflow *sf = tp_sub(s, c, 0);
    while (t->retx_n && !is_needed(t, t->retx[t->retx_head & (t->retx_cap - 1)]))
        t->retx_head++, t->retx_n--;
    int is_retx = t->retx_n > 0;
    while (!is_retx && t->nxt < t->n_pkts && t->tx_done[t->nxt / t->n])
        t->nxt++; /* a block completed before all of it went out */
    if (!is_retx && t->nxt >= t->n_pkts) {
        *wake = TL_PULL_IDLE;
        return TL_NO_PKT;
    }
    uint32_t p = is_retx ? t->retx[t->retx_head & (t->retx_cap - 1)] : t->nxt;
    uint32_t mss = tp_mss(s);
    if (!sr_may_send(sf, t->in_flight, mss, t->last_wire, t->last_send_ps, now, wake))
        return TL_NO_PKT;
    sent_rec rec = {p, now};
    if (fifo_push((void **)&t->fifo, &t->fifo_head, &t->fifo_n, &t->fifo_cap, sizeof rec, &rec)) {
        tp_fail_nomem(s);
        *wake = TL_PULL_BLOCKED;
        return TL_NO_PKT;
    }
    uint32_t i = tp_new_data(s, c, 0, (uint64_t)p * mss, mss, now);
    if (i == TL_NO_PKT) {
        *wake = TL_PULL_BLOCKED;
        return TL_NO_PKT;
    }
    pkt *k = tp_pkt(s, i);
    k->block = p;
    if (p % t->n >= t->x)
        k->flags |= PKF_PARITY;
    tl_pktsim_stats *st = tp_stats(s);
    if (is_retx) {
        t->retx_head++, t->retx_n--;
        st->n_retx_pkts++;
        st->bytes_retx += mss;
    } else {
        uint32_t real = real_bytes(s, c, t, p);
        st->bytes_sent += real;
        st->bytes_parity += mss - real;
        t->nxt++;
        sf->io.snd_nxt = (uint64_t)t->nxt * mss;
    }
    t->tx[p] = TX_OUT;
    t->sent_ps[p] = now;
    t->in_flight += mss;
    sf->io.inflight_bytes = t->in_flight;
    t->last_send_ps = now;
    t->last_wire = k->wire_bytes;
    arm_tx(s, c, t);
    return i;
}

/* ---- receiver ---- */

static int open_rx(ec *t)
{
    t->is_rx_open = 1;
    t->rx_mask = calloc(t->n_blocks, sizeof *t->rx_mask);
    t->armed_ps = calloc(t->n_blocks, sizeof *t->armed_ps);
    t->rx_done = calloc(t->n_blocks, 1);
    return t->rx_mask && t->armed_ps && t->rx_done ? 0 : -1;
}

static void on_data(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt d = *tp_pkt(s, i); /* a copy: sending may move the packet pool */
    uint32_t c = d.flow;
    ec *t = tp_state(s, c);
    tp_pkt(s, i)->int_idx = TL_NO_PKT; /* handed to the ACK */
    tp_free(s, i);
    if (!t->is_rx_open && open_rx(t)) {
        tp_fail_nomem(s);
        if (d.int_idx != TL_NO_PKT)
            tp_free_int(s, d.int_idx);
        return;
    }
    gbn_cnp(s, c, &t->last_cnp_ps, &d, 0, now);
    uint32_t p = d.block, b = p / t->n;
    if (t->rx_left == 0) { /* all in: a late copy */
        tp_send_ctrl(s, c, &d, PK_ACK, (uint64_t)t->n_blocks << 1 | 1, d.is_ce, d.int_idx, now);
        return;
    }
    if (!t->rx_done[b] && !(t->rx_mask[b] >> (p % t->n) & 1)) {
        t->rx_mask[b] |= 1ull << (p % t->n);
        t->last = d;
        if ((uint32_t)__builtin_popcountll(t->rx_mask[b]) == t->x) {
            t->rx_done[b] = 1;
            t->armed_ps[b] = 0;
            t->rx_left--;
            tp_stats(s)->bytes_delivered += block_data_bytes(s, c, t, b);
            while (t->rx_cum < t->n_blocks && t->rx_done[t->rx_cum])
                t->rx_cum++;
        } else if (t->wait_ps && !t->armed_ps[b]) {
            sent_rec r = {b, now + t->wait_ps};
            t->armed_ps[b] = r.at;
            if (fifo_push((void **)&t->rx_fifo, &t->rx_head, &t->rx_n, &t->rx_cap, sizeof r, &r))
                tp_fail_nomem(s);
            arm(s, c, &t->rx_timer_ps, t->rx_fifo[t->rx_head & (t->rx_cap - 1)].at);
        }
    }
    /* seq: the blocks complete in order, twice, plus whether p's block is */
    uint64_t seq = (uint64_t)t->rx_cum << 1 | t->rx_done[b];
    tp_send_ctrl(s, c, &d, PK_ACK, seq, d.is_ce, d.int_idx, now);
    if (t->rx_left == 0) {
        close_rx(t);
        tp_rx_done(s, c, now);
    }
}

static void on_rx_timer(tl_pktsim *s, uint32_t c, ec *t, int64_t now)
{
    t->rx_timer_ps = 0;
    while (t->rx_n) {
        sent_rec r = t->rx_fifo[t->rx_head & (t->rx_cap - 1)];
        if (r.at > now)
            break;
        t->rx_head++, t->rx_n--;
        if (t->rx_done[r.p] || t->armed_ps[r.p] != r.at)
            continue;
        t->armed_ps[r.p] = 0; /* again at the block's next arrival */
        uint32_t missing = t->x - (uint32_t)__builtin_popcountll(t->rx_mask[r.p]);
        tp_send_ctrl(s, c, &t->last, PK_NACK, (uint64_t)r.p << 8 | missing, 0, TL_NO_PKT, now);
    }
    if (t->rx_n)
        arm(s, c, &t->rx_timer_ps, t->rx_fifo[t->rx_head & (t->rx_cap - 1)].at);
}

/* ---- sender ---- */

static void forget(ec *t, uint32_t p, uint32_t mss)
{
    if (t->tx[p] == TX_OUT)
        t->in_flight -= t->in_flight >= mss ? mss : t->in_flight;
}

static void block_done(tl_pktsim *s, uint32_t c, ec *t, uint32_t b)
{
    if (t->tx_done[b])
        return;
    t->tx_done[b] = 1;
    t->blocks_left--;
    for (uint32_t p = b * t->n; p < (b + 1) * t->n; p++)
        if (t->tx[p] != TX_ACKED) {
            forget(t, p, tp_mss(s));
            t->tx[p] = TX_ACKED; /* not needed: never resent */
        }
}

static void to_retx(tl_pktsim *s, ec *t, uint32_t p)
{
    forget(t, p, tp_mss(s));
    t->tx[p] = TX_LOST;
    if (fifo_push((void **)&t->retx, &t->retx_head, &t->retx_n, &t->retx_cap, sizeof p, &p))
        tp_fail_nomem(s);
}

static void on_nack(tl_pktsim *s, uint32_t c, ec *t, uint64_t seq, int64_t now)
{
    uint32_t b = (uint32_t)(seq >> 8), need = (uint32_t)(seq & 0xff);
    if (b >= t->n_blocks || t->tx_done[b])
        return;
    tp_stats(s)->n_nacks++;
    tp_lb_loss(s, c, 0, now);
    int is_all = tl_params_table(tp_params(s), tl_ec_knobs)[RESEND_ALL] != 0;
    for (uint32_t p = b * t->n; p < (b + 1) * t->n && (is_all || need); p++)
        if (t->tx[p] == TX_OUT || (t->tx[p] == TX_UNSENT && p < t->nxt)) {
            to_retx(s, t, p);
            need -= need > 0;
        }
    tp_sub(s, c, 0)->io.inflight_bytes = t->in_flight;
}

static void on_ctrl(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt *k = tp_pkt(s, i);
    uint32_t c = k->flow;
    ec *t = tp_state(s, c);
    if (k->kind == PK_CNP) {
        tp_free(s, i);
        if (!tp_is_tx_done(s, c))
            tp_cc_cnp(s, c, 0, now);
        return;
    }
    if (tp_is_tx_done(s, c)) {
        tp_free(s, i);
        return;
    }
    tp_lb_ack(s, c, k, now);
    if (k->kind == PK_NACK) {
        uint64_t seq = k->seq;
        tp_free(s, i);
        on_nack(s, c, t, seq, now);
    } else {
        uint32_t p = k->block, mss = tp_mss(s);
        int is_new = p < t->n_pkts && t->tx[p] != TX_ACKED;
        if (is_new) {
            forget(t, p, mss);
            t->tx[p] = TX_ACKED;
        }
        if ((k->seq & 1) && p < t->n_pkts)
            block_done(s, c, t, p / t->n);
        for (; t->tx_cum < (k->seq >> 1) && t->tx_cum < t->n_blocks; t->tx_cum++)
            block_done(s, c, t, t->tx_cum);
        tl_subflow *sf = tp_sub(s, c, 0);
        sf->io.inflight_bytes = t->in_flight;
        tl_ack_info a = {.ack_seq = (uint64_t)(p + 1) * mss,
                         .newly_acked = is_new ? mss : 0,
                         .is_ece = k->is_ece,
                         .rtt_ps = now - k->sent_ps,
                         .sub = 0};
        tp_int_records(s, k, &a);
        tp_free(s, i);
        if (is_new)
            tp_cc_ack(s, c, 0, &a, now);
    }
    if (t->blocks_left == 0) {
        close_tx(t);
        tp_tx_done(s, c);
        return;
    }
    tp_ready(s, c);
    tp_kick(s, c, now);
}

static void on_tx_timer(tl_pktsim *s, uint32_t c, ec *t, int64_t now)
{
    t->tx_timer_ps = 0;
    int is_loss = 0;
    while (t->fifo_n) {
        sent_rec r = t->fifo[t->fifo_head & (t->fifo_cap - 1)];
        int is_stale = !is_needed(t, r.p) || t->tx[r.p] != TX_OUT || t->sent_ps[r.p] != r.at;
        if (!is_stale && r.at + t->rto_ps > now)
            break;
        t->fifo_head++, t->fifo_n--;
        if (is_stale)
            continue;
        to_retx(s, t, r.p); /* unacknowledged for one RTO since its last sending */
        tp_stats(s)->n_timeouts++;
        is_loss = 1;
    }
    tp_sub(s, c, 0)->io.inflight_bytes = t->in_flight;
    if (is_loss) {
        tp_cc_loss(s, c, 0, now);
        tp_lb_loss(s, c, 0, now);
    }
    arm_tx(s, c, t);
    if (is_loss) {
        tp_ready(s, c);
        tp_kick(s, c, now);
    }
}

static void on_timer(tl_pktsim *s, uint32_t c, int64_t now)
{
    ec *t = tp_state(s, c);
    if (t->rx_timer_ps && now >= t->rx_timer_ps && t->rx_left)
        on_rx_timer(s, c, t, now);
    if (t->tx_timer_ps && now >= t->tx_timer_ps && !tp_is_tx_done(s, c))
        on_tx_timer(s, c, t, now);
}

static void on_cc_change(tl_pktsim *s, uint32_t c, int64_t now)
{
    ec *t = tp_state(s, c);
    if (t->retx_n || t->nxt < t->n_pkts) {
        tp_ready(s, c);
        tp_kick(s, c, now);
    }
}

const tl_transport_ops tl_transport_ec = {
    .name = "ec",
    .doc = "UnoRC's erasure-coded selective repeat: blocks of ec.data_pkts data and "
           "ec.parity_pkts parity packets, any x of which complete the block; a block still short "
           "ec.wait_ps after its first packet is NACKed and the sender resends what it misses "
           "(uno.txt §4.2).",
    .state_bytes = sizeof(ec),
    .n_subflows = 1,
    .open = open,
    .pull = pull,
    .on_data = on_data,
    .on_ctrl = on_ctrl,
    .on_timer = on_timer,
    .on_cc_change = on_cc_change,
    .close = close_conn,
};
