/* The engine interface (tailor/engine.h): every registered engine runs a
 * tiny scenario through it and gives a result of the common shape (per-flow
 * results for all flows or none, a summary counting every flow, a run
 * record); per-flow engines agree with their own API byte for byte; unknown
 * names and bad option values are refused with a clear error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tailor/engine.h"
#include "tailor/flowsim.h"
#include "tailor/pktsim.h"
#include "testutil.h"

static const char *const tiny_json =
    "{\"seed\": 5, \"topology\": {\"type\": \"leaf_spine\", \"leaves\": 2, "
    "\"spines\": 2, "
    "\"hosts_per_leaf\": 2, \"host_link_bps\": \"10Gbps\", "
    "\"fabric_link_bps\": \"10Gbps\"}, "
    "\"workload\": {\"flows\": 40, \"calibration_samples\": 1000, \"classes\": "
    "[{\"sizes\": "
    "{\"dist\": \"exponential\", \"mean_bytes\": 20000}, \"spatial\": "
    "{\"type\": \"uniform\"}, "
    "\"load\": {\"max_link_load\": 0.4}}]}, \"transport\": {\"cc\": "
    "\"dctcp-rate\"}, "
    "\"engine\": {\"threads\": 1, \"paths\": 20}}";

static int file_exists(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

/* The files tl_engine_files names must all be in dir. */
static void check_files(const char *engine, const char *dir, const char *files)
{
    char list[256];
    snprintf(list, sizeof list, "%s", files);
    for (char *tok = strtok(list, ", "); tok; tok = strtok(NULL, ", "))
        if (!file_exists(dir, tok))
            fail_msg("%s: %s names %s, not written", engine, files, tok);
}

/* Every registered engine (m3 with and without its model) through the
 * interface: the common result's shape. */
static void every_engine_runs_tiny_scenario(void **state)
{
    tl_world w;
    tu_world_make(&w, tiny_json);
    assert_true(tl_engine_count() >= 4);
    for (size_t i = 0; i < tl_engine_count(); i++) {
        const tl_engine_ops *ops = tl_engine_at(i);
        const char *name = tl_engine_name(ops);
        tl_err err;
        tl_err_clear(&err);
        assert_ptr_equal(tl_engine_find(name, &err), ops);
        for (int is_no_model = 0; is_no_model < 2; is_no_model++) {
            tl_engine_opts o;
            tl_engine_opts_init(&o);
            o.is_no_model = is_no_model;
            if (is_no_model && !tl_engine_uses_model(ops, &w, NULL))
                continue; /* the second pass only for engines with a model */
            /* a queue trace: pktsim writes it, the others ignore it */
            char *dir = tu_temp_path("");
            assert_int_equal(mkdir(dir, 0777), 0);
            char trace[1200];
            snprintf(trace, sizeof trace, "%s/queues.csv", dir);
            o.trace_path = trace;
            o.trace_interval_us = 2;
            tl_engine *e = tl_engine_create(ops, &w, &o, &err);
            if (!e)
                fail_msg("%s create: %s", name, err.msg);
            /* no result before a run */
            tl_summary sum;
            assert_int_equal(tl_engine_summary(e, &sum, &err), TL_EINVAL);
            assert_null(tl_engine_flow_results(e));
            if (tl_engine_run(e, NULL, &err))
                fail_msg("%s run: %s", name, err.msg);
            assert_int_equal(tl_engine_run(e, NULL, &err), TL_EINVAL); /* once only */
            assert_int_equal(tl_engine_summary(e, &sum, &err), 0);
            assert_string_equal(sum.engine, name);
            assert_int_equal(sum.run.is_set, 0);
            /* every flow counted in the "all" bucket, finished or not */
            assert_int_equal(sum.all[TL_N_BUCKETS - 1].count + sum.n_unfinished, w.flows.n);
            assert_true(sum.all[TL_N_BUCKETS - 1].p[2] >= 1);
            const tl_flow_result *r = tl_engine_flow_results(e);
            if (r) {
                for (size_t f = 0; f < w.flows.n; f++) {
                    assert_true(r[f].ideal_ps > 0);
                    assert_true(r[f].fct_ps < 0 || r[f].fct_ps >= r[f].ideal_ps / 2);
                }
                assert_false(tl_engine_can_repredict(ops));
            }
            tl_summary_fini(&sum);
            tl_run_info run;
            tl_engine_run_info(e, &run);
            assert_int_equal(run.is_set, 1);
            assert_int_equal(run.n_flows, (int64_t)w.flows.n);
            char line[2048];
            tl_engine_report(e, line, sizeof line);
            assert_true(strncmp(line, name, strlen(name)) == 0);
            uint32_t crc;
            const char *model = tl_engine_model(e, &crc);
            assert_int_equal(model != NULL, !is_no_model && tl_engine_uses_model(ops, &w, NULL));
            /* the files it names, with summary.json's run record */
            if (tl_engine_save(e, dir, &sum, &err))
                fail_msg("%s save: %s", name, err.msg);
            assert_int_equal(sum.run.is_set, 1);
            check_files(name, dir, tl_engine_files(e));
            assert_int_equal(file_exists(dir, "fct.csv"), r != NULL);
            assert_int_equal(file_exists(dir, "queues.csv"), !strcmp(name, "pktsim"));
            tl_summary_fini(&sum);
            char path[1200];
            snprintf(path, sizeof path, "%s/summary.json", dir);
            assert_int_equal(tl_summary_load_json(&sum, path, &err), 0);
            assert_int_equal(sum.run.is_set, 1);
            tl_summary_fini(&sum);
            if (tl_engine_can_repredict(ops)) {
                assert_int_equal(tl_engine_repredict(e, &w.sc.params, w.sc.cc, &err), 0);
                assert_int_equal(tl_engine_summary(e, &sum, &err), 0);
                tl_summary_fini(&sum);
            } else {
                assert_int_equal(tl_engine_repredict(e, &w.sc.params, w.sc.cc, &err), TL_EINVAL);
            }
            tl_engine_destroy(e);
            static const char *const names[] = {"fct.csv",   "fct.txt",   "summary.json",
                                                "links.csv", "paths.csv", "queues.csv"};
            for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
                snprintf(path, sizeof path, "%s/%s", dir, names[k]);
                unlink(path);
            }
            rmdir(dir);
            free(dir);
        }
    }
    tl_world_fini(&w);
}

