/* "Did you mean" suggestions for unknown keys, knobs and names. */
#include "tailor/strutil.h"

#include <string.h>

size_t tl_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *tl_suggest(const char *name, const char *const *cands, size_t n_cands)
{
    const char *best = NULL;
    size_t best_d = 4;
    for (size_t i = 0; i < n_cands; i++) {
        size_t d = tl_edit_distance(name, cands[i]);
        if (d < best_d || (strlen(name) >= 3 && strncmp(cands[i], name, strlen(name)) == 0 && best_d > 1)) {
            best_d = d < best_d ? d : 1;
            best = cands[i];
        }
    }
    return best;
}
