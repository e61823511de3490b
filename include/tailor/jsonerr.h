/* Located errors for JSON inputs (scenarios, summaries): jansson reports
 * line:column only for syntax errors, so the (already valid) text is scanned
 * once to record where every value and member key starts, and errors about a
 * value name its file, line:column and JSON path. */
#ifndef TAILOR_JSONERR_H
#define TAILOR_JSONERR_H

#include <stdarg.h>
#include <stddef.h>

#include <jansson.h>

#include "tailor/err.h"

typedef struct tl_jsonpos_entry {
    char *path;            /* "workload.classes[0].load.max_link_load"; "" is the root */
    int line, col;         /* where the value starts (1-based) */
    int key_line, key_col; /* where its key starts, for object members; else = value */
} tl_jsonpos_entry;

typedef struct tl_json_ctx {
    const char *file;      /* named in errors */
    tl_jsonpos_entry *pos; /* (n_pos) */
    size_t n_pos, cap_pos;
    tl_err *err;           /* where failures are reported (may be NULL) */
} tl_json_ctx;

/* Indexes text (valid JSON). Returns 0 or TL_ENOMEM (reported in err). */
int tl_json_ctx_init(tl_json_ctx *c, const char *file, const char *text, tl_err *err);
void tl_json_ctx_fini(tl_json_ctx *c);
/* Entry of path, or NULL. O(entries): inputs are small. */
const tl_jsonpos_entry *tl_json_find(const tl_json_ctx *c, const char *path);

/* Fills c->err with code, file, the line:column of path's value (at_key:
 * of its key) and the message; returns code. */
int tl_json_failv(tl_json_ctx *c, int at_key, const char *path, int code, const char *fmt,
                  va_list ap);
int tl_json_fail(tl_json_ctx *c, int at_key, const char *path, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Reports a failed json_loads/json_loadb/json_loadf of file: TL_ENOMEM when
 * jansson ran out of memory, else TL_EPARSE "malformed JSON" at its
 * line:column. Returns the code. */
int tl_json_load_fail(tl_err *err, const char *file, const json_error_t *je);

/* "path.key" (or "key" at the root) into buf. */
const char *tl_json_join(char *buf, size_t n, const char *path, const char *key);
/* "an object", "a string", ... for "expected X, found Y" messages. */
const char *tl_json_type_name(const json_t *v);

/* Writers. tl_json_put sets key to v (stolen); any failure (o or v NULL
 * included) is counted in *n_bad, so a builder checks once at the end.
 * tl_json_save takes root (always released): TL_ENOMEM when n_bad is not 0,
 * else root written to path atomically (tl_afile), indented, reals with 15
 * significant digits (99.01 stays 99.01, and a load and save again
 * reproduces the file byte for byte). */
void tl_json_put(json_t *o, const char *key, json_t *v, int *n_bad);
int tl_json_save(json_t *root, int n_bad, const char *path, tl_err *err);

#endif
