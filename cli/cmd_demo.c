/* tailor demo: the README's main job. It simulates the built-in default
 * scenario with pktsim (the ground truth; the estimators arrive later),
 * writes the results to out/demo/ and prints the slowdown per size bucket. */
#include <stdio.h>

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
    tl_err err;
    tl_err_clear(&err);
    tl_progress ps, *prog = cli_progress(&o, &ps);
    cli_world w;
    rc = cli_world_build(&o, &w, prog, &err);
    if (!rc)
        rc = inspect_print(&w, o.n_threads, &err);
    if (!rc) {
        printf("\nsimulating it with pktsim (about half a minute)...\n");
        fflush(stdout);
        rc = cli_run_engine(&w, "pktsim", dir, 0, prog, &err);
    }
    cli_progress_done(prog);
    if (rc) {
        cli_print_err("demo", &err);
        cli_world_fini(&w);
        return cli_exit_code(&err);
    }
    cli_world_fini(&w);
    return 0;
}