/* The interface adds nothing to a result: pktsim's and flowsim's per-flow
 * results through it equal their own APIs'. */
static void same_results_as_own_api(void **state)
{
    tl_world w;
    tu_world_make(&w, tiny_json);
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *ps =
        tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc, w.sc.seed, &err);
    assert_non_null(ps);
    assert_int_equal(tl_pktsim_run(ps, 0, NULL, &err), 0);
    tl_flowsim *fs = tl_flowsim_create(w.topo, w.routes, &w.flows, &w.sc.params, &err);
    assert_non_null(fs);
    assert_int_equal(tl_flowsim_run(fs, NULL, &err), 0);
    static const struct {
        const char *engine;
        int is_pktsim;
    } cases[] = {{"pktsim", 1}, {"flowsim", 0}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tl_engine *e = tl_engine_create(tl_engine_find(cases[c].engine, &err), &w, NULL, &err);
        assert_non_null(e);
        assert_int_equal(tl_engine_run(e, NULL, &err), 0);
        const tl_flow_result *want =
            cases[c].is_pktsim ? tl_pktsim_results(ps) : tl_flowsim_results(fs);
        if (memcmp(tl_engine_flow_results(e), want, w.flows.n * sizeof *want))
            fail_msg("%s: results through the interface differ", cases[c].engine);
        tl_engine_destroy(e);
    }
    tl_flowsim_destroy(fs);
    tl_pktsim_destroy(ps);
    tl_world_fini(&w);
}

