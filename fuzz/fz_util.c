/* Helpers of the fuzz harnesses (fz.h): per-process temporary files for
 * parsers that read a path, NUL-terminated copies for those that read text,
 * and the check that a failure is a clean, filled-in tl_err. */
#include "fz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *fz_temp_file(const uint8_t *data, size_t n, const char *suffix)
{
    static char path[512];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/tailor-fuzz-%ld%s", dir && dir[0] ? dir : "/tmp",
             (long)getpid(), suffix);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "fuzz: cannot write %s\n", path);
        abort();
    }
    return path;
}

char *fz_text(const uint8_t *data, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        abort();
    memcpy(s, data, n);
    s[n] = '\0';
    return s;
}

const tl_topo *fz_topo(void)
{
    static tl_topo *t;
    if (!t) {
        tl_err err;
        tl_err_clear(&err);
        if (!(t = tl_topo_from_spec("fat_tree:k=4", 1, &err))) {
            fprintf(stderr, "fuzz: fat_tree:k=4: %s\n", err.msg);
            abort();
        }
    }
    return t;
}

void fz_check(int rc, const tl_err *err)
{
    if (rc == 0)
        return;
    if (rc < TL_EINVAL || rc > TL_EPARSE || err->code != rc || !err->msg[0]) {
        fprintf(stderr, "fuzz: failure without a clean error: rc %d, err code %d, msg '%s'\n", rc,
                err->code, err->msg);
        abort();
    }
}
