/* Option parsing, scenario loading, errors and progress for every subcommand. */
#include "cli.h"
#include "tailor/cc.h"
#include "tailor/m3.h"
#include "tailor/pktsim.h"
#include "tailor/time.h"
#include "tailor/units.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int allowed_opt(const char *allowed, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = allowed; (p = strstr(p, name)); p += n)
        if ((p == allowed || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

int cli_parse(int argc, char **argv, const char *cmd, const char *allowed, cli_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = -1;
    tl_engine_opts_init(&o->eng);
    o->eng.dist = cli_dist();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *name = NULL;
        if (strcmp(a, "-o") == 0)
            name = "o";
        else if (strncmp(a, "--", 2) == 0)
            name = a + 2;
        if (!name) {
            if (a[0] == '-' && a[1]) {
                fprintf(stderr, "tailor %s: unknown option '%s' (see 'tailor help %s')\n", cmd, a,
                        cmd);
                return EXIT_INPUT;
            }
            if (o->scenario) {
                fprintf(stderr, "tailor %s: one scenario file expected, found '%s' and '%s'\n",
                        cmd, o->scenario, a);
                return EXIT_INPUT;
            }
            o->scenario = a;
            continue;
        }
        /* every command takes --max-memory: any input may be too large */
        if (!allowed_opt(allowed, name) && strcmp(name, "max-memory") != 0) {
            fprintf(stderr, "tailor %s: unknown option '%s' (see 'tailor help %s')\n", cmd, a, cmd);
            return EXIT_INPUT;
        }
        int *flag = strcmp(name, "quiet") == 0            ? &o->is_quiet
                    : strcmp(name, "cuts") == 0           ? &o->is_cuts
                    : strcmp(name, "quick") == 0          ? &o->is_quick
                    : strcmp(name, "spread-servers") == 0 ? &o->is_spread
                    : strcmp(name, "theorem2") == 0       ? &o->is_theorem2
                    : strcmp(name, "force") == 0          ? &o->is_force
                                                          : NULL;
        if (flag) {
            *flag = 1;
            continue;
        }
        tl_err err;
        tl_err_clear(&err);
        int eng_kind = tl_engine_opt_kind(name); /* the engines' own options */
        if (eng_kind == 1) {
            tl_engine_opts_set(&o->eng, name, NULL, NULL);
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "tailor %s: option '%s' needs a value\n", cmd, a);
            return EXIT_INPUT;
        }
        const char *v = argv[++i];
        char *end;
        if (eng_kind == 2) {
            if (tl_engine_opts_set(&o->eng, name, v, &err)) {
                fprintf(stderr, "tailor %s: %s\n", cmd, err.msg);
                return EXIT_INPUT;
            }
        } else if (strcmp(name, "o") == 0) {
            o->out = v;
        } else if (strcmp(name, "format") == 0) {
            o->format = v;
        } else if (strcmp(name, "flows") == 0) {
            o->flows = v;
        } else if (strcmp(name, "cc") == 0) {
            o->cc = v;
        } else if (strcmp(name, "preset") == 0) {
            o->preset = v;
        } else if (strcmp(name, "preset-file") == 0) {
            o->preset_file = v;
        } else if (strcmp(name, "oracle") == 0) {
            o->oracle = v;
        } else if (strcmp(name, "objective") == 0) {
            o->objective = v;
        } else if (strcmp(name, "knobs") == 0) {
            o->knobs = v;
        } else if (strcmp(name, "scheme") == 0) {
            o->scheme = v;
        } else if (strcmp(name, "engine") == 0) {
            o->engine = v;
        } else if (strcmp(name, "tm") == 0) {
            o->tm = v;
        } else if (strcmp(name, "method") == 0) {
            o->method = v;
        } else if (strcmp(name, "save-tm") == 0) {
            o->save_tm = v;
        } else if (strcmp(name, "lp-solver") == 0) {
            o->lp_solver = v;
        } else if (strcmp(name, "time-limit") == 0) {
            double x = strtod(v, &end);
            if (*end || end == v || !(x > 0 && x <= 1e9)) {
                fprintf(stderr, "tailor %s: --time-limit expects seconds > 0, found '%s'\n", cmd, v);
                return EXIT_INPUT;
            }
            o->time_limit = x;
        } else if (strcmp(name, "eps") == 0 || strcmp(name, "skew") == 0) {
            double x = strtod(v, &end);
            if (*end || end == v || !(x > 0 && x <= 1)) {
                fprintf(stderr, "tailor %s: --%s expects a number in (0, 1], found '%s'\n", cmd,
                        name, v);
                return EXIT_INPUT;
            }
            *(strcmp(name, "eps") == 0 ? &o->eps : &o->skew) = x;
        } else if (strcmp(name, "relative") == 0) {
            long x = strtol(v, &end, 10);
            if (*end || end == v || x < 2 || x > 1000) {
                fprintf(stderr, "tailor %s: --relative expects 2..1000 random instances, found '%s'\n",
                        cmd, v);
                return EXIT_INPUT;
            }
            o->relative = (uint32_t)x;
        } else if (strcmp(name, "max-memory") == 0) {
            uint64_t b;
            if (tl_units_parse_bytes(v, &b) != 0 || b == 0) {
                fprintf(stderr, "tailor %s: --%s expects a size > 0 such as 512MB or 4GB, found "
                                "'%s'\n", cmd, name, v);
                return EXIT_INPUT;
            }
            o->max_memory = b;
            /* the library reads its memory limit from the environment
             * (tailor/memlimit.h): one setting for the whole process */
            setenv("TAILOR_MAX_MEMORY", v, 1);
        } else if (strcmp(name, "flow-count") == 0) {
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            if (*end || end == v || v[0] == '-' || errno == ERANGE || x < 1 || x > 1000000000ull) {
                fprintf(stderr, "tailor %s: --flow-count expects 1..1000000000 flows, found '%s'\n",
                        cmd, v);
                return EXIT_INPUT;
            }
            o->flow_count = x;
        } else if (strcmp(name, "set") == 0) {
            if (o->n_sets == 64) {
                fprintf(stderr, "tailor %s: at most 64 --set options\n", cmd);
                return EXIT_INPUT;
            }
            o->sets[o->n_sets++] = v;
        } else if (strcmp(name, "seed") == 0) {
            errno = 0;
            long long s = strtoll(v, &end, 10);
            if (*end || end == v || s < 0 || errno == ERANGE) {
                fprintf(stderr, "tailor %s: --seed expects an integer in 0..%lld, found '%s'\n",
                        cmd, LLONG_MAX, v);
                return EXIT_INPUT;
            }
            o->seed = s;
        } else if (strcmp(name, "threads") == 0) {
            long t = strtol(v, &end, 10);
            if (*end || end == v || t < 0 || t > 1024) {
                fprintf(stderr, "tailor %s: --threads expects 0..1024 (0 = all cores), found '%s'\n",
                        cmd, v);
                return EXIT_INPUT;
            }
            o->n_threads = (int)t;
        }
    }
    return 0;
}

