/* Located JSON errors (see tailor/jsonerr.h): a minimal JSON walker records
 * value positions. It trusts the text to be valid (jansson has checked it)
 * and stops at the first surprise instead of reporting. */
#include "tailor/jsonerr.h"
#include "tailor/fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct walker {
    const char *s;
    size_t i;
    int line, col;
    tl_json_ctx *jp;
    int failed;
} walker;

static void adv(walker *w)
{
    if (w->s[w->i] == '\n') {
        w->line++;
        w->col = 1;
    } else if ((w->s[w->i] & 0xC0) != 0x80) { /* count UTF-8 characters, as jansson does */
        w->col++;
    }
    w->i++;
}

static void skip_ws(walker *w)
{
    while (w->s[w->i] == ' ' || w->s[w->i] == '\t' || w->s[w->i] == '\n' || w->s[w->i] == '\r')
        adv(w);
}

static void add(walker *w, const char *path, int line, int col, int kl, int kc)
{
    tl_json_ctx *jp = w->jp;
    if (jp->n_pos == jp->cap_pos) {
        size_t ncap = jp->cap_pos ? jp->cap_pos * 2 : 64;
        tl_jsonpos_entry *v = realloc(jp->pos, ncap * sizeof *v);
        if (!v) {
            w->failed = 1;
            return;
        }
        jp->pos = v;
        jp->cap_pos = ncap;
    }
    char *p = strdup(path);
    if (!p) {
        w->failed = 1;
        return;
    }
    jp->pos[jp->n_pos++] = (tl_jsonpos_entry){p, line, col, kl, kc};
}

/* Copies a string token (without quotes, escapes kept raw) into out. */
static void read_string(walker *w, char *out, size_t n)
{
    size_t k = 0;
    adv(w); /* opening quote */
    while (w->s[w->i] && w->s[w->i] != '"') {
        if (w->s[w->i] == '\\') {
            if (k + 1 < n)
                out[k++] = w->s[w->i];
            adv(w);
        }
        if (k + 1 < n)
            out[k++] = w->s[w->i];
        adv(w);
    }
    if (w->s[w->i] == '"')
        adv(w);
    out[k] = '\0';
}

static void value(walker *w, const char *path, int kl, int kc);

static void object(walker *w, const char *path)
{
    adv(w); /* { */
    skip_ws(w);
    while (!w->failed && w->s[w->i] == '"') {
        int kl = w->line, kc = w->col;
        char key[256], sub[1024];
        read_string(w, key, sizeof key);
        snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", key);
        skip_ws(w);
        if (w->s[w->i] != ':')
            return;
        adv(w);
        skip_ws(w);
        value(w, sub, kl, kc);
        skip_ws(w);
        if (w->s[w->i] == ',') {
            adv(w);
            skip_ws(w);
        }
    }
    if (w->s[w->i] == '}')
        adv(w);
}

static void array(walker *w, const char *path)
{
    adv(w); /* [ */
    skip_ws(w);
    for (size_t idx = 0; !w->failed && w->s[w->i] && w->s[w->i] != ']'; idx++) {
        char sub[1024];
        snprintf(sub, sizeof sub, "%s[%zu]", path, idx);
        value(w, sub, w->line, w->col);
        skip_ws(w);
        if (w->s[w->i] == ',') {
            adv(w);
            skip_ws(w);
        } else {
            break;
        }
    }
    if (w->s[w->i] == ']')
        adv(w);
}

static void value(walker *w, const char *path, int kl, int kc)
{
    add(w, path, w->line, w->col, kl, kc);
    char c = w->s[w->i];
    if (c == '{') {
        object(w, path);
    } else if (c == '[') {
        array(w, path);
    } else if (c == '"') {
        char tmp[8];
        read_string(w, tmp, sizeof tmp);
    } else {
        while (w->s[w->i] && !strchr(",]} \t\r\n", w->s[w->i]))
            adv(w);
    }
}

int tl_json_ctx_init(tl_json_ctx *c, const char *file, const char *text, tl_err *err)
{
    memset(c, 0, sizeof *c);
    c->file = file;
    c->err = err;
    walker w = {.s = text, .line = 1, .col = 1, .jp = c};
    skip_ws(&w);
    value(&w, "", w.line, w.col);
    return w.failed ? tl_err_nomem(err) : 0;
}

void tl_json_ctx_fini(tl_json_ctx *c)
{
    for (size_t i = 0; i < c->n_pos; i++)
        free(c->pos[i].path);
    free(c->pos);
    c->pos = NULL;
    c->n_pos = c->cap_pos = 0;
}

const tl_jsonpos_entry *tl_json_find(const tl_json_ctx *c, const char *path)
{
    for (size_t i = 0; i < c->n_pos; i++)
        if (strcmp(c->pos[i].path, path) == 0)
            return &c->pos[i];
    return NULL;
}

int tl_json_failv(tl_json_ctx *c, int at_key, const char *path, int code, const char *fmt,
                  va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const tl_jsonpos_entry *e = tl_json_find(c, path);
    int line = e ? (at_key ? e->key_line : e->line) : 0;
    int col = e ? (at_key ? e->key_col : e->col) : 0;
    return tl_err_at(c->err, code, c->file, line, col, path, "%s", msg);
}

int tl_json_fail(tl_json_ctx *c, int at_key, const char *path, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = tl_json_failv(c, at_key, path, code, fmt, ap);
    va_end(ap);
    return rc;
}

int tl_json_load_fail(tl_err *err, const char *file, const json_error_t *je)
{
    if (json_error_code(je) == json_error_out_of_memory)
        return tl_err_at(err, TL_ENOMEM, file, 0, 0, NULL, "out of memory");
    return tl_err_at(err, TL_EPARSE, file, je->line > 0 ? je->line : 0,
                     je->column > 0 ? je->column : 0, NULL, "malformed JSON: %s", je->text);
}

const char *tl_json_join(char *buf, size_t n, const char *path, const char *key)
{
    snprintf(buf, n, "%s%s%s", path, path[0] ? "." : "", key);
    return buf;
}

const char *tl_json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

void tl_json_put(json_t *o, const char *key, json_t *v, int *n_bad)
{
    /* json_object_set_new releases v when it fails, o NULL included */
    if (!v || json_object_set_new(o, key, v) != 0)
        (*n_bad)++;
}

int tl_json_save(json_t *root, int n_bad, const char *path, tl_err *err)
{
    if (n_bad || !root) {
        json_decref(root);
        return tl_err_nomem(err);
    }
    tl_afile af;
    FILE *out = tl_afile_open(&af, path, err);
    if (!out) {
        json_decref(root);
        return err ? err->code : TL_EIO;
    }
    /* Straight to the file, not through json_dumps: jansson 2.14 ignores
     * some failures of its output callback, so json_dumps writes a
     * corrupted text when its buffer cannot grow. Writing to a FILE
     * allocates nothing, and a failed write sets the stream's error flag;
     * a failure without it was jansson's own allocation. */
    int bad = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) != 0;
    json_decref(root);
    fputc('\n', out);
    if (bad) {
        int code = ferror(out) ? TL_EIO : TL_ENOMEM;
        tl_afile_abort(&af);
        return code == TL_ENOMEM ? tl_err_nomem(err)
                                 : tl_err_at(err, TL_EIO, path, 0, 0, NULL, "write failed");
    }
    return tl_afile_commit(&af, err);
}
