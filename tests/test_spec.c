/* Scenario files: the default equals examples/default.json, every example
 * builds, --set reaches the registry, and every bad input is an error naming
 * file, line:column and JSON path. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/params.h"
#include "tailor/spec.h"
#include "testutil.h"

/* A valid scenario with one hole, "%s", where each case splices its fragment. */
#define BASE_TOPO "\"topology\": {\"type\": \"fabric\", \"pods\": 2, \"racks_per_pod\": 16, " \
                  "\"hosts_per_rack\": 8, \"planes\": 2, \"oversubscription\": 2}"

static void default_matches_example_file(void **state)
{
    json_t *a = json_loads(tl_scenario_default_json(), 0, NULL);
    json_t *b = json_load_file(TL_SOURCE_DIR "/examples/default.json", 0, NULL);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    tl_scenario sc;
    assert_int_equal(tl_scenario_parse(&sc, tl_scenario_default_json(), "default", NULL, NULL), 0);
    /* The default: 32-rack fabric at 2:1, matrix B, WebServer, sigma 2, 50%, 200k flows. */
    assert_int_equal(sc.topo.kind, TL_TOPO_FABRIC);
    assert_int_equal(sc.topo.fabric.pods * sc.topo.fabric.racks_per_pod, 32);
    assert_int_equal(sc.topo.fabric.spines_per_plane, 8);
    assert_int_equal(sc.workload.n_flows, 200000);
    assert_string_equal(sc.workload.classes[0].sizes.name, "webserver");
    assert_string_equal(sc.workload.classes[0].spatial.matrix.name, "b-32rack");
    assert_true(sc.workload.classes[0].sigma == 2);
    assert_true(sc.workload.classes[0].load_value == 0.5);
    /* DCTCP as the papers' ns-3 runs it (rate-based, from line rate): Parsimon
     * estimates it well, and window-based dctcp's slow start it does not
     * (docs/parsimon.md, "Limits"). */
    assert_string_equal(sc.cc, "dctcp-rate");
    tl_scenario_fini(&sc);
}

static void examples_parse_and_build(void **state)
{
    static const struct {
        const char *file;
        uint32_t hosts, links;
    } cases[] = {
        {"default.json", 256, 352},          {"fabric-6144.json", 6144, 8448},
        {"fattree-k8-permutation.json", 128, 384}, {"incast-16to1.json", 32, 40},
        {"parking-lot-4hop.json", 20, 24},   {"uno/two-dc.json", 256, 808},
        {"uno/mixed-incast.json", 256, 808}, {"uno/tm500.json", 256, 808},
        {"uno/mix40.json", 256, 808},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/examples/%s", TL_SOURCE_DIR, cases[i].file);
        tl_scenario sc;
        tl_err err;
        tl_err_clear(&err);
        if (tl_scenario_load(&sc, path, &err) != 0)
            fail_msg("%s: %s", cases[i].file, err.msg);
        tl_topo *t = tl_scenario_build_topo(&sc, &err);
        assert_non_null(t);
        if (tl_topo_n_hosts(t) != cases[i].hosts || tl_topo_n_links(t) != cases[i].links)
            fail_msg("%s: %u hosts, %u links", cases[i].file, tl_topo_n_hosts(t),
                     tl_topo_n_links(t));
        tl_topo_destroy(t);
        tl_scenario_fini(&sc);
    }
}

static void set_overrides_registry(void **state)
{
    tl_scenario sc;
    const char *text = "{" BASE_TOPO ", \"workload\": {\"flows\": 10, \"classes\": [{\"sizes\": "
                       "{\"cdf\": \"hadoop\"}, \"spatial\": {\"type\": \"uniform\"}, \"load\": "
                       "{\"max_link_load\": 0.3}}]}, \"transport\": {\"cc\": \"dctcp\", \"nic\": "
                       "{\"mtu_bytes\": \"4KB\"}}}";
    assert_int_equal(tl_scenario_parse(&sc, text, "t.json", NULL, NULL), 0);
    assert_true(tl_params_get(&sc.params, "nic.mtu_bytes") == 4000);
    assert_int_equal(tl_params_set_assign(&sc.params, "switch.buffer_bytes=1MiB", NULL), 0);
    assert_true(tl_params_get(&sc.params, "switch.buffer_bytes") == 1048576);
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_params_set_assign(&sc.params, "nic.mtu_byte=9000", &err), TL_EPARSE);
    tu_check_err("set typo", &err, TL_EPARSE, "unknown parameter 'nic.mtu_byte'",
                 "did you mean 'nic.mtu_bytes'");
    tl_err_clear(&err);
    assert_int_equal(tl_params_set_assign(&sc.params, "nic.mtu_bytes=10", &err), TL_ERANGE);
    tl_scenario_fini(&sc);
}