int cli_load_scenario(const cli_opts *o, tl_scenario *sc, tl_err *err)
{
    int rc = o->scenario ? tl_scenario_load(sc, o->scenario, err)
                         : tl_scenario_parse(sc, tl_scenario_default_json(), "<built-in default>",
                                             NULL, err);
    if (rc)
        return rc;
    if (o->seed >= 0)
        sc->seed = (uint64_t)o->seed;
    if (o->n_threads > 0)
        sc->engine.n_threads = o->n_threads;
    if (o->cc) { /* another CC, from its own default preset, over the scenario's knobs */
        const tl_cc_desc *cc = tl_cc_lookup(o->cc);
        if (!cc) {
            char known[256];
            tl_cc_names(known, sizeof known, ", ", ", ", 0);
            rc = tl_err_set(err, TL_EPARSE, "unknown congestion control '%s'; known: %s", o->cc,
                            known);
        }
        else if (cc->default_preset)
            rc = tl_params_apply_preset(&sc->params, cc->default_preset, err);
        if (rc) {
            snprintf(err->path, sizeof err->path, "--cc %s", o->cc);
            tl_scenario_fini(sc);
            return rc;
        }
        snprintf(sc->cc, sizeof sc->cc, "%s", o->cc);
    }
    if (o->preset && (rc = tl_params_apply_preset(&sc->params, o->preset, err))) {
        snprintf(err->path, sizeof err->path, "--preset %s", o->preset);
        tl_scenario_fini(sc);
        return rc;
    }
    if (o->preset_file &&
        (rc = tl_params_apply_preset_file(&sc->params, sc->cc, o->preset_file, err))) {
        tl_scenario_fini(sc);
        return rc;
    }
    for (int i = 0; i < o->n_sets; i++)
        if ((rc = tl_params_set_assign(&sc->params, o->sets[i], err))) {
            snprintf(err->path, sizeof err->path, "--set %s", o->sets[i]);
            tl_scenario_fini(sc);
            return rc;
        }
    return 0;
}

