/* tailor demo: the README's main job. It estimates the built-in default
 * scenario with Parsimon (out/demo/parsimon/), simulates it with pktsim, the
 * ground truth (or reuses an earlier pktsim run of the very same scenario from
 * out/cache/, keyed by a hash of the scenario), and compares the two
 * (out/demo/: compare.json, compare.png and a table on stdout). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "tailor/time.h"
#include "tailor/pktsim.h"
#include "tailor/rng.h"

int inspect_print(const cli_world *w, int is_from_file, int n_threads, tl_err *err);
int cmd_compare(int argc, char **argv);

/* What determines a pktsim result: the scenario text, the seed, tailor's
 * version, pktsim's results revision (TL_PKTSIM_RESULTS_REV) and the
 * summary's format (2: with its run record, which compare checks). */
static uint64_t scenario_key(uint64_t seed)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *p = tl_scenario_default_json(); *p; p++)
        h = (h ^ (uint8_t)*p) * 1099511628211ull;
    for (const char *p = TL_VERSION_STRING; *p; p++)
        h = (h ^ (uint8_t)*p) * 1099511628211ull;
    h = (h ^ TL_PKTSIM_RESULTS_REV) * 1099511628211ull;
    h = (h ^ 2u) * 1099511628211ull; /* summary.json format */
    return tl_mix64(h ^ tl_mix64(seed));
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

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
    char est_dir[1100], ref_dir[1100], probe[1200], shown[1200];
    snprintf(est_dir, sizeof est_dir, "%s/parsimon", dir);
    tl_err err;
    tl_err_clear(&err);
    cli_out out, cache = {0};
    if ((rc = cli_out_begin(&out, dir, CLI_OUT_DIR, &err))) {
        cli_print_err("demo", &err);
        return cli_exit_code(&err);
    }
    tl_progress ps, *prog = cli_progress(&o, &ps);
    cli_world w;
    rc = cli_world_build(&o, &w, prog, &err);
    if (!rc)
        rc = inspect_print(&w, 0, o.n_threads, &err);
    snprintf(ref_dir, sizeof ref_dir, "out/cache/pktsim-%016llx",
             (unsigned long long)scenario_key(w.sc.seed));
    if (!rc) {
        printf("\nestimating it with Parsimon (link-level simulations on %s)...\n",
               w.sc.engine.n_threads == 1 ? "1 thread" : "all cores");
        fflush(stdout);
        double t0 = tl_wall_s();
        snprintf(shown, sizeof shown, "%s/parsimon", cli_out_path(&out));
        if (mkdir(shown, 0777) != 0)
            rc = tl_err_at(&err, TL_EIO, shown, 0, 0, NULL, "cannot create the folder: %s",
                           strerror(errno));
        if (!rc)
            rc = cli_run_engine(&w, "parsimon", shown, est_dir, NULL, prog, &err);
        if (!rc)
            printf("Parsimon took %.1f s\n", tl_wall_s() - t0);
    }
    snprintf(probe, sizeof probe, "%s/fct.csv", ref_dir);
    int is_cached = exists(probe);
    snprintf(probe, sizeof probe, "%s/summary.json", ref_dir);
    is_cached = is_cached && exists(probe);
    if (!rc && is_cached) {
        printf("\nthe ground truth: reusing the pktsim run of this scenario in %s/\n", ref_dir);
    } else if (!rc) {
        printf("\nthe ground truth: simulating it with pktsim (about 25 s on one core; kept in "
               "%s/ for the next time)...\n",
               ref_dir);
        fflush(stdout);
        double t0 = tl_wall_s();
        rc = cli_out_begin(&cache, ref_dir, CLI_OUT_DIR, &err);
        if (!rc)
            rc = cli_run_engine(&w, "pktsim", cli_out_path(&cache), ref_dir, NULL, prog, &err);
        if (!rc)
            rc = cli_out_commit(&cache, &err);
        if (!rc)
            printf("pktsim took %.1f s\n", tl_wall_s() - t0);
    }
    /* The folder holds Parsimon's run now; compare adds its files to it. */
    if (!rc)
        rc = cli_out_commit(&out, &err);
    cli_progress_done(prog);
    cli_world_fini(&w);
    if (rc) {
        cli_out_abort(&cache);
        cli_out_abort(&out);
        cli_print_err("demo", &err);
        return cli_exit_code(&err);
    }
    printf("\nParsimon against pktsim:\n");
    fflush(stdout);
    char *cargv[] = {"compare", ref_dir, est_dir, "-o", (char *)dir, o.is_quiet ? "--quiet" : NULL,
                     NULL};
    return cmd_compare(o.is_quiet ? 6 : 5, cargv);
}
