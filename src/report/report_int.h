/* Declarations shared inside the report module: the run record's JSON form
 * (runinfo.c), used by summary.json's writer and reader (result_io.c). */
#ifndef TAILOR_REPORT_INT_H
#define TAILOR_REPORT_INT_H

#include <jansson.h>

#include "tailor/jsonerr.h"
#include "tailor/result.h"

/* o must be an object whose keys are exactly allowed (NULL-terminated),
 * besides any of optional (NULL-terminated; NULL: none); errors located
 * through c. */
int tl_report_check_keys(tl_json_ctx *c, const json_t *o, const char *path,
                         const char *const *allowed, const char *const *optional);

/* The "run" object; failures counted in *n_bad (tl_json_put). */
json_t *tl_run_info_json(const tl_run_info *r, int *n_bad);
/* Reads the "run" object o into r; errors located through c ("run.seed"). */
int tl_run_info_parse(tl_json_ctx *c, const json_t *o, tl_run_info *r);

#endif
