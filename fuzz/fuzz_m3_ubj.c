/* Fuzzes the bounds check that stands between an m3 model file's XGBoost bytes and
 * XGBoost's UBJSON reader (m3_ubj_check, src/m3/ubjson.c): it must never read past
 * its input, whatever lengths, counts and nesting the bytes claim. Checked bytes
 * are not handed to XGBoost: beyond lengths it trusts its own trees (docs/m3.md). */
#include <stdlib.h>

#include "fz.h"
#include "m3/model.h"

int fz_m3_ubj(const uint8_t *data, size_t n, tl_err *err)
{
    size_t at = 0;
    const char *why = NULL;
    if (m3_ubj_check(data, n, &at, &why) == 0)
        return 0;
    if (at > n || !why)
        abort(); /* the offset must lie inside the bytes, the reason be given */
    return tl_err_at(err, TL_EPARSE, NULL, 0, 0, NULL, "%s (at byte %zu)", why, at);
}

FZ_ENTRY(fz_m3_ubj)
