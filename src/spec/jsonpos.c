/* A minimal JSON walker that records value positions (see jsonpos.h). It
 * trusts the text to be valid (jansson has checked it) and stops at the first
 * surprise instead of reporting. */
#include "jsonpos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct walker {
    const char *s;
    size_t i;
    int line, col;
    jsonpos *jp;
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
    jsonpos *jp = w->jp;
    if (jp->n == jp->cap) {
        size_t ncap = jp->cap ? jp->cap * 2 : 64;
        jsonpos_entry *v = realloc(jp->v, ncap * sizeof *v);
        if (!v) {
            w->failed = 1;
            return;
        }
        jp->v = v;
        jp->cap = ncap;
    }
    char *p = strdup(path);
    if (!p) {
        w->failed = 1;
        return;
    }
    jp->v[jp->n++] = (jsonpos_entry){p, line, col, kl, kc};
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

int jsonpos_build(jsonpos *jp, const char *text)
{
    memset(jp, 0, sizeof *jp);
    walker w = {.s = text, .line = 1, .col = 1, .jp = jp};
    skip_ws(&w);
    value(&w, "", w.line, w.col);
    return w.failed ? -1 : 0;
}

void jsonpos_fini(jsonpos *jp)
{
    for (size_t i = 0; i < jp->n; i++)
        free(jp->v[i].path);
    free(jp->v);
    memset(jp, 0, sizeof *jp);
}

const jsonpos_entry *jsonpos_find(const jsonpos *jp, const char *path)
{
    for (size_t i = 0; i < jp->n; i++)
        if (strcmp(jp->v[i].path, path) == 0)
            return &jp->v[i];
    return NULL;
}
