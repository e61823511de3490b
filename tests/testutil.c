/* Shared test helpers (see testutil.h). */
#include "testutil.h"

#include "tailor/pktsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *tu_temp_path(const char *suffix)
{
    static unsigned counter;
    const char *dir = getenv("TMPDIR");
    if (!dir || !dir[0])
        dir = "/tmp";
    char *p = malloc(1024);
    snprintf(p, 1024, "%s/tailor-test-%ld-%u%s", dir, (long)getpid(), counter++, suffix);
    return p;
}

char *tu_write_temp(const char *text, const char *suffix)
{
    char *p = tu_temp_path(suffix);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    buf[got] = '\0';
    if (len)
        *len = got;
    return buf;
}

void tu_check_err(const char *name, const tl_err *err, int code, const char *needle1,
                  const char *needle2)
{
    char buf[1024];
    tl_err_format(err, buf, sizeof buf);
    int ok = err->code == code && (!needle1 || strstr(buf, needle1)) &&
             (!needle2 || strstr(buf, needle2));
    if (!ok) {
        fprintf(stderr, "[%s] expected code %d containing '%s' and '%s'; got code %d: %s\n", name,
                code, needle1 ? needle1 : "", needle2 ? needle2 : "", err->code, buf);
        fail();
    }
}

void tu_world_make(tl_world *w, const char *json)
{
    tl_err err;
    tl_err_clear(&err);
    if (tl_world_from_json(w, json, 1, &err) != 0)
        fail_msg("scenario: %s at %s", err.msg, err.path);
}

struct tl_pktsim *tu_pktsim_make(const tl_world *w)
{
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim_opts o;
    tl_scenario_pktsim_opts(&w->sc, &o);
    tl_pktsim *s = tl_pktsim_create_opts(w->topo, w->routes, &w->flows, &w->sc.params, &o,
                                         w->sc.seed, &err);
    if (!s)
        fail_msg("pktsim: %s", err.msg);
    return s;
}
