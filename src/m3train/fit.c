/* What the two trainers (parking_train.c, fabric_train.c) share: the list of
 * CCs a model was trained on, the XGBoost fit with its options and time in
 * the training log, and the log's commit or removal. */
#include <string.h>

#include "m3train/m3train_int.h"
#include "tailor/fileio.h"
#include "tailor/time.h"

void m3_cc_add(char *list, size_t cap, const char *cc)
{
    size_t len = strlen(list);
    if (!m3_cc_listed(list, cc))
        snprintf(list + len, cap - len, "%s%s", len ? "," : "", cc);
}

int m3_fit_logged(FILE *log, const m3_dataset *tr, const m3_dataset *va, const m3_train_opts *o,
                  m3_model **m, tl_err *err)
{
    fprintf(log, "xgboost: %u trees, depth %u, eta %g, subsample %g, colsample %g, "
            "min_child_weight %g, seed %llu%s\n\n", o->n_trees, o->max_depth, o->eta,
            o->subsample, o->colsample, o->min_child_weight, (unsigned long long)o->seed,
            o->leaf_refit ? ", leaf refit (each tree's leaves minimize the pinball loss)" : "");
    double t0 = tl_wall_s();
    if (!(*m = m3_model_train(tr, va, o, log, err)))
        return err && err->code ? err->code : TL_EINVAL;
    fprintf(log, "training time %.1f s\n", tl_wall_s() - t0);
    return 0;
}

int m3_log_finish(tl_afile *af, FILE *log, int rc, tl_err *err)
{
    if (!log)
        return rc;
    if (rc) {
        tl_afile_abort(af);
        return rc;
    }
    return tl_afile_commit(af, err);
}
