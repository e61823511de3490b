/* PARALEON's tuning beyond the search itself (issue 48): the offline
 * tuner's objective, settings and preset files, the baselines' rules, and
 * the offline search with an estimator as oracle: it moves a knob that
 * obviously dominates the right way, refuses knobs its oracle does not
 * read, gives one trajectory whatever the thread count, and its best is
 * not worse than the start on pktsim beyond the spread across seeds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tailor/engine.h"
#include "tailor/spec.h"
#include "tailor/tune.h"
#include "tailor/world.h"
#include "testutil.h"

static void objective(void **state)
{
    (void)state;
    tl_objective o;
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_objective_parse(&o, "p99@0-1KB,mean@50KB+", &err), 0);
    assert_int_equal(o.n, 2);
    assert_true(o.w[0] == 0.5 && o.w[1] == 0.5);
    assert_int_equal(tl_objective_parse(&o, "p99.9@all:0.25,p50@10-50KB:0.75", &err), 0);
    assert_int_equal(o.stat[0], 4);
    assert_int_equal(o.bucket[0], 4);
    assert_int_equal(o.stat[1], 1);
    assert_int_equal(o.bucket[1], 2);
    tl_summary s;
    memset(&s, 0, sizeof s);
    for (int b = 0; b < TL_N_BUCKETS; b++) {
        s.all[b].count = 10;
        s.all[b].mean = 100 + b;
        for (int k = 0; k < TL_N_PCTS; k++)
            s.all[b].p[k] = 10 * b + k;
    }
    /* 0.25 x p99.9 of "all" (40 + 3) + 0.75 x p50 of 10-50KB (20 + 0) */
    assert_true(fabs(tl_objective_eval(&o, &s, &err) - (0.25 * 43 + 0.75 * 20)) < 1e-12);
    s.all[2].count = 0;
    assert_true(isnan(tl_objective_eval(&o, &s, &err)));
    tu_check_err("empty bucket", &err, TL_EINVAL, "10-50KB", "no finished flows");
    static const struct {
        const char *spec, *needle;
    } bad[] = {
        {"p99@0-1KB:0.5,mean@all:0.4", "sum to 0.9"},
        {"p99@0-1KB:0.5,mean@all", "every term a weight"},
        {"p95@all", "unknown statistic 'p95'"},
        {"p99@small", "unknown size bucket 'small'"},
        {"p99", "STAT@BUCKET"},
        {"", "no term"},
        {"p99@all:1.5", "weight in (0, 1]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tl_err_clear(&err);
        assert_int_equal(tl_objective_parse(&o, bad[i].spec, &err), TL_EPARSE);
        tu_check_err(bad[i].spec, &err, TL_EPARSE, bad[i].needle, NULL);
        assert_non_null(strstr(err.path, "--objective"));
    }
}

/* A setting is applied in two passes under pktsim's rules: raising Kmin
 * above the Kmax in force passes once Kmax is raised too; a Kmin above the
 * new Kmax keeps the value in force. */
static void setting_apply(void **state)
{
    (void)state;
    tl_params p;
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_params_init(&p, &err), 0);
    const char *knobs[] = {"switch.kmin_bytes_per_gbps", "switch.kmax_bytes_per_gbps"};
    double old[2] = {3000, 3000}, want[2] = {9000, 12000}, now[2];
    assert_int_equal(tl_setting_apply(knobs, want, 2, tl_setting_set_params, &p, old, now), 0);
    assert_true(now[0] == 9000 && now[1] == 12000);
    assert_true(tl_params_get(&p, knobs[0]) == 9000);
    double bad[2] = {20000, 15000};
    assert_int_equal(tl_setting_apply(knobs, bad, 2, tl_setting_set_params, &p, now, now), 1);
    assert_true(now[0] == 9000 && now[1] == 15000);
    assert_true(tl_params_get(&p, knobs[0]) == 9000 && tl_params_get(&p, knobs[1]) == 15000);
    tl_params_fini(&p);
}

