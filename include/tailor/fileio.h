/* Files written atomically (a temporary beside the target, renamed on commit,
 * so an interrupted run never leaves a half-written result that looks whole),
 * text line reading with line numbers, and the data-directory lookup. */
#ifndef TAILOR_FILEIO_H
#define TAILOR_FILEIO_H

#include <stdint.h>
#include <stdio.h>

#include "tailor/err.h"

typedef struct tl_afile {
    FILE *f;
    int is_stdout;
    char *buf; /* a large stdio buffer, for files of millions of rows */
    char path[1024], tmp[1040];
} tl_afile;

/* The code for a failed open or read: TL_ENOMEM when errnum is ENOMEM (fopen
 * allocates its FILE, getline its buffer), else TL_EIO. */
int tl_io_code(int errnum);

/* Opens a temporary file beside path ("-" writes straight to stdout). */
FILE *tl_afile_open(tl_afile *af, const char *path, tl_err *err);
/* The same with a 1 MiB stdio buffer: the bulk of writing millions of CSV
 * rows is the number of write calls. */
FILE *tl_afile_open_buffered(tl_afile *af, const char *path, tl_err *err);
/* Flushes, checks for write errors, closes and renames into place. On failure
 * the temporary is removed and the target is untouched. */
int tl_afile_commit(tl_afile *af, tl_err *err);
/* Closes and removes the temporary (safe after a failed open or commit). */
void tl_afile_abort(tl_afile *af);

/* Writes picoseconds as nanoseconds: "123" when whole, else "123.456". */
void tl_fput_ns(FILE *f, int64_t ps);

/* Line reader: skips nothing, counts lines (1-based) for error messages. */
typedef struct tl_lines {
    FILE *f;
    char *buf;
    size_t cap;
    int line;
    const char *path;
    int code; /* 0, or why tl_lines_next stopped before the end: TL_ENOMEM, TL_EIO */
} tl_lines;
int tl_lines_open(tl_lines *lr, const char *path, tl_err *err);
/* Next line without its newline; NULL at end of file, or when reading failed
 * (getline out of memory, a read error): then lr->code says which. */
char *tl_lines_next(tl_lines *lr);
/* The result of a parse that read lr: rc, unless reading failed, which is
 * then what cut the parse short (a missing line, a truncated table that
 * looked whole): that failure is reported in err (file, line after the last
 * one read) and returned instead. */
int tl_lines_result(const tl_lines *lr, int rc, tl_err *err);
void tl_lines_close(tl_lines *lr);

/* Reads a whole file into a malloc'd NUL-terminated buffer (*len bytes,
 * len may be NULL). NULL with err naming the file on failure. */
char *tl_read_file(const char *path, size_t *len, tl_err *err);

/* Resolves a data file (e.g. "sizes/webserver.txt") to a path: $TAILOR_DATA,
 * then the installed share/tailor, then the source tree's data/. Writes into
 * out and returns 0, or TL_EIO naming the places looked at. */
int tl_data_path(const char *rel, char *out, size_t n, tl_err *err);

#endif
