/* Error reports: what went wrong and where (file, line/column, JSON path).
 * Every fallible function takes a tl_err * last and fills it before failing
 * (STYLE.md "Errors"); only cli/ prints them. */
#ifndef TAILOR_ERR_H
#define TAILOR_ERR_H

enum {
    TL_OK = 0,
    TL_EPARSE = -1, /* malformed input: syntax, wrong type, unknown key */
    TL_ERANGE = -2, /* well-formed value outside its valid range */
    TL_ENOMEM = -3, /* allocation failed */
    TL_EIO = -4,    /* file could not be opened, read or written */
    TL_EINVAL = -5, /* inconsistent request (e.g. matrix larger than topology) */
    TL_ESTOP = -6,  /* another MPI rank ended the job (tailor/dist.h) */
    TL_EPAUSE = -7, /* a watched direct port would have paused its upstream (tailor/pktsim.h) */
};

typedef struct tl_err {
    int code;       /* TL_E*; 0 while no error was set */
    char file[256]; /* the input at fault; "" if none */
    int line, col;  /* 1-based; 0 if not applicable */
    char path[128]; /* JSON path, e.g. "workload.classes[0].load.max_link_load" */
    char msg[512];  /* "expected a number in (0, 1), found 1.5" */
} tl_err;

/* Clears err (NULL is accepted and ignored by every function here). */
void tl_err_clear(tl_err *err);

/* Sets code and message (printf format); keeps file/line/path already set. Returns code. */
int tl_err_set(tl_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Sets code, location and message at once. file/path may be NULL. Returns code. */
int tl_err_at(tl_err *err, int code, const char *file, int line, int col, const char *path,
              const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* Out-of-memory shortcut. Returns TL_ENOMEM. */
int tl_err_nomem(tl_err *err);

/* Writes "file:line:col: path: msg" (omitting absent parts) into buf. Returns buf. */
char *tl_err_format(const tl_err *err, char *buf, unsigned long n);

/* "parse error", "out of range", ... */
const char *tl_err_code_name(int code);

#endif
