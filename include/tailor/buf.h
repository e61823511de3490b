/* Byte buffers for results that travel between MPI ranks (tailor/dist.h):
 * a growable writer and a bounds-checked reader. Values are copied in the
 * machine's own byte order: every rank runs the same binary on the same
 * kind of machine (tl_dist_init checks a fingerprint of the build). */
#ifndef TAILOR_BUF_H
#define TAILOR_BUF_H

#include <stddef.h>

#include "tailor/err.h"

typedef struct tl_wbuf {
    unsigned char *p; /* (cap) owned; NULL until the first put */
    size_t n, cap;
} tl_wbuf;

/* Appends n bytes of src. 0, or TL_ENOMEM with err filled (b unchanged). */
int tl_wbuf_put(tl_wbuf *b, const void *src, size_t n, tl_err *err);
void tl_wbuf_fini(tl_wbuf *b); /* frees p; b may be reused after tl_wbuf_fini */

typedef struct tl_rbuf {
    const unsigned char *p; /* (n) borrowed */
    size_t n, pos;
} tl_rbuf;

/* Copies the next n bytes into dst. 0, or TL_EPARSE ("truncated message")
 * when fewer than n remain; dst is then untouched. */
int tl_rbuf_get(tl_rbuf *b, void *dst, size_t n, tl_err *err);

#endif
