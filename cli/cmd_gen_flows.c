/* tailor gen-flows SCENARIO -o FILE: generate the scenario's workload and
 * write it as tailor CSV or ns-3 HPCC flow.txt. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_gen_flows(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, "gen-flows", "o,format,seed,set,preset,threads,quiet,flow-count",
                       &o);
    if (rc)
        return rc;
    if (!o.out) {
        fprintf(stderr, "tailor gen-flows: -o FILE is required (use -o - for standard output)\n");
        return EXIT_INPUT;
    }
    const char *fmt = o.format ? o.format : "csv";
    if (strcmp(fmt, "csv") != 0 && strcmp(fmt, "ns3") != 0) {
        fprintf(stderr, "tailor gen-flows: --format expects csv or ns3, found '%s'\n", fmt);
        return EXIT_INPUT;
    }
    tl_err err;
    tl_err_clear(&err);
    cli_out out;
    if ((rc = cli_out_begin(&out, o.out, CLI_OUT_FILE, &err))) {
        cli_print_err("gen-flows", &err);
        return cli_exit_code(&err);
    }
    const char *path = cli_out_path(&out);
    tl_progress ps, *prog = cli_progress(&o, &ps);
    cli_world w;
    rc = cli_world_build(&o, &w, prog, &err);
    if (!rc)
        rc = strcmp(fmt, "csv") == 0 ? tl_flows_save_csv(&w.flows, path, &err)
                                     : tl_flows_save_ns3(&w.flows, path, 0, &err);
    if (!rc)
        rc = cli_out_commit(&out, &err);
    cli_progress_done(prog);
    if (rc) {
        cli_out_abort(&out);
        cli_print_err("gen-flows", &err);
        cli_world_fini(&w);
        return cli_exit_code(&err);
    }
    if (!o.is_quiet && strcmp(o.out, "-") != 0)
        fprintf(stderr, "wrote %zu flows to %s\n", w.flows.n, o.out);
    cli_world_fini(&w);
    return 0;
}
