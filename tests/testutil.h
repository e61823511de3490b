/* Shared test helpers: temporary files and error-location checks.
 * Tests are cmocka programs under ctest (STYLE.md "Tests"). */
#ifndef TAILOR_TESTUTIL_H
#define TAILOR_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tailor/err.h"
#include "tailor/world.h"

/* Writes text to a fresh file under $TMPDIR (or /tmp) whose name ends in suffix
 * (e.g. ".json"); returns its path in a static-per-call buffer the caller frees. */
char *tu_write_temp(const char *text, const char *suffix);
/* A fresh path (not created) under the temp dir; caller frees. */
char *tu_temp_path(const char *suffix);
/* Reads a whole file into a malloc'd NUL-terminated buffer (NULL if missing). */
char *tu_read_file(const char *path, size_t *len);

/* Fails the test (printing name and the formatted error) unless err has the
 * given code and its formatted message contains every non-NULL needle. */
void tu_check_err(const char *name, const tl_err *err, int code, const char *needle1,
                  const char *needle2);

/* Builds a world from scenario JSON on one thread; fails the test, with the
 * error and its JSON path, when the scenario is refused. */
void tu_world_make(tl_world *w, const char *json);
/* A pktsim run of w with the scenario's plug-ins, CC and seed; fails the
 * test on error. */
struct tl_pktsim *tu_pktsim_make(const tl_world *w);

#endif
