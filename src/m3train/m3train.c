/* The training pipeline's public entry points (tailor/m3.h "training
 * pipeline"): `tailor m3 gen-data` makes parking-lot (parking_data.c) or
 * fabric (fabric_data.c) training data, `tailor m3 train` trains on
 * whichever a folder holds (parking_train.c, fabric_train.c). */
#include <stdio.h>
#include <unistd.h>

#include "m3train/m3train_int.h"
#include "tailor/m3.h"

void tl_m3_gen_opts_default(tl_m3_gen_opts *o)
{
    m3_synth_opts so;
    m3_synth_opts_default(&so);
    *o = (tl_m3_gen_opts){.n_samples = 4000, .seed = 1, .fg_flows = so.fg_flows,
                          .max_flows = so.max_flows};
}

int tl_m3_gen_data(const char *dir, const tl_m3_gen_opts *o, tl_progress *prog,
                   uint64_t *n_new, tl_err *err)
{
    m3_synth_opts so = {o->fg_flows,   o->max_flows, o->only_cc, o->is_fabric == 2,
                        o->is_mixture, o->is_local,  o->is_skew, o->is_long, o->pfc};
    if (o->is_fabric) {
        uint64_t per = so.is_net_truth ? M3_FABRIC_PATHS_NET : M3_FABRIC_PATHS;
        return m3_fabric_gen(dir, o->seed, (o->n_samples + per - 1) / per, &so, o->truth_from,
                             o->n_threads, prog, n_new, err);
    }
    if (o->truth_from)
        return tl_err_set(err, TL_EINVAL, "--truth-from takes fabric folders (--kind fabric or "
                          "fabric-net) only");
    return m3_gen_data(dir, o->seed, o->n_samples, &so, o->n_threads, prog, n_new, err);
}

void tl_m3_train_opts_default(tl_m3_train_opts *o)
{
    m3_train_opts d;
    m3_train_opts_default(&d);
    *o = (tl_m3_train_opts){d.n_trees,   d.max_depth, d.eta,        d.seed,
                            d.n_threads, d.calib_min, d.calib_folds, d.leaf_refit};
}

int tl_m3_train(const char *const *dirs, int n_dirs, const char *model_path,
                const tl_m3_train_opts *o, tl_err *err)
{
    m3_train_opts d;
    m3_train_opts_default(&d);
    d.n_trees = o->n_trees, d.max_depth = o->max_depth, d.eta = o->eta, d.seed = o->seed;
    d.n_threads = o->n_threads, d.calib_min = o->calib_min, d.calib_folds = o->calib_folds;
    d.leaf_refit = o->leaf_refit;
    if (n_dirs < 1)
        return tl_err_set(err, TL_EINVAL, "m3 train: no samples folder");
    char fabric[4096];
    snprintf(fabric, sizeof fabric, "%s/fabric.csv", dirs[0]);
    if (access(fabric, F_OK) == 0)
        return m3_train_fabric(dirs, n_dirs, model_path, &d, err);
    if (n_dirs > 1)
        return tl_err_at(err, TL_EINVAL, fabric, 0, 0, NULL,
                         "expected fabric paths (several folders train together only on "
                         "`tailor m3 gen-data --kind fabric` samples), found none");
    return m3_train_dir(dirs[0], model_path, &d, err);
}

int tl_m3_calibrate(const char *model_in, const char *const *dirs, int n_dirs,
                    const char *model_out, int n_threads, tl_err *err)
{
    if (n_dirs < 1)
        return tl_err_set(err, TL_EINVAL, "m3 calibrate: no samples folder");
    char fabric[4096];
    for (int i = 0; i < n_dirs; i++) {
        snprintf(fabric, sizeof fabric, "%s/fabric.csv", dirs[i]);
        if (access(fabric, F_OK) != 0)
            return tl_err_at(err, TL_EIO, fabric, 0, 0, NULL,
                             "expected fabric paths (`tailor m3 gen-data --kind fabric-net`), "
                             "found no such file");
    }
    return m3_calibrate_fabric(model_in, dirs, n_dirs, model_out, n_threads, err);
}