/* tune_setting.json is a preset file --preset-file reads back; a preset
 * file's mistakes name the file, line and JSON path. */
static void preset_file(void **state)
{
    (void)state;
    const char *knobs[] = {"dcqcn.ai_rate_bps", "switch.kmin_bytes_per_gbps", "dcqcn.hai_rate_bps",
                           "switch.pmax"};
    double v[] = {123456.5, 7000, 2.5e8, 0.375};
    char *path = tu_temp_path(".json");
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_setting_save(path, knobs, v, 4, &err), 0);
    tl_params p;
    assert_int_equal(tl_params_init(&p, &err), 0);
    assert_int_equal(tl_params_apply_preset_file(&p, "dcqcn", path, &err), 0);
    for (int i = 0; i < 4; i++)
        assert_true(tl_params_get(&p, knobs[i]) == v[i]);
    static const struct {
        const char *text, *needle1, *needle2;
    } bad[] = {
        {"{\"transport\": {\"dcqcn\": {\"ai_rate\": 5}}}", "unknown parameter 'dcqcn.ai_rate'",
         "transport.dcqcn.ai_rate"},
        {"{\"transport\": {\"cc\": \"hpcc\", \"dcqcn\": {}}}", "\"hpcc\"", "\"dcqcn\""},
        {"{\"transport\": {\"switch\": {\"pmax\": 3}}}", "switch.pmax", "transport.switch.pmax"},
        {"[1]", "expected a preset object", NULL},
        {"{\"dcqcn\": {}}", "unknown key 'dcqcn'", NULL},
        {"{\"transport\": {\"preset\": \"dcqcn.expert\"}}", "knob groups only", NULL},
        {"{\"transport\": {\"dcqcn\": {\"ai_rate_bps\": 5e6,}}}", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *f = tu_write_temp(bad[i].text, ".json");
        tl_err_clear(&err);
        int rc = tl_params_apply_preset_file(&p, "dcqcn", f, &err);
        if (rc == 0)
            fail_msg("accepted: %s", bad[i].text);
        tu_check_err(bad[i].text, &err, rc, bad[i].needle1, bad[i].needle2);
        assert_non_null(strstr(err.file, f));
        assert_true(err.line >= 1);
        unlink(f);
        free(f);
    }
    tl_params_fini(&p);
    unlink(path);
    free(path);
}

static void baseline_rules(void **state)
{
    (void)state;
    size_t n;
    const char *const *k = tl_baseline_knobs(TL_TUNE_ACC, &n);
    assert_int_equal(n, 3);
    assert_string_equal(k[0], "switch.kmin_bytes_per_gbps");
    double start[3] = {4000, 16000, 0.2}, next[3];
    tl_baseline_signals sig = {.o_tp = 0.3, .o_rtt = 0.3};
    tl_baseline_next(TL_TUNE_ACC, &sig, start, start, next); /* queueing: mark earlier */
    assert_true(next[0] < 4000 && next[1] < 16000 && next[2] > 0.2);
    sig.o_rtt = 0.95;
    sig.o_tp = 0.95; /* busy links, short queues: mark later */
    tl_baseline_next(TL_TUNE_ACC, &sig, start, start, next);
    assert_true(next[0] > 4000 && next[1] > 16000 && next[2] < 0.2);
    sig.o_tp = 0.3; /* idle: hold */
    tl_baseline_next(TL_TUNE_ACC, &sig, start, start, next);
    assert_memory_equal(next, start, sizeof start);
    k = tl_baseline_knobs(TL_TUNE_DCQCN_PLUS, &n);
    assert_string_equal(k[2], "dcqcn.rpg_time_reset_ps");
    double s2[3] = {5e6, 5e7, 3e8}, cur[3] = {1, 2, 3};
    sig.incast = 4;
    tl_baseline_next(TL_TUNE_DCQCN_PLUS, &sig, s2, cur, next);
    assert_true(next[0] == 5e6 / 4 && next[1] == 5e7 / 4 && next[2] == 3e8 * 4);
    sig.incast = 0;
    tl_baseline_next(TL_TUNE_DCQCN_PLUS, &sig, s2, cur, next);
    assert_memory_equal(next, s2, sizeof s2);
    assert_int_equal(tl_tune_scheme_find("naive"), TL_TUNE_PARALEON);
    assert_int_equal(tl_tune_scheme_find("dcqcn-plus"), TL_TUNE_DCQCN_PLUS);
    assert_int_equal(tl_tune_scheme_find("dcqcn+"), -1);
}

