/* Small string helpers shared by the spec parser, the registry and the CLI. */
#ifndef TAILOR_STRUTIL_H
#define TAILOR_STRUTIL_H

#include <stddef.h>

/* Levenshtein distance (returns a large number for strings over 63 chars). */
size_t tl_edit_distance(const char *a, const char *b);
/* The candidate closest to name within an edit distance of 3 (or one that
 * name is a prefix of), else NULL; for "did you mean" hints. */
const char *tl_suggest(const char *name, const char *const *cands, size_t n_cands);

#endif
