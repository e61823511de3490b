/* tailor demo: the README's main job. Until an engine lands it generates the
 * default scenario's workload, writes it to out/demo/flows.csv and prints
 * what `tailor inspect` shows for it. */
#include <stdio.h>
#include <sys/stat.h>

#include "cli.h"

int inspect_print(const cli_world *w, int n_threads, tl_err *err);

int cmd_demo(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, "demo", "o,seed,threads,quiet", &o);
    if (rc)
        return rc;
    if (o.scenario) {
        fprintf(stderr, "tailor demo: takes no scenario (it runs the built-in default)\n");
        return EXIT_INPUT;
    }
    const char *dir = o.out ? o.out : "out/demo";
    char path[1200];
    mkdir("out", 0777);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/flows.csv", dir);
    tl_err err;
    tl_err_clear(&err);
    tl_progress ps, *prog = cli_progress(&o, &ps);
    cli_world w;
    rc = cli_world_build(&o, &w, prog, &err);
    cli_progress_done(prog);
    if (!rc)
        rc = tl_flows_save_csv(&w.flows, path, &err);
    if (!rc) {
        printf("generated the default scenario's workload: %s\n\n", path);
        rc = inspect_print(&w, o.n_threads, &err);
    }
    if (rc) {
        cli_print_err("demo", &err);
        cli_world_fini(&w);
        return cli_exit_code(&err);
    }
    cli_world_fini(&w);
    return 0;
}