static void bad_inputs_name_the_location(void **state)
{
    char *cdf_bad = tu_write_temp("# bad\n0 0\n1000 50\n500 80\n2000 100\n", ".txt");
    char cdf_frag[1200];
    snprintf(cdf_frag, sizeof cdf_frag,
             "{" BASE_TOPO ",\n\"workload\": {\"flows\": 10, \"classes\": [{\"sizes\": {\"cdf\": "
             "\"%s\"}, \"spatial\": {\"type\": \"uniform\"}, \"load\": {\"max_link_load\": 0.3}}]}}",
             cdf_bad);
    static const char *const cls_ok =
        "\"sizes\": {\"cdf\": \"webserver\"}, \"spatial\": {\"type\": \"uniform\"}";
    char buf[10][1200];
    const struct {
        const char *name, *text;
        int code;
        const char *n1, *n2;
    } cases[] = {
        {"malformed JSON", "{\n  \"seed\": 1,\n  \"topology\": {,}\n}", TL_EPARSE, "t.json:3:",
         "malformed JSON"},
        {"unknown key", (snprintf(buf[0], 1200,
                                  "{" BASE_TOPO ",\n\"workload\": {\"flows\": 10, \"clases\": []}}"),
                         buf[0]),
         TL_EPARSE, "t.json:2:27: workload.clases", "did you mean 'classes'"},
        {"wrong type", "{\"seed\": \"one\"}", TL_EPARSE, "t.json:1:10: seed",
         "expected an integer >= 0, found a string"},
        {"negative load",
         (snprintf(buf[1], 1200,
                   "{" BASE_TOPO ",\n\"workload\": {\"flows\": 10, \"classes\": [{%s,\n"
                   "  \"load\": {\"max_link_load\": -0.2}}]}}",
                   cls_ok),
          buf[1]),
         TL_ERANGE, "t.json:3:29: workload.classes[0].load.max_link_load", "found -0.2"},
        {"load of 1",
         (snprintf(buf[2], 1200,
                   "{" BASE_TOPO ",\n\"workload\": {\"flows\": 10, \"classes\": [{%s,\n"
                   "  \"load\": {\"max_link_load\": 1}}]}}",
                   cls_ok),
          buf[2]),
         TL_ERANGE, "t.json:3:29: workload.classes[0].load.max_link_load", "in (0, 1)"},
        {"missing CDF file",
         (snprintf(buf[3], 1200,
                   "{" BASE_TOPO ",\n\"workload\": {\"flows\": 10, \"classes\": [{\"sizes\": "
                   "{\"cdf\": \"nowhere/sizes.txt\"}, \"spatial\": {\"type\": \"uniform\"}, "
                   "\"load\": {\"max_link_load\": 0.3}}]}}"),
          buf[3]),
         TL_EIO, "t.json:2:57: workload.classes[0].sizes.cdf", "nowhere/sizes.txt"},
        {"non-monotonic CDF", cdf_frag, TL_ERANGE, ":4:", "workload.classes[0].sizes.cdf"},
        {"unknown topology type",
         "{\"topology\": {\"type\": \"fattree\"}}", TL_EPARSE, "t.json:1:23: topology.type",
         "did you mean \"fat_tree\""},
        {"odd k", "{\"topology\": {\"type\": \"fat_tree\", \"k\": 7}}", TL_ERANGE, "topology.k",
         "even"},
        {"oversubscription not whole",
         "{\"topology\": {\"type\": \"fabric\", \"pods\": 2, \"racks_per_pod\": 16, "
         "\"hosts_per_rack\": 8, \"planes\": 2, \"oversubscription\": 3}}",
         TL_ERANGE, "topology.oversubscription", "whole number"},
        {"unknown cc",
         (snprintf(buf[4], 1200,
                   "{" BASE_TOPO ", \"workload\": {\"flows\": 1, \"classes\": [{%s, \"load\": "
                   "{\"max_link_load\": 0.3}}]},\n\"transport\": {\"cc\": \"dctpc\"}}",
                   cls_ok),
          buf[4]),
         TL_EPARSE, "t.json:2:21: transport.cc", "did you mean \"dctcp\""},
        {"knob out of range",
         (snprintf(buf[5], 1200,
                   "{" BASE_TOPO ", \"workload\": {\"flows\": 1, \"classes\": [{%s, \"load\": "
                   "{\"max_link_load\": 0.3}}]},\n\"transport\": {\"nic\": {\"mtu_bytes\": 10}}}",
                   cls_ok),
          buf[5]),
         TL_ERANGE, "t.json:2:36: transport.nic.mtu_bytes", "found 10"},
        {"no bound",
         (snprintf(buf[6], 1200,
                   "{" BASE_TOPO ", \"workload\": {\"classes\": [{%s, \"load\": "
                   "{\"max_link_load\": 0.3}}]}}",
                   cls_ok),
          buf[6]),
         TL_EPARSE, "workload", "needs a bound"},
        {"bad rate string",
         "{\"topology\": {\"type\": \"fabric\", \"pods\": 2, \"racks_per_pod\": 16, "
         "\"hosts_per_rack\": 8, \"planes\": 2, \"spines_per_plane\": 8, \"host_link_bps\": "
         "\"ten gigs\"}}",
         TL_EPARSE, "topology.host_link_bps", "like \"10Gbps\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tl_scenario sc;
        tl_err err;
        tl_err_clear(&err);
        int rc = tl_scenario_parse(&sc, cases[i].text, "t.json", NULL, &err);
        if (rc == 0)
            fail_msg("case %s: parsed", cases[i].name);
        tu_check_err(cases[i].name, &err, cases[i].code, cases[i].n1, cases[i].n2);
        tl_scenario_fini(&sc); /* safe after failure */
    }
    remove(cdf_bad);
    free(cdf_bad);
}

/* Parsimon's options: what a scenario sets is kept, what it leaves out
 * stays unset so that the engine's own defaults apply (cmd_run maps them). */
static void engine_options_unset_or_set(void **state)
{
    (void)state;
    tl_scenario sc;
    assert_int_equal(tl_scenario_parse(&sc, tl_scenario_default_json(), "default", NULL, NULL), 0);
    assert_true(isnan(sc.engine.bucket_ratio) && isnan(sc.engine.fat_factor));
    assert_true(isnan(sc.engine.max_from_bytes));
    assert_true(isnan(sc.engine.cluster_wmape) && isnan(sc.engine.cluster_load) &&
                isnan(sc.engine.cluster_scale));
    assert_int_equal(sc.engine.bucket_min, 0);
    assert_int_equal(sc.engine.norm_pkts, 0);
    assert_int_equal(sc.engine.is_pfc_by_channel, 0);
    assert_int_equal(sc.engine.is_share_sources, 0);
    assert_int_equal(sc.engine.is_passthrough, -1);
    assert_int_equal(sc.engine.is_residual, -1);
    tl_scenario_fini(&sc);
    const char *text = "{" BASE_TOPO ", \"workload\": {\"flows\": 10, \"classes\": [{\"sizes\": "
                       "{\"cdf\": \"hadoop\"}, \"spatial\": {\"type\": \"uniform\"}, \"load\": "
                       "{\"max_link_load\": 0.3}}]}, \"engine\": {\"name\": \"parsimon\", "
                       "\"bucket_ratio\": 1, \"cluster_load\": 0, \"residual\": false, "
                       "\"bucket_min\": 50, \"norm_pkts\": 5, \"pfc_by_channel\": true, "
                       "\"share_sources\": true, \"max_from_bytes\": 0}}";
    assert_int_equal(tl_scenario_parse(&sc, text, "t.json", NULL, NULL), 0);
    assert_true(sc.engine.bucket_ratio == 1 && sc.engine.cluster_load == 0);
    assert_int_equal(sc.engine.bucket_min, 50);
    assert_int_equal(sc.engine.norm_pkts, 5);
    assert_int_equal(sc.engine.is_pfc_by_channel, 1);
    assert_int_equal(sc.engine.is_share_sources, 1);
    assert_true(sc.engine.max_from_bytes == 0); /* set: every flow the sum */
    assert_int_equal(sc.engine.is_residual, 0);
    assert_int_equal(sc.engine.is_passthrough, -1);
    assert_true(isnan(sc.engine.fat_factor));
    tl_scenario_fini(&sc);
    /* packets are counted from 1: a normalization by 0 is refused */
    const char *zero = "{" BASE_TOPO ", \"workload\": {\"flows\": 10, \"classes\": [{\"sizes\": "
                       "{\"cdf\": \"hadoop\"}, \"spatial\": {\"type\": \"uniform\"}, \"load\": "
                       "{\"max_link_load\": 0.3}}]},\n\"engine\": {\"norm_pkts\": 0}}";
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_scenario_parse(&sc, zero, "t.json", NULL, &err), TL_ERANGE);
    tu_check_err("norm_pkts 0", &err, TL_ERANGE, "t.json:2:25: engine.norm_pkts", "found 0");
    tl_scenario_fini(&sc);
    /* a size is a whole number of bytes */
    const char *frac = "{" BASE_TOPO ", \"workload\": {\"flows\": 10, \"classes\": [{\"sizes\": "
                       "{\"cdf\": \"hadoop\"}, \"spatial\": {\"type\": \"uniform\"}, \"load\": "
                       "{\"max_link_load\": 0.3}}]},\n\"engine\": {\"max_from_bytes\": 1.5}}";
    tl_err_clear(&err);
    assert_int_equal(tl_scenario_parse(&sc, frac, "t.json", NULL, &err), TL_EPARSE);
    tu_check_err("max_from_bytes 1.5", &err, TL_EPARSE, "t.json:2:30: engine.max_from_bytes",
                 "expected an integer, found 1.5");
    tl_scenario_fini(&sc);
}

