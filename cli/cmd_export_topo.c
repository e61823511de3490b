/* tailor export-topo SCENARIO -o FILE --format parsimon|ns3: write the
 * scenario's topology for other tools (Parsimon, the ns-3 HPCC fork). Neither
 * format has a failure flag, so failed links are written like the others. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_export_topo(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, "export-topo", "o,format,quiet", &o);
    if (rc)
        return rc;
    const char *fmt = o.format ? o.format : "parsimon";
    if (!o.out || (strcmp(fmt, "parsimon") != 0 && strcmp(fmt, "ns3") != 0)) {
        fprintf(stderr, "tailor export-topo: needs -o FILE and --format parsimon|ns3\n");
        return EXIT_INPUT;
    }
    tl_err err;
    tl_err_clear(&err);
    cli_out out;
    if ((rc = cli_out_begin(&out, o.out, CLI_OUT_FILE, &err))) {
        cli_print_err("export-topo", &err);
        return cli_exit_code(&err);
    }
    const char *path = cli_out_path(&out);
    tl_scenario sc;
    tl_topo *t = NULL;
    rc = cli_load_scenario(&o, &sc, &err);
    if (!rc && !(t = tl_scenario_build_topo(&sc, &err)))
        rc = err.code;
    if (!rc)
        rc = strcmp(fmt, "parsimon") == 0 ? tl_topo_save_parsimon(t, path, &err)
                                          : tl_topo_save_ns3(t, path, &err);
    if (!rc)
        rc = cli_out_commit(&out, &err);
    if (rc) {
        cli_out_abort(&out);
        cli_print_err("export-topo", &err);
    }
    tl_topo_destroy(t);
    tl_scenario_fini(&sc);
    return rc ? cli_exit_code(&err) : 0;
}
