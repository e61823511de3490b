/* Error reports with location (DESIGN.md "Conventions"): filled by the library,
 * formatted and printed only by cli/. */
#include "tailor/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tl_err_clear(tl_err *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

int tl_err_set(tl_err *err, int code, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

int tl_err_at(tl_err *err, int code, const char *file, int line, int col, const char *path,
              const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    err->line = line;
    err->col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

int tl_err_nomem(tl_err *err)
{
    return tl_err_set(err, TL_ENOMEM, "out of memory");
}

char *tl_err_format(const tl_err *err, char *buf, unsigned long n)
{
    size_t off = 0;
    buf[0] = '\0';
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int w_ = snprintf(buf + off, off < n ? n - off : 0, __VA_ARGS__);                          \
        if (w_ > 0)                                                                                \
            off += (size_t)w_;                                                                     \
    } while (0)
    if (err->file[0]) {
        PUT("%s", err->file);
        if (err->line > 0)
            PUT(":%d", err->line);
        if (err->col > 0)
            PUT(":%d", err->col);
        PUT(": ");
    }
    if (err->path[0])
        PUT("%s: ", err->path);
    PUT("%s", err->msg[0] ? err->msg : tl_err_code_name(err->code));
#undef PUT
    return buf;
}

const char *tl_err_code_name(int code)
{
    switch (code) {
    case TL_OK: return "no error";
    case TL_EPARSE: return "parse error";
    case TL_ERANGE: return "value out of range";
    case TL_ENOMEM: return "out of memory";
    case TL_EIO: return "I/O error";
    case TL_EINVAL: return "invalid request";
    case TL_ESTOP: return "stopped by another rank";
    case TL_EPAUSE: return "a direct port would have paused";
    default: return "unknown error";
    }
}