/* A failed link in the scenario is marked and avoided by routing. */
static void failed_links_from_spec(void **state)
{
    const char *text = "{\"topology\": {\"type\": \"fat_tree\", \"k\": 4, \"failed_links\": [20]},"
                       "\"workload\": {\"flows\": 5, \"classes\": [{\"sizes\": {\"dist\": "
                       "\"fixed\", \"mean_bytes\": 100}, \"spatial\": {\"type\": \"uniform\"}, "
                       "\"load\": {\"flows_per_s\": 1000}}]}}";
    tl_scenario sc;
    assert_int_equal(tl_scenario_parse(&sc, text, "t.json", NULL, NULL), 0);
    tl_topo *t = tl_scenario_build_topo(&sc, NULL);
    assert_non_null(t);
    assert_int_equal(tl_topo_link(t, 20)->is_failed, 1);
    assert_int_equal(tl_topo_link(t, 19)->is_failed, 0);
    tl_topo_destroy(t);
    tl_scenario_fini(&sc);
    text = "{\"topology\": {\"type\": \"fat_tree\", \"k\": 4, \"failed_links\": [999]},"
           "\"workload\": {\"flows\": 5, \"classes\": [{\"sizes\": {\"dist\": \"fixed\", "
           "\"mean_bytes\": 100}, \"spatial\": {\"type\": \"uniform\"}, \"load\": "
           "{\"flows_per_s\": 1000}}]}}";
    assert_int_equal(tl_scenario_parse(&sc, text, "t.json", NULL, NULL), 0);
    tl_err err;
    tl_err_clear(&err);
    assert_null(tl_scenario_build_topo(&sc, &err));
    tu_check_err("failed link id", &err, TL_ERANGE, "topology.failed_links[0]", "link 999");
    tl_scenario_fini(&sc);
}