/* An incast of long flows into one host with small flows to the same host,
 * under DCQCN with ECN marking far too late (Kmin = Kmax = 30 KB per Gb/s,
 * 300 KB at 10 Gb/s): the small flows wait behind the incast's queue (p99
 * slowdown 54 by pktsim, 3.3 at 1 KB per Gb/s). */
static const char incast_json[] =
    "{\"seed\": 3, \"topology\": {\"type\": \"leaf_spine\", \"leaves\": 2, \"spines\": 1, "
    "\"hosts_per_leaf\": 4, \"host_link_bps\": \"10Gbps\", \"fabric_link_bps\": \"40Gbps\", "
    "\"link_delay_ns\": 1000}, \"workload\": {\"classes\": ["
    "{\"name\": \"big\", \"flows\": 24, \"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 400000}, "
    "\"spatial\": {\"type\": \"incast\", \"senders\": 6, \"destination\": 0}, "
    "\"load\": {\"max_link_load\": 0.5}}, "
    "{\"name\": \"small\", \"flows\": 300, \"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 800}, "
    "\"spatial\": {\"type\": \"incast\", \"senders\": 6, \"destination\": 0}, "
    "\"load\": {\"max_link_load\": 0.02}}]}, "
    "\"transport\": {\"cc\": \"dcqcn\", \"switch\": {\"buffer_bytes\": \"4MB\", "
    "\"kmin_bytes_per_gbps\": 30000, \"kmax_bytes_per_gbps\": 30000}}}";

static tl_offline *offline(const tl_world *w, const char *oracle, const char *const *knobs,
                           size_t n, int threads, tl_err *err)
{
    tl_offline_opts o;
    memset(&o, 0, sizeof o);
    o.oracle = tl_engine_find(oracle, err);
    o.knobs = knobs;
    o.n = n;
    assert_int_equal(tl_objective_parse(&o.obj, "p99@0-1KB", err), 0);
    tl_anneal_cfg_default(&o.anneal);
    o.anneal.cooling = 0.5; /* 90, 45, 22.5, 11.25: 4 temperatures x 3 */
    o.anneal.iters_per_temp = 3;
    o.anneal.step_frac = 3; /* 9 KB per Gb/s: the start is 10x Kmin's default */
    o.n_threads = threads;
    return tl_offline_create(w, &o, 11, err);
}

static void offline_moves_kmin(void **state)
{
    (void)state;
    tl_world w;
    tu_world_make(&w, incast_json);
    const char *knobs[] = {"switch.kmin_bytes_per_gbps", "switch.kmax_bytes_per_gbps"};
    tl_err err;
    tl_err_clear(&err);
    tl_offline *t = offline(&w, "parsimon", knobs, 2, 2, &err);
    if (!t)
        fail_msg("create: %s", err.msg);
    assert_int_equal(tl_offline_run(t, NULL, &err), 0);
    assert_int_equal(tl_offline_validate(t, NULL, &err), 0);
    double est[2], truth[2];
    const double *best = tl_offline_best(t, est, truth);
    /* the thresholds came down, and pktsim agrees the small flows gained */
    assert_true(best[0] < 30000);
    assert_true(est[1] < est[0]);
    assert_true(truth[1] < 0.9 * truth[0]);
    size_t nr, width;
    const double *rows = tl_offline_trajectory(t, &nr, &width);
    assert_int_equal(nr, 12);
    for (size_t r = 0; r < nr; r++) /* the best so far never rises */
        assert_true(r == 0 || rows[r * width + 5] <= rows[(r - 1) * width + 5]);
    /* the same search on one thread: the same trajectory */
    tl_offline *t1 = offline(&w, "parsimon", knobs, 2, 1, &err);
    assert_int_equal(tl_offline_run(t1, NULL, &err), 0);
    size_t n1, w1;
    const double *r1 = tl_offline_trajectory(t1, &n1, &w1);
    assert_int_equal(n1, nr);
    assert_memory_equal(r1, rows, nr * width * sizeof *rows);
    tl_offline_destroy(t1);
    tl_offline_destroy(t);
    tl_world_fini(&w);
}

