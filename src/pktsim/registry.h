/* The registries of pktsim's plug-ins (lb/, qpolicy/, transport/, tap/):
 * each is a table of pointers to const ops structs with a `name` member.
 * TL_PLUGIN_REGISTRY defines its two functions, so that adding a plug-in
 * stays its file plus one line in the table, and error messages list what
 * the table holds. */
#ifndef TAILOR_PKTSIM_REGISTRY_H
#define TAILOR_PKTSIM_REGISTRY_H

#include <stdio.h>
#include <string.h>

/* Defines `const type *prefix_find(const char *name)` (NULL if unknown) and
 * `void prefix_names(char *buf, size_t n)` ("a, b, c") over table. */
#define TL_PLUGIN_REGISTRY(type, prefix, table)                                       \
    const type *prefix##_find(const char *name)                                       \
    {                                                                                 \
        for (size_t i = 0; i < sizeof table / sizeof *table; i++)                     \
            if (strcmp(table[i]->name, name) == 0)                                    \
                return table[i];                                                      \
        return NULL;                                                                  \
    }                                                                                 \
    void prefix##_names(char *buf, size_t n)                                          \
    {                                                                                 \
        buf[0] = '\0';                                                                \
        for (size_t i = 0, len = 0; i < sizeof table / sizeof *table && len < n; i++) \
            len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "",        \
                                    table[i]->name);                                  \
    }

#endif
