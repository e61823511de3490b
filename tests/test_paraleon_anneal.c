/* PARALEON's simulated annealing (issue 48, paraleon.txt Algorithm 1): moves
 * stay inside the registry's ranges, guided moves follow the dominant flow
 * type when mu = eta = 1, the schedule of Table III ends after its 14
 * temperatures x 20 settings, a schedule that never ends and knobs without a
 * direction are refused, and a seed gives one trajectory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/pktsim.h"
#include "tailor/rng.h"
#include "tailor/tune.h"
#include "tailor/world.h"
#include "testutil.h"

static const char *const knobs[] = {
    "switch.kmin_bytes_per_gbps", "switch.kmax_bytes_per_gbps", "switch.pmax",
    "dcqcn.ai_rate_bps",          "dcqcn.hai_rate_bps",         "dcqcn.rpg_time_reset_ps",
    "dcqcn.rpg_byte_reset_bytes", "dcqcn.rpg_gd",               "dcqcn.min_time_between_cnps_ps",
    "dcqcn.clamp_tgt_rate",
};
#define N_KNOBS (sizeof knobs / sizeof *knobs)

static tl_anneal *make(const tl_anneal_cfg *cfg, tl_params *p, uint64_t seed)
{
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_params_init(p, &err), 0);
    tl_anneal *a = tl_anneal_create(cfg, knobs, N_KNOBS, p, seed, &err);
    if (!a)
        fail_msg("create: %s", err.msg);
    return a;
}

/* Random utilities and flow mixes over the whole schedule: every setting
 * handed out is inside every knob's range, integer knobs stay integers, and
 * Table III's schedule hands out 279 settings after the start. */
static void stays_in_range(void **state)
{
    tl_anneal_cfg cfg;
    tl_anneal_cfg_default(&cfg);
    cfg.step_frac = 3; /* big steps: the ranges' ends are reached */
    tl_params p;
    tl_anneal *a = make(&cfg, &p, 1);
    tl_rng r;
    tl_rng_init(&r, 5, "test", 0);
    double next[N_KNOBS];
    int n = 0, hits = 0;
    double util = NAN;
    while (tl_anneal_step(a, util, tl_rng_uniform(&r), next)) {
        n++;
        for (size_t i = 0; i < N_KNOBS; i++) {
            const tl_param_def *d = tl_params_def((size_t)tl_params_find(knobs[i]));
            if (next[i] < d->min || next[i] > d->max)
                fail_msg("%s = %g outside [%g, %g]", d->name, next[i], d->min, d->max);
            if (d->is_integer)
                assert_true(next[i] == floor(next[i]));
            hits += next[i] == d->min || next[i] == d->max;
        }
        util = tl_rng_uniform(&r);
    }
    assert_int_equal(n, 14 * 20 - 1);
    assert_true(hits > 0);
    double best;
    tl_anneal_best(a, &best);
    assert_true(best > 0.9); /* the best of 279 uniform draws, accepted or not */
    tl_anneal_destroy(a);
    tl_params_fini(&p);
}

/* mu = 1 (all elephants) and eta = 1: each candidate moves every knob the
 * throughput-friendly way from the last accepted setting (every setting is
 * accepted here: the utility only rises); all mice: the delay-friendly way. */
static void guided_moves_follow_the_dominant_type(void **state)
{
    for (int elephants = 0; elephants < 2; elephants++) {
        tl_anneal_cfg cfg;
        tl_anneal_cfg_default(&cfg);
        cfg.eta = 1;
        tl_params p;
        tl_anneal *a = make(&cfg, &p, 2);
        double prev[N_KNOBS], next[N_KNOBS];
        for (size_t i = 0; i < N_KNOBS; i++)
            prev[i] = tl_params_get(&p, knobs[i]);
        double util = NAN;
        for (int k = 0; k < 60 && tl_anneal_step(a, util, elephants, next); k++) {
            for (size_t i = 0; i < N_KNOBS; i++) {
                const tl_param_def *d = tl_params_def((size_t)tl_params_find(knobs[i]));
                int up_tp = d->dir == TL_DIR_UP_THROUGHPUT;
                int want_up = up_tp == elephants;
                if (want_up ? next[i] < prev[i] : next[i] > prev[i])
                    fail_msg("%s moved %g -> %g against the %s", d->name, prev[i], next[i],
                             elephants ? "elephants" : "mice");
                if (want_up ? next[i] == prev[i] && next[i] < d->max
                            : next[i] == prev[i] && next[i] > d->min)
                    fail_msg("%s did not move from %g", d->name, prev[i]);
            }
            memcpy(prev, next, sizeof prev);
            util = k; /* rising: every candidate is accepted */
        }
        tl_anneal_destroy(a);
        tl_params_fini(&p);
    }
}

