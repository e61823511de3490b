/* A tuner's setting: handing a vector of knob values to whatever applies
 * them (a running pktsim, a parameter set), and writing it as a preset file
 * (docs/paraleon.md "Files"). */
#include <stdio.h>
#include <string.h>

#include "tailor/fileio.h"
#include "tailor/tune.h"

int tl_setting_apply(const char *const *knobs, const double *values, size_t n, tl_setting_fn set,
                     void *ctx, const double *old, double *applied)
{
    /* A value a rule refuses now (Kmax below Kmin) may pass once the others
     * are set; what is still refused keeps the value in force. */
    int n_refused = 0;
    if (applied != old)
        memcpy(applied, old, n * sizeof *applied);
    for (int pass = 0; pass < 2; pass++) {
        n_refused = 0;
        for (size_t i = 0; i < n; i++) {
            if (applied[i] == values[i])
                continue;
            tl_err err;
            tl_err_clear(&err);
            if (set(ctx, knobs[i], values[i], &err) == 0)
                applied[i] = values[i];
            else
                n_refused++;
        }
        if (!n_refused)
            break;
    }
    return n_refused;
}

int tl_setting_set_params(void *ctx, const char *knob, double value, tl_err *err)
{
    tl_params *p = ctx;
    double old = tl_params_get(p, knob);
    int rc = tl_params_set(p, knob, value, err);
    if (!rc && (rc = tl_pktsim_check_params(p, err)))
        tl_params_set(p, knob, old, NULL);
    return rc;
}

int tl_setting_save(const char *path, const char *const *knobs, const double *values, size_t n,
                    tl_err *err)
{
    if (n > TL_TUNE_MAX_KNOBS)
        return tl_err_set(err, TL_ERANGE, "a setting of at most %d knobs, found %zu",
                          TL_TUNE_MAX_KNOBS, n);
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (!f)
        return err->code;
    /* knobs of one group are written together, in the order first seen */
    fprintf(f, "{\"transport\": {");
    int is_done[TL_TUNE_MAX_KNOBS] = {0};
    const char *sep_group = "";
    for (size_t i = 0; i < n; i++) {
        if (is_done[i])
            continue;
        const char *dot = strchr(knobs[i], '.');
        int glen = (int)(dot - knobs[i]);
        fprintf(f, "%s\n  \"%.*s\": {", sep_group, glen, knobs[i]);
        const char *sep = "";
        for (size_t j = i; j < n; j++)
            if (!is_done[j] && !strncmp(knobs[j], knobs[i], (size_t)glen + 1)) {
                fprintf(f, "%s\"%s\": %.10g", sep, knobs[j] + glen + 1, values[j]);
                is_done[j] = 1;
                sep = ", ";
            }
        fputc('}', f);
        sep_group = ",";
    }
    fprintf(f, "\n}}\n");
    return tl_afile_commit(&af, err);
}

void tl_setting_plot_knobs(FILE *f, const char *csv, size_t first_col, const char *const *knobs,
                           const double *ref, size_t n)
{
    fprintf(f, "set logscale y\n");
    const char *sep = "plot ";
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s'%s' using 1:(column(%zu) / %.10g) with steps title '%s'", sep, csv,
                first_col + i, ref && ref[i] != 0 ? ref[i] : 1.0, knobs[i]);
        sep = ", \\\n     ";
    }
    fprintf(f, "\nunset multiplot\nunset output\n");
}
