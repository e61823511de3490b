/* Byte buffers for results sent between MPI ranks (tailor/buf.h). */
#include "tailor/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int tl_wbuf_put(tl_wbuf *b, const void *src, size_t n, tl_err *err)
{
    if (n == 0)
        return 0;
    if (n > b->cap - b->n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->n < n) {
            if (cap > SIZE_MAX / 2)
                return tl_err_nomem(err);
            cap *= 2;
        }
        unsigned char *p = realloc(b->p, cap);
        if (!p)
            return tl_err_nomem(err);
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
    return 0;
}

void tl_wbuf_fini(tl_wbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

int tl_rbuf_get(tl_rbuf *b, void *dst, size_t n, tl_err *err)
{
    if (n > b->n - b->pos)
        return tl_err_set(err, TL_EPARSE, "truncated message between ranks: %zu bytes wanted "
                          "at offset %zu of %zu", n, b->pos, b->n);
    if (n)
        memcpy(dst, b->p + b->pos, n);
    b->pos += n;
    return 0;
}