int cli_exit_code(const tl_err *err)
{
    switch (err->code) {
    case TL_EPARSE:
    case TL_ERANGE:
    case TL_EINVAL:
        return EXIT_INPUT;
    case TL_EIO:
        return err->file[0] ? EXIT_INPUT : EXIT_RUN;
    default:
        return EXIT_RUN;
    }
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0. */
static int utf8_len(const unsigned char *s)
{
    int n = s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* Input quoted in a message may be anything (a binary file's first line):
 * control bytes and invalid UTF-8 are printed as \xNN, so the terminal shows
 * the message and nothing else. */
static void put_escaped(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = *p >= 0x80 ? utf8_len(p) : (*p >= 0x20 && *p != 0x7f);
        if (n) {
            fwrite(p, 1, (size_t)n, f);
            p += n;
        } else {
            fprintf(f, "\\x%02x", *p++);
        }
    }
}

void cli_print_err(const char *cmd, const tl_err *err)
{
    cli_ranks_note_err(err);
    char buf[1400];
    fprintf(stderr, "tailor %s: error: ", cmd);
    put_escaped(stderr, tl_err_format(err, buf, sizeof buf));
    fputc('\n', stderr);
}

/* ---- progress ---- */

typedef struct progress_state {
    int is_tty;
    double t0, last_print;
    char phase[32];
    int printed;
} progress_state;

static void progress_fn(void *ctx, const tl_progress_info *in)
{
    progress_state *st = ctx;
    double t = tl_wall_s();
    if (strcmp(in->phase, st->phase) != 0) {
        snprintf(st->phase, sizeof st->phase, "%s", in->phase);
        st->t0 = t;
        st->last_print = 0;
    }
    double interval = st->is_tty ? 0.2 : 5.0;
    int is_final = in->total > 0 && in->done >= in->total;
    if (!is_final && t - st->last_print < interval)
        return;
    if (t - st->t0 < interval && !st->printed)
        return; /* quick phases stay silent */
    st->last_print = t;
    double el = t - st->t0, rate = el > 0 ? in->done / el : 0;
    double eta = rate > 0 && in->total > in->done ? (in->total - in->done) / rate : 0;
    char sim[96] = "";
    if (in->sim_time_s >= 0)
        snprintf(sim, sizeof sim, "  sim %.6f s  %.3g events/s", in->sim_time_s,
                 el > 0 && in->n_events >= 0 ? in->n_events / el : 0);
    fprintf(stderr, "%s[%s] %.0f/%.0f %s  %.3g %s/s%s  elapsed %.1fs  ETA %.1fs%s",
            st->is_tty ? "\r" : "", in->phase, in->done, in->total, in->unit, rate, in->unit, sim,
            el, eta, st->is_tty ? "   " : "\n");
    if (st->is_tty && is_final)
        fputc('\n', stderr);
    st->printed = !is_final;
}

tl_progress *cli_progress(const cli_opts *o, tl_progress *storage)
{
    if (o->is_quiet)
        return NULL;
    progress_state *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->is_tty = isatty(STDERR_FILENO);
    storage->fn = progress_fn;
    storage->ctx = st;
    return storage;
}

void cli_progress_done(tl_progress *p)
{
    if (!p)
        return;
    progress_state *st = p->ctx;
    if (st && st->is_tty && st->printed)
        fputc('\n', stderr);
    free(st);
    p->ctx = NULL;
}

/* ---- world ---- */

int cli_world_build(const cli_opts *o, cli_world *w, tl_progress *prog, tl_err *err)
{
    memset(w, 0, sizeof *w);
    tl_flows_init(&w->flows);
    int rc = cli_load_scenario(o, &w->sc, err);
    if (rc)
        return rc;
    if (!(w->topo = tl_scenario_build_topo(&w->sc, err)))
        return err->code;
    if (!(w->routes = tl_routes_create(w->topo, w->sc.seed, err)))
        return err->code;
    if (o->flows) {
        rc = tl_flows_load_any(&w->flows, o->flows, w->topo, err);
        if (!rc && o->flow_count && o->flow_count < w->flows.n)
            w->flows.n = o->flow_count; /* the first N by start time */
        return rc;
    }
    if (o->flow_count) { /* the workload's own count bound, lowered to N */
        tl_workload_spec *ws = &w->sc.workload;
        if (!ws->n_flows || ws->n_flows > o->flow_count)
            ws->n_flows = o->flow_count;
        for (uint32_t c = 0; c < ws->n_classes; c++)
            if (ws->classes[c].n_flows > o->flow_count)
                ws->classes[c].n_flows = o->flow_count;
    }
    int n_threads = o->n_threads ? o->n_threads : w->sc.engine.n_threads;
    rc = tl_workload_generate(&w->sc.workload, w->topo, w->routes, w->sc.seed, n_threads,
                              &w->flows, prog, err);
    if (rc && err->path[0] && !err->file[0]) /* a JSON path of the scenario: name its file */
        snprintf(err->file, sizeof err->file, "%s", o->scenario ? o->scenario : "<built-in default>");
    return rc;
}

int cli_check_engine(const char *engine, const char *cc, tl_err *err)
{
    if (!tl_engine_find(engine, err))
        return err->code;
    const tl_cc_desc *d = tl_cc_lookup(cc);
    if (d && d->ops)
        return 0;
    char known[256];
    tl_cc_names(known, sizeof known, ", ", ", ", 1);
    return tl_err_set(err, TL_EINVAL,
                      "no engine implements congestion control '%s' yet (pktsim, the truth every "
                      "engine is checked against, implements %s); choose one with --cc",
                      cc, known);
}

/* Whether knob name acts under cc at all: switch and NIC knobs always,
 * CC knobs under a CC whose registry groups hold theirs
 * (tl_cc_desc.groups: "dctcp_rate.window_bytes" under dctcp-rate only). */
static int knob_applies(const char *name, const tl_cc_desc *cc)
{
    size_t n = strcspn(name, ".");
    if ((n == 6 && !strncmp(name, "switch", 6)) || (n == 3 && !strncmp(name, "nic", 3)))
        return 1;
    return cc && tl_cc_reads_group(cc, name);
}

const tl_fabric_ref *cli_fabric(const cli_world *w, tl_fabric_ref *buf)
{
    uint32_t mtu = (uint32_t)tl_knob(&w->sc.params, TL_K_NIC_MTU_BYTES);
    return tl_fabric_ref_of(w->topo, mtu, buf, NULL) ? NULL : buf;
}

/* why, as who's warning, with what it means for an m3 estimate */
static void warn_untrained(const char *who, const char *why)
{
    fprintf(stderr,
            "%s: warning: %s: the model extrapolates there, where its accuracy was not measured "
            "(docs/m3.md, \"Known limits\"); --engine parsimon or pktsim simulates it\n",
            who, why);
}

int cli_m3_warn_untrained(const tl_params *p, size_t i, const char *cc, const tl_fabric_ref *fab,
                          const char *who)
{
    char why[512];
    if (!tl_m3_knob_untrained(p, i, cc, fab, why, sizeof why))
        return 0;
    warn_untrained(who, why);
    return 1;
}

int cli_m3_warn_joint(const tl_params *p, const char *cc, const char *who)
{
    char why[512];
    if (!tl_m3_knobs_untrained_joint(p, cc, why, sizeof why))
        return 0;
    warn_untrained(who, why);
    return 1;
}

void cli_m3_warn_model(const char *model, const tl_params *p, const char *who)
{
    char why[1024];
    if (model && tl_m3_model_untrained(model, p, why, sizeof why))
        warn_untrained(who, why);
}

void cli_m3_warn_knobs(const tl_params *p, const char *cc, const tl_fabric_ref *fab,
                       const int *skip, int n_skip, const char *who)
{
    tl_params base;
    if (tl_params_init(&base, NULL))
        return;
    const tl_cc_desc *d = tl_cc_lookup(cc);
    const char *preset = d ? d->default_preset : NULL;
    if (!preset || !tl_params_apply_preset(&base, preset, NULL))
        for (size_t i = 0; i < tl_params_count() && i < p->n; i++) {
            int is_skipped = 0;
            for (int k = 0; k < n_skip; k++)
                is_skipped |= skip[k] == (int)i;
            const char *name = tl_params_def(i)->name;
            if (is_skipped || !knob_applies(name, d))
                continue;
            /* a default can be untrained too: the buffer a fast fabric sizes */
            if (tl_m3_knob_is_read(name, cc)) {
                cli_m3_warn_untrained(p, i, cc, fab, who);
                continue;
            }
            if (p->v[i] == base.v[i])
                continue;
            fprintf(stderr,
                    "%s: warning: m3's model does not read %s, %g here and %g (%s's default) "
                    "in its training data, so the estimate is that of the default (docs/m3.md, "
                    "\"Known limits\"); --engine parsimon or pktsim simulates it\n",
                    who, name, p->v[i], base.v[i], cc);
        }
    tl_params_fini(&base);
}

void cli_world_fini(cli_world *w) { tl_world_fini(w); }
