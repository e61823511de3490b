/* Positions of JSON values by path. jansson reports line:column only for
 * syntax errors; to point at a semantically wrong value we scan the (already
 * valid) text once and record where every value and member key starts. */
#ifndef TAILOR_JSONPOS_H
#define TAILOR_JSONPOS_H

#include <stddef.h>

typedef struct jsonpos_entry {
    char *path;         /* "workload.classes[0].load.max_link_load"; "" is the root */
    int line, col;      /* where the value starts (1-based) */
    int key_line, key_col; /* where its key starts, for object members; else = value */
} jsonpos_entry;

typedef struct jsonpos {
    jsonpos_entry *v;
    size_t n, cap;
} jsonpos;

/* Indexes text (which must be valid JSON). Returns 0, or -1 on allocation failure. */
int jsonpos_build(jsonpos *jp, const char *text);
void jsonpos_fini(jsonpos *jp);
/* Entry of path, or NULL. */
const jsonpos_entry *jsonpos_find(const jsonpos *jp, const char *path);

#endif