/* The naive search moves both ways even with all elephants. */
static void naive_moves_both_ways(void **state)
{
    tl_anneal_cfg cfg;
    tl_anneal_cfg_default(&cfg);
    cfg.is_guided = 0;
    tl_params p;
    tl_anneal *a = make(&cfg, &p, 3);
    double prev = tl_params_get(&p, "dcqcn.ai_rate_bps"), next[N_KNOBS];
    int up = 0, down = 0;
    for (int k = 0; k < 100 && tl_anneal_step(a, k, 1, next); k++) {
        up += next[3] > prev;
        down += next[3] < prev;
        prev = next[3];
    }
    assert_true(up > 20 && down > 20);
    tl_anneal_destroy(a);
    tl_params_fini(&p);
}

/* A seed gives one trajectory; another seed another. */
static void deterministic(void **state)
{
    double traj[3][40][N_KNOBS];
    for (int run = 0; run < 3; run++) {
        tl_anneal_cfg cfg;
        tl_anneal_cfg_default(&cfg);
        tl_params p;
        tl_anneal *a = make(&cfg, &p, run < 2 ? 7 : 8);
        double util = NAN;
        for (int k = 0; k < 40; k++) {
            tl_anneal_step(a, util, 0.3, traj[run][k]);
            util = sin(k);
        }
        tl_anneal_destroy(a);
        tl_params_fini(&p);
    }
    assert_memory_equal(traj[0], traj[1], sizeof traj[0]);
    assert_memory_not_equal(traj[0], traj[2], sizeof traj[0]);
}

/* Located errors before any search: a schedule that never ends, a knob the
 * registry lacks or one without a direction. */
static void bad_configurations(void **state)
{
    tl_params p;
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_params_init(&p, &err), 0);
    tl_anneal_cfg cfg;
    tl_anneal_cfg_default(&cfg);
    cfg.cooling = 1;
    assert_null(tl_anneal_create(&cfg, knobs, N_KNOBS, &p, 1, &err));
    tu_check_err("cooling 1", &err, TL_ERANGE, "never ends", NULL);
    tl_anneal_cfg_default(&cfg);
    cfg.t_final = 0;
    assert_null(tl_anneal_create(&cfg, knobs, N_KNOBS, &p, 1, &err));
    tu_check_err("final temperature 0", &err, TL_ERANGE, "never ends", NULL);
    tl_anneal_cfg_default(&cfg);
    const char *bad[] = {"dcqcn.ai_rate"};
    assert_null(tl_anneal_create(&cfg, bad, 1, &p, 1, &err));
    tu_check_err("unknown knob", &err, TL_EINVAL, "dcqcn.ai_rate", NULL);
    const char *neutral[] = {"dcqcn.dce_tcp_rtt_ps"};
    assert_null(tl_anneal_create(&cfg, neutral, 1, &p, 1, &err));
    tu_check_err("neutral knob", &err, TL_EINVAL, "no throughput- or delay-friendly", NULL);
    tl_params_fini(&p);
}

/* ---- the closed loop in pktsim ---- */

typedef struct loop {
    tl_world w;
    tl_pktsim *s;
    tl_monitor *m;
    tl_tuner *t;
} loop;

static void loop_start(loop *l)
{
    tu_world_make(&l->w, "{\"seed\": 6, \"topology\": {\"type\": \"leaf_spine\", \"leaves\": 2, "
                         "\"spines\": 2, \"hosts_per_leaf\": 4, \"host_link_bps\": \"100Gbps\", "
                         "\"fabric_link_bps\": \"100Gbps\", \"link_delay_ns\": 1000}, \"workload\": "
                         "{\"flows\": 600, \"classes\": [{\"sizes\": {\"cdf\": \"fb-hadoop\"}, "
                         "\"spatial\": {\"type\": \"uniform\"}, \"load\": {\"max_link_load\": "
                         "0.6}}]}, \"transport\": {\"cc\": \"dcqcn\", \"monitor\": {\"interval_ps\": "
                         "\"50us\", \"warmup\": 3, \"min_flows\": 1}}}");
    tl_err err;
    tl_err_clear(&err);
    l->s = tu_pktsim_make(&l->w);
    l->m = tl_monitor_attach(l->s, l->w.topo, &l->w.flows, &l->w.sc.params, &err);
    assert_non_null(l->m);
    tl_anneal_cfg cfg;
    tl_anneal_cfg_default(&cfg);
    l->t = tl_tuner_attach(l->s, l->m, tl_tune_table1_knobs, tl_tune_n_table1_knobs,
                           &l->w.sc.params, &cfg, 6, &err);
    if (!l->t)
        fail_msg("tuner: %s", err.msg);
}

static void loop_end(loop *l)
{
    tl_tuner_destroy(l->t);
    tl_monitor_destroy(l->m);
    tl_pktsim_destroy(l->s);
    tl_world_fini(&l->w);
}