/* Unknown engines and bad option values: refused, with what was expected. */
static void refuses_unknown_and_bad_options(void **state)
{
    tl_err err;
    tl_err_clear(&err);
    assert_null(tl_engine_find("ns3", &err));
    tu_check_err("unknown engine", &err, TL_EINVAL, "unknown engine 'ns3'",
                 "(available: pktsim, flowsim, parsimon, m3)");
    tl_err_clear(&err);
    assert_null(tl_engine_find("", &err));
    tu_check_err("empty engine name", &err, TL_EINVAL, "unknown engine ''", NULL);

    static const struct {
        const char *name, *value;
        int code;
        const char *needle;
    } bad[] = {
        {"paths", "0", TL_EPARSE, "--paths expects 1..10000000 paths, found '0'"},
        {"paths", "12x", TL_EPARSE, "found '12x'"},
        {"queue-trace-us", "-1", TL_EPARSE, "--queue-trace-us expects a number > 0"},
        {"queue-trace-max", "0", TL_EPARSE, "--queue-trace-max expects a size > 0"},
        {"frobnicate", "1", TL_EINVAL, "--frobnicate is no engine option"},
        {"cluster", "1", TL_EINVAL, "--cluster takes no value"},
        {"paths", NULL, TL_EINVAL, "--paths needs a value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tl_engine_opts o;
        tl_engine_opts_init(&o);
        tl_err_clear(&err);
        assert_int_equal(tl_engine_opts_set(&o, bad[i].name, bad[i].value, &err), bad[i].code);
        tu_check_err(bad[i].name, &err, bad[i].code, bad[i].needle, NULL);
    }
    tl_engine_opts o;
    tl_engine_opts_init(&o);
    assert_int_equal(o.trace_max_bytes, TL_ENGINE_TRACE_MAX_DEFAULT);
    assert_int_equal(tl_engine_opts_set(&o, "paths", "7", &err), 0);
    assert_int_equal(tl_engine_opts_set(&o, "cluster", NULL, &err), 0);
    assert_int_equal(tl_engine_opts_set(&o, "queue-trace-max", "1MB", &err), 0);
    assert_int_equal(o.n_paths, 7);
    assert_int_equal(o.is_cluster, 1);
    assert_int_equal(o.trace_max_bytes, 1000000);
    assert_int_equal(tl_engine_opt_kind("no-model"), 1);
    assert_int_equal(tl_engine_opt_kind("model"), 2);
    assert_int_equal(tl_engine_opt_kind("seed"), 0);
}

/* The registry and the scenario's engine names list the same engines. */
static void registry_matches_scenario_names(void **state)
{
    size_t n = 0;
    while (tl_engine_names[n])
        n++;
    assert_int_equal(n, tl_engine_count());
    for (size_t i = 0; i < n; i++)
        assert_string_equal(tl_engine_names[i], tl_engine_name(tl_engine_at(i)));
    assert_null(tl_engine_at(tl_engine_count()));
}

/* What a sweep learns before it runs: flowsim ignores a switch knob, m3's
 * model one it was not trained on, m3 without its model (flowsim on the
 * paths) every CC knob, pktsim none. */
static void knob_notes(void **state)
{
    tl_world w;
    tu_world_make(&w, tiny_json);
    tl_err err;
    char why[512];
    assert_int_equal(tl_engine_reads_knob(tl_engine_find("flowsim", &err), &w, NULL,
                                          "switch.kmin_bytes_per_gbps", "dctcp-rate", why,
                                          sizeof why),
                     0);
    assert_non_null(strstr(why, "flowsim does not read switch.kmin_bytes_per_gbps"));
    assert_int_equal(tl_engine_reads_knob(tl_engine_find("flowsim", &err), &w, NULL,
                                          "nic.mtu_bytes", "dctcp-rate", why, sizeof why),
                     1);
    assert_int_equal(tl_engine_reads_knob(tl_engine_find("pktsim", &err), &w, NULL,
                                          "switch.kmin_bytes_per_gbps", "dctcp-rate", why,
                                          sizeof why),
                     1);
    const tl_engine_ops *m3 = tl_engine_find("m3", &err);
    assert_int_equal(tl_engine_uses_model(m3, &w, NULL), 1);
    tl_engine_opts o;
    tl_engine_opts_init(&o);
    o.is_no_model = 1;
    assert_int_equal(tl_engine_uses_model(m3, &w, &o), 0);
    /* without its model m3 is flowsim on the paths: it reads no CC knob */
    assert_int_equal(tl_engine_reads_knob(m3, &w, &o, "switch.kmin_bytes_per_gbps", "dctcp-rate",
                                          why, sizeof why),
                     0);
    assert_non_null(strstr(why, "m3 --no-model is flowsim"));
    assert_int_equal(tl_engine_reads_knob(m3, &w, &o, "nic.mtu_bytes", "dctcp-rate", why,
                                          sizeof why),
                     1);
    o.is_no_model = 0;
    o.is_path_pktsim = 1;
    assert_int_equal(tl_engine_reads_knob(m3, &w, &o, "dcqcn.ai_rate_bps", "dcqcn", why,
                                          sizeof why),
                     1);
    assert_int_equal(tl_engine_uses_model(tl_engine_find("parsimon", &err), &w, NULL), 0);
    tl_world_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_engine_runs_tiny_scenario),
        cmocka_unit_test(same_results_as_own_api),
        cmocka_unit_test(refuses_unknown_and_bad_options),
        cmocka_unit_test(registry_matches_scenario_names),
        cmocka_unit_test(knob_notes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
