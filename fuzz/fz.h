/* Shared by the libFuzzer harnesses (fuzz/fuzz_*.c) and their regression test
 * (tests/test_fuzz_regress.c): each harness is one function that feeds bytes to
 * one parser, checks the clean-error contract and frees what the parser built. */
#ifndef TAILOR_FZ_H
#define TAILOR_FZ_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"
#include "tailor/topo.h"

/* A harness: parses data[0..n), frees the result on success, returns the
 * parser's code (0 or a TL_E*) with err filled on failure. */
typedef int (*fz_target)(const uint8_t *data, size_t n, tl_err *err);

/* Writes data to this process's temporary file for the given suffix
 * ($TMPDIR or /tmp, "tailor-fuzz-<pid><suffix>", rewritten for every input)
 * and returns its path (static storage). Aborts if the file cannot be
 * written: that is the harness's failure, not the parser's. */
const char *fz_temp_file(const uint8_t *data, size_t n, const char *suffix);
/* data as a malloc'd NUL-terminated string (a NUL inside ends it early, as
 * for any C string the parser would be given). Aborts on allocation failure. */
char *fz_text(const uint8_t *data, size_t n);

/* The small topology the flow and traffic-matrix harnesses check ids
 * against: "fat_tree:k=4" (16 hosts 0..15, 20 switches 16..35), built once. */
const tl_topo *fz_topo(void);

/* Aborts (a crash to libFuzzer) unless rc and err keep the contract: 0, or a
 * TL_E* code equal to err->code with a message. */
void fz_check(int rc, const tl_err *err);

/* The libFuzzer entry point of a harness; the regression test compiles the
 * harnesses with FZ_NO_ENTRY and calls them by name. */
#ifdef FZ_NO_ENTRY
#define FZ_ENTRY(fn)
#else
#define FZ_ENTRY(fn)                                                                               \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);                                     \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)                                      \
    {                                                                                              \
        tl_err err;                                                                                \
        tl_err_clear(&err);                                                                        \
        fz_check(fn(data, n, &err), &err);                                                         \
        return 0;                                                                                  \
    }
#endif

#endif
