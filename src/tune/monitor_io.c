/* The monitor's files (docs/paraleon.md "Files") and its accuracy figure. */
#include <math.h>
#include <stdio.h>

#include "monitor_int.h"
#include "tailor/fileio.h"

/* A number, or an empty field for NAN (no figure that interval). */
static void put(FILE *f, const char *fmt, double v)
{
    if (!isnan(v))
        fprintf(f, fmt, v);
}

static double accuracy(double est, double truth)
{
    return isnan(est) || isnan(truth) ? NAN : 1 - fabs(est - truth);
}

typedef void (*row_fn)(FILE *f, const tl_monitor_row *r);

static void fsd_row(FILE *f, const tl_monitor_row *r)
{
    double v[] = {r->p_paraleon, r->p_naive, r->p_netflow, r->p_true,
                  accuracy(r->p_paraleon, r->p_true), accuracy(r->p_naive, r->p_true),
                  accuracy(r->p_netflow, r->p_true)};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        fputc(',', f);
        put(f, "%.6f", v[i]);
    }
    fprintf(f, ",%llu,%llu\n", (unsigned long long)r->n_flows, (unsigned long long)r->n_true);
}

static void states_row(FILE *f, const tl_monitor_row *r)
{
    fprintf(f, ",%llu,%llu,%llu,%.4f,%.1f\n", (unsigned long long)r->n_e,
            (unsigned long long)r->n_pe, (unsigned long long)r->n_m, r->sum_w, r->light_mice);
}

static void metrics_row(FILE *f, const tl_monitor_row *r)
{
    double v[] = {r->o_tp, r->o_rtt, r->o_pfc, r->u};
    for (size_t i = 0; i < 4; i++) {
        fputc(',', f);
        put(f, "%.6f", v[i]);
    }
    fprintf(f, ",%u,%u\n", r->n_active_hosts, r->n_active_pairs);
}

static void trigger_row(FILE *f, const tl_monitor_row *r)
{
    fprintf(f, ",%.6f,%.6f,%.6f\n", r->kl, r->ref_p, r->p_paraleon);
}

static int save_csv(const tl_monitor *m, const char *dir, const char *name, const char *header,
                    row_fn fn, int is_triggers_only, tl_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (!f)
        return err->code;
    fprintf(f, "t_ms,%s\n", header);
    for (size_t i = 0; i < m->n_rows; i++) {
        const tl_monitor_row *r = &m->rows[i];
        if (is_triggers_only && !r->is_trigger)
            continue;
        fprintf(f, "%.3f", (double)r->t_ps * 1e-9);
        fn(f, r);
    }
    return tl_afile_commit(&af, err);
}

/* monitor.gp: the utility and its terms over time, and the elephant share
 * each scheme saw beside the truth. Files named relative to its folder, where
 * gnuplot runs; the image is monitor.png or the script's first argument. */
static int save_gp(const char *dir, tl_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/monitor.gp", dir);
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (!f)
        return err->code;
    fprintf(f,
            "# gnuplot script written by tailor run --monitor (docs/paraleon.md)\n"
            "set terminal pngcairo size 1200,900 font ',10' noenhanced\n"
            "set output (ARGC > 0 ? ARG1 : 'monitor.png')\n"
            "set datafile separator ','\n"
            "set datafile missing ''\n"
            "set multiplot layout 2,1\n"
            "set grid; set key outside right; set xlabel 'simulated time (ms)'\n"
            "set title 'Runtime metrics, paraleon.txt Eq. (1)'\n"
            "set yrange [0:1.05]; set ylabel 'value'\n"
            "plot 'monitor_metrics.csv' using 1:2 with lines title 'O_TP', \\\n"
            "     '' using 1:3 with lines title 'O_RTT', \\\n"
            "     '' using 1:4 with lines title 'O_PFC', \\\n"
            "     '' using 1:5 with lines lw 2 title 'U'\n"
            "set title 'Elephant share of the active flows (flow-size distribution)'\n"
            "set yrange [0:*]; set ylabel 'share >= tau'\n"
            "plot 'monitor_fsd.csv' using 1:5 with lines lw 2 lc rgb 'black' title 'truth', \\\n"
            "     '' using 1:2 with lines title 'PARALEON', \\\n"
            "     '' using 1:3 with lines title 'naive Elastic Sketch', \\\n"
            "     '' using 1:4 with lines title 'NetFlow'\n"
            "unset multiplot\nunset output\n");
    return tl_afile_commit(&af, err);
}

int tl_monitor_save(const tl_monitor *m, const char *dir, tl_err *err)
{
    int rc = save_csv(m, dir, "monitor_fsd.csv",
                      "p_paraleon,p_naive,p_netflow,p_true,acc_paraleon,acc_naive,acc_netflow,"
                      "n_flows,n_true",
                      fsd_row, 0, err);
    if (!rc)
        rc = save_csv(m, dir, "monitor_states.csv", "n_e,n_pe,n_m,sum_w,light_mice", states_row,
                      0, err);
    if (!rc)
        rc = save_csv(m, dir, "monitor_metrics.csv",
                      "o_tp,o_rtt,o_pfc,u,n_active_hosts,n_active_pairs", metrics_row, 0, err);
    if (!rc)
        rc = save_csv(m, dir, "monitor_triggers.csv", "kl,p_reference,p_now", trigger_row, 1,
                      err);
    if (!rc)
        rc = save_gp(dir, err);
    return rc;
}

void tl_monitor_accuracy(const tl_monitor *m, double *paraleon, double *naive, double *netflow)
{
    double sum[3] = {0}, n[3] = {0};
    for (size_t i = (size_t)m->k[TL_MON_WARMUP]; i < m->n_rows; i++) {
        const tl_monitor_row *r = &m->rows[i];
        double a[3] = {accuracy(r->p_paraleon, r->p_true), accuracy(r->p_naive, r->p_true),
                       accuracy(r->p_netflow, r->p_true)};
        for (int k = 0; k < 3; k++)
            if (!isnan(a[k])) {
                sum[k] += a[k];
                n[k]++;
            }
    }
    *paraleon = n[0] ? sum[0] / n[0] : NAN;
    *naive = n[1] ? sum[1] / n[1] : NAN;
    *netflow = n[2] ? sum[2] / n[2] : NAN;
}
