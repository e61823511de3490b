/* Atomic output files, numbered line reading and data-file lookup. */
#include "tailor/fileio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tl_io_code(int errnum) { return errnum == ENOMEM ? TL_ENOMEM : TL_EIO; }

FILE *tl_afile_open(tl_afile *af, const char *path, tl_err *err)
{
    memset(af, 0, sizeof *af);
    if (strcmp(path, "-") == 0) {
        af->is_stdout = 1;
        af->f = stdout;
        return af->f;
    }
    if (strlen(path) >= sizeof af->path) {
        tl_err_at(err, TL_EIO, path, 0, 0, NULL, "path too long");
        return NULL;
    }
    snprintf(af->path, sizeof af->path, "%s", path);
    snprintf(af->tmp, sizeof af->tmp, "%s.tmp%ld", path, (long)getpid());
    af->f = fopen(af->tmp, "w");
    if (!af->f) {
        tl_err_at(err, tl_io_code(errno), path, 0, 0, NULL, "cannot create: %s", strerror(errno));
        af->tmp[0] = '\0';
        return NULL;
    }
    return af->f;
}

FILE *tl_afile_open_buffered(tl_afile *af, const char *path, tl_err *err)
{
    FILE *f = tl_afile_open(af, path, err);
    if (f && !af->is_stdout && (af->buf = malloc(1 << 20)))
        setvbuf(f, af->buf, _IOFBF, 1 << 20);
    return f;
}

void tl_fput_ns(FILE *f, int64_t ps)
{
    uint64_t a = ps < 0 ? -(uint64_t)ps : (uint64_t)ps;
    if (a % 1000)
        fprintf(f, "%s%" PRIu64 ".%03" PRIu64, ps < 0 ? "-" : "", a / 1000, a % 1000);
    else
        fprintf(f, "%s%" PRIu64, ps < 0 ? "-" : "", a / 1000);
}

int tl_afile_commit(tl_afile *af, tl_err *err)
{
    if (!af->f)
        return tl_err_at(err, TL_EIO, af->path, 0, 0, NULL, "file was not open");
    if (af->is_stdout) {
        int bad = fflush(stdout) != 0 || ferror(stdout);
        af->f = NULL;
        return bad ? tl_err_set(err, TL_EIO, "write to standard output failed") : 0;
    }
    int bad = fflush(af->f) != 0 || ferror(af->f);
    int saved = errno;
    if (fclose(af->f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    af->f = NULL;
    free(af->buf);
    af->buf = NULL;
    if (bad) {
        unlink(af->tmp);
        return tl_err_at(err, TL_EIO, af->path, 0, 0, NULL, "write failed: %s", strerror(saved));
    }
    if (rename(af->tmp, af->path) != 0) {
        saved = errno;
        unlink(af->tmp);
        return tl_err_at(err, TL_EIO, af->path, 0, 0, NULL, "cannot rename into place: %s",
                         strerror(saved));
    }
    af->tmp[0] = '\0';
    return 0;
}

void tl_afile_abort(tl_afile *af)
{
    if (af->is_stdout) {
        af->f = NULL;
        return;
    }
    if (af->f)
        fclose(af->f);
    af->f = NULL;
    free(af->buf);
    af->buf = NULL;
    if (af->tmp[0])
        unlink(af->tmp);
    af->tmp[0] = '\0';
}

int tl_lines_open(tl_lines *lr, const char *path, tl_err *err)
{
    memset(lr, 0, sizeof *lr);
    lr->path = path;
    lr->f = fopen(path, "r");
    if (!lr->f)
        return tl_err_at(err, tl_io_code(errno), path, 0, 0, NULL, "cannot open: %s",
                         strerror(errno));
    return 0;
}

char *tl_lines_next(tl_lines *lr)
{
    ssize_t n = getline(&lr->buf, &lr->cap, lr->f);
    if (n < 0) {
        /* getline fails without setting the stream's error flag when it
         * cannot grow its buffer */
        if (ferror(lr->f))
            lr->code = TL_EIO;
        else if (!feof(lr->f))
            lr->code = TL_ENOMEM;
        return NULL;
    }
    lr->line++;
    while (n > 0 && (lr->buf[n - 1] == '\n' || lr->buf[n - 1] == '\r'))
        lr->buf[--n] = '\0';
    return lr->buf;
}

int tl_lines_result(const tl_lines *lr, int rc, tl_err *err)
{
    if (lr->code == TL_ENOMEM)
        return tl_err_at(err, TL_ENOMEM, lr->path, lr->line + 1, 0, NULL, "out of memory");
    if (lr->code)
        return tl_err_at(err, lr->code, lr->path, lr->line + 1, 0, NULL, "read error");
    return rc;
}

void tl_lines_close(tl_lines *lr)
{
    if (lr->f)
        fclose(lr->f);
    free(lr->buf);
    memset(lr, 0, sizeof *lr);
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int tl_data_path(const char *rel, char *out, size_t n, tl_err *err)
{
    const char *env = getenv("TAILOR_DATA");
    const char *dirs[3] = {env && env[0] ? env : NULL, TL_DATA_INSTALL_DIR, TL_DATA_SOURCE_DIR};
    for (int i = 0; i < 3; i++) {
        if (!dirs[i])
            continue;
        snprintf(out, n, "%s/%s", dirs[i], rel);
        if (is_file(out))
            return 0;
    }
    return tl_err_set(err, TL_EIO,
                      "data file '%s' not found in $TAILOR_DATA (%s), %s or %s", rel,
                      env ? env : "unset", TL_DATA_INSTALL_DIR, TL_DATA_SOURCE_DIR);
}

char *tl_read_file(const char *path, size_t *len, tl_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        tl_err_at(err, tl_io_code(errno), path, 0, 0, NULL, "cannot open: %s", strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 16384;
            char *t = realloc(text, cap);
            if (!t) {
                free(text);
                fclose(f);
                tl_err_nomem(err);
                return NULL;
            }
            text = t;
        }
        size_t got = fread(text + n, 1, 4096, f);
        n += got;
        if (got < 4096)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(text);
        tl_err_at(err, TL_EIO, path, 0, 0, NULL, "read error");
        return NULL;
    }
    text[n] = '\0';
    if (len)
        *len = n;
    return text;
}