/* The loop starts searching once the monitor has its reference (after the
 * warm-up), changes knobs only at interval boundaries (halfway through an
 * interval the values in force are the ones its boundary dispatched), keeps
 * them in range, and a seed gives one run. */
static void closed_loop(void **state)
{
    loop a, b;
    loop_start(&a);
    tl_err err;
    tl_err_clear(&err);
    size_t nr = 0, w;
    for (int64_t t = 75000000;; t += 50000000) { /* halfway through each interval */
        assert_int_equal(tl_pktsim_run(a.s, t, NULL, &err), 0);
        const double *rows = tl_tuner_trajectory(a.t, &nr, &w);
        const tl_params *cur = tl_tuner_setting(a.t, NULL, NULL);
        if (nr)
            for (size_t i = 0; i < tl_tune_n_table1_knobs; i++)
                assert_true(rows[(nr - 1) * w + 5 + i] ==
                            tl_params_get(cur, tl_tune_table1_knobs[i]));
        tl_pktsim_stats st;
        tl_pktsim_get_stats(a.s, &st);
        if (st.n_flows_done == a.w.flows.n)
            break;
    }
    const double *rows = tl_tuner_trajectory(a.t, &nr, &w);
    assert_true(nr > 5);
    assert_true(rows[0 * w + 1] == 0 && rows[1 * w + 1] == 0); /* warm-up: idle */
    int n_search = 0, n_moves = 0;
    for (size_t r = 0; r < nr; r++) {
        n_search += rows[r * w + 1] == 1;
        for (size_t i = 0; i < tl_tune_n_table1_knobs; i++) {
            const tl_param_def *d = tl_params_def((size_t)tl_params_find(tl_tune_table1_knobs[i]));
            double v = rows[r * w + 5 + i];
            assert_true(v >= d->min && v <= d->max);
            n_moves += r > 0 && v != rows[(r - 1) * w + 5 + i];
        }
    }
    assert_true(n_search > 0 && n_moves > 0);
    /* the same run again, in one go */
    loop_start(&b);
    assert_int_equal(tl_pktsim_run(b.s, 0, NULL, &err), 0);
    size_t nb;
    const double *rb = tl_tuner_trajectory(b.t, &nb, &w);
    assert_int_equal(nb, nr);
    assert_memory_equal(rb, rows, nr * w * sizeof *rows);
    for (size_t f = 0; f < a.w.flows.n; f++)
        assert_int_equal(tl_pktsim_results(a.s)[f].fct_ps, tl_pktsim_results(b.s)[f].fct_ps);
    loop_end(&a);
    loop_end(&b);
}

/* A search range inside the registered one bounds every candidate; one
 * that leaves it, or is empty, is refused. */
static void bounded(void **state)
{
    (void)state;
    tl_anneal_cfg cfg;
    tl_anneal_cfg_default(&cfg);
    cfg.step_frac = 3;
    tl_params p;
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_params_init(&p, &err), 0);
    const char *k[] = {"dcqcn.ai_rate_bps", "switch.pmax"};
    double lo[] = {1e6, 0.1}, hi[] = {5e8, 0.4};
    tl_anneal *a = tl_anneal_create_bounded(&cfg, k, 2, lo, hi, &p, 3, &err);
    assert_non_null(a);
    double next[2];
    int n = 0, at_lo = 0, at_hi = 0;
    while (tl_anneal_step(a, n % 3 ? 0.5 : 0.2, 0.1, next)) {
        for (int i = 0; i < 2; i++) {
            assert_true(next[i] >= lo[i] && next[i] <= hi[i]);
            at_lo += next[i] == lo[i];
            at_hi += next[i] == hi[i];
        }
        n++;
    }
    assert_true(at_lo > 0 && at_hi > 0); /* the steps reach both ends */
    tl_anneal_destroy(a);
    double wide[] = {1e3, 0.1}, empty_lo[] = {1e6, 0.5};
    assert_null(tl_anneal_create_bounded(&cfg, k, 2, wide, hi, &p, 3, &err));
    tu_check_err("below the registry", &err, TL_ERANGE, "dcqcn.ai_rate_bps", "registered range");
    assert_null(tl_anneal_create_bounded(&cfg, k, 2, empty_lo, hi, &p, 3, &err));
    tu_check_err("empty", &err, TL_ERANGE, "switch.pmax", "low end first");
    tl_params_fini(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stays_in_range),
        cmocka_unit_test(guided_moves_follow_the_dominant_type),
        cmocka_unit_test(naive_moves_both_ways),
        cmocka_unit_test(deterministic),
        cmocka_unit_test(bad_configurations),
        cmocka_unit_test(closed_loop),
        cmocka_unit_test(bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