/* flowsim models max-min sharing, no DCQCN: it cannot tune DCQCN's knobs,
 * and says so before any simulation. */
static void oracle_refuses_unread_knob(void **state)
{
    (void)state;
    tl_world w;
    tu_world_make(&w, incast_json);
    const char *knobs[] = {"dcqcn.ai_rate_bps"};
    tl_err err;
    tl_err_clear(&err);
    assert_null(offline(&w, "flowsim", knobs, 1, 1, &err));
    tu_check_err("flowsim", &err, TL_EINVAL, "cannot tune dcqcn.ai_rate_bps",
                 "flowsim does not read");
    tl_world_fini(&w);
}

/* Table I's knobs tuned offline by Parsimon on a Hadoop mix, for three
 * workload seeds: on pktsim's validation runs the best setting is never
 * worse than the start by more than the start's own spread across the
 * seeds (its coefficient of variation, printed). */
static void offline_never_worse_than_noise(void **state)
{
    (void)state;
    double start[3], best[3], mean = 0;
    for (int k = 0; k < 3; k++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"seed\": %d, \"topology\": {\"type\": \"leaf_spine\", \"leaves\": 2, "
                 "\"spines\": 2, \"hosts_per_leaf\": 4, \"host_link_bps\": \"100Gbps\", "
                 "\"fabric_link_bps\": \"100Gbps\", \"link_delay_ns\": 1000}, \"workload\": "
                 "{\"flows\": 800, \"classes\": [{\"sizes\": {\"cdf\": \"fb-hadoop\"}, "
                 "\"spatial\": {\"type\": \"uniform\"}, \"load\": {\"max_link_load\": "
                 "0.6}}]}, \"transport\": {\"cc\": \"dcqcn\"}}",
                 k + 1);
        tl_world w;
        tu_world_make(&w, json);
        tl_err err;
        tl_err_clear(&err);
        tl_offline *t = offline(&w, "parsimon", tl_tune_table1_knobs, tl_tune_n_table1_knobs, 2,
                                &err);
        if (!t)
            fail_msg("create: %s", err.msg);
        assert_int_equal(tl_offline_run(t, NULL, &err), 0);
        assert_int_equal(tl_offline_validate(t, NULL, &err), 0);
        double truth[2];
        tl_offline_best(t, NULL, truth);
        start[k] = truth[0];
        best[k] = truth[1];
        mean += truth[0] / 3;
        tl_offline_destroy(t);
        tl_world_fini(&w);
    }
    double var = 0;
    for (int k = 0; k < 3; k++)
        var += (start[k] - mean) * (start[k] - mean) / 2;
    double cv = sqrt(var) / mean;
    print_message("start objective %.3f %.3f %.3f (cv %.3f), best %.3f %.3f %.3f\n", start[0],
                  start[1], start[2], cv, best[0], best[1], best[2]);
    for (int k = 0; k < 3; k++)
        assert_true(best[k] <= start[k] * (1 + cv));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(objective),
        cmocka_unit_test(setting_apply),
        cmocka_unit_test(preset_file),
        cmocka_unit_test(baseline_rules),
        cmocka_unit_test(offline_moves_kmin),
        cmocka_unit_test(oracle_refuses_unread_knob),
        cmocka_unit_test(offline_never_worse_than_noise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
