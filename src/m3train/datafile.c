/* The training data files of m3 (samples.csv, fabric.csv): a header line
 * that pins the settings, then comma-separated lines written in blocks that
 * reach the disk whole, so an interrupted run resumes after the last
 * complete block and the file does not depend on interruptions. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "m3train/m3train_int.h"
#include "tailor/fileio.h"

void m3_put_num(FILE *f, double x)
{
    if (isnan(x))
        fputs(",nan", f);
    else
        fprintf(f, ",%.9g", x);
}

static char *next_field(m3_fields *fs)
{
    if (!fs->p)
        return NULL;
    char *start = fs->p, *comma = strchr(start, ',');
    fs->col++;
    if (comma) {
        *comma = '\0';
        fs->p = comma + 1;
    } else {
        fs->p = NULL;
    }
    return start;
}

int m3_field_num(m3_fields *fs, double *out, tl_err *err)
{
    char *s = next_field(fs), *end;
    if (!s)
        return tl_err_at(err, TL_EPARSE, fs->file, fs->line, 0, NULL,
                         "expected %d+ fields, found %d", fs->col + 1, fs->col - 1);
    *out = strtod(s, &end);
    if (end == s || *end)
        return tl_err_at(err, TL_EPARSE, fs->file, fs->line, 0, NULL,
                         "field %d: expected a number, found '%s'", fs->col, s);
    return 0;
}

int m3_field_str(m3_fields *fs, char *out, size_t n, tl_err *err)
{
    char *s = next_field(fs);
    if (!s)
        return tl_err_at(err, TL_EPARSE, fs->file, fs->line, 0, NULL,
                         "expected %d+ fields, found %d", fs->col + 1, fs->col - 1);
    snprintf(out, n, "%s", s);
    return 0;
}

int m3_resume(const char *path, const char *header, long block, long *count, tl_err *err)
{
    size_t len = 0;
    *count = 0;
    char *text = tl_read_file(path, &len, NULL);
    if (!text)
        return 0; /* a new file */
    long n = -1;
    size_t hl = strlen(header);
    /* a run stopped before its header reached the disk left the file empty
     * or with part of this run's header: nothing was made yet */
    if (len <= hl && !strncmp(text, header, len)) {
        free(text);
        if (len > 0 && truncate(path, 0) != 0)
            return tl_err_at(err, TL_EIO, path, 0, 0, NULL, "cannot drop a torn header: %s",
                             strerror(errno));
        return 0;
    }
    if (len < hl + 1 || strncmp(text, header, hl) || text[hl] != '\n') {
        char *nl = strchr(text, '\n');
        if (nl)
            *nl = '\0';
        tl_err_at(err, TL_EINVAL, path, 1, 1, NULL,
                  "these samples were made with other settings (\"%.200s\"; this run: \"%s\"): "
                  "use another folder or the same settings",
                  text, header);
        free(text);
        return TL_EINVAL;
    }
    size_t keep = hl + 1;
    long lines = 0;
    for (size_t i = hl + 1; i < len; i++)
        if (text[i] == '\n' && ++lines % block == 0)
            n += block, keep = i + 1;
    free(text);
    if (keep < len && truncate(path, (off_t)keep) != 0)
        return tl_err_at(err, TL_EIO, path, 0, 0, NULL, "cannot drop a torn last line: %s",
                         strerror(errno));
    *count = n + 1;
    return 0;
}

FILE *m3_samples_open(const char *dir, const char *name, const char *header, long block,
                      char *path, size_t path_n, long *have, tl_err *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        tl_err_at(err, TL_EIO, dir, 0, 0, NULL, "cannot create the folder: %s", strerror(errno));
        return NULL;
    }
    snprintf(path, path_n, "%s/%s", dir, name);
    if (m3_resume(path, header, block, have, err))
        return NULL;
    FILE *f = fopen(path, "a");
    if (!f) {
        tl_err_at(err, tl_io_code(errno), path, 0, 0, NULL, "cannot open for appending: %s",
                  strerror(errno));
        return NULL;
    }
    if (ftell(f) == 0 && (fprintf(f, "%s\n", header) < 0 || fflush(f) != 0)) {
        tl_err_at(err, TL_EIO, path, 0, 0, NULL, "write failed: %s", strerror(errno));
        fclose(f);
        return NULL;
    }
    return f;
}

int m3_samples_sync(FILE *f, const char *path, int rc, tl_err *err)
{
    /* a block is on disk before the next starts: an interruption loses at
     * most one block */
    if (fflush(f) != 0 || fsync(fileno(f)) != 0)
        rc = rc ? rc : tl_err_at(err, TL_EIO, path, 0, 0, NULL, "write failed: %s",
                                 strerror(errno));
    return rc;
}