/* The network knobs' typed handles name the knobs they index: every slot
 * is filled, and each name finds its own handle. */
static void net_knob_handles_match_names(void **state)
{
    static const struct {
        tl_net_knob k;
        const char *name;
    } some[] = {{TL_K_NIC_MTU_BYTES, "nic.mtu_bytes"},
                {TL_K_SW_BUFFER_BYTES, "switch.buffer_bytes"},
                {TL_K_NIC_RTO_LOSSLESS_PS, "nic.rto_lossless_ps"},
                {TL_K_SW_PFC_SHIFT, "switch.pfc_shift"}};
    for (size_t i = 0; i < sizeof some / sizeof *some; i++)
        assert_int_equal(tl_params_find(some[i].name), (int)some[i].k);
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    for (int k = 0; k < TL_K_N_NET; k++) {
        const tl_param_def *d = tl_params_def((size_t)k);
        assert_non_null(d->name);
        assert_true(!strncmp(d->name, "nic.", 4) || !strncmp(d->name, "switch.", 7));
        assert_int_equal(tl_params_find(d->name), k);
        assert_true(tl_knob(&p, (tl_net_knob)k) == d->def);
    }
    tl_params_fini(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_matches_example_file),
        cmocka_unit_test(net_knob_handles_match_names),
        cmocka_unit_test(examples_parse_and_build),
        cmocka_unit_test(set_overrides_registry),
        cmocka_unit_test(bad_inputs_name_the_location),
        cmocka_unit_test(failed_links_from_spec),
        cmocka_unit_test(engine_options_unset_or_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
