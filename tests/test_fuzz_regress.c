/* Regression inputs found by the fuzzers (fuzz/README.md): each row feeds one
 * file of tests/fuzz_regress/<parser>/ to that parser's harness and checks
 * the clean error it must now return (code and a located message). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz.h"
#include "testutil.h"

int fz_scenario(const uint8_t *data, size_t n, tl_err *err);
int fz_flow_csv(const uint8_t *data, size_t n, tl_err *err);
int fz_flow_ns3(const uint8_t *data, size_t n, tl_err *err);
int fz_topo_ns3(const uint8_t *data, size_t n, tl_err *err);
int fz_topo_parsimon(const uint8_t *data, size_t n, tl_err *err);
int fz_cdf(const uint8_t *data, size_t n, tl_err *err);
int fz_matrix(const uint8_t *data, size_t n, tl_err *err);
int fz_topo_spec(const uint8_t *data, size_t n, tl_err *err);
int fz_tm(const uint8_t *data, size_t n, tl_err *err);
int fz_summary(const uint8_t *data, size_t n, tl_err *err);
int fz_slowdowns(const uint8_t *data, size_t n, tl_err *err);
int fz_m3_model(const uint8_t *data, size_t n, tl_err *err);
int fz_m3_ubj(const uint8_t *data, size_t n, tl_err *err);

typedef struct regress_case {
    const char *name;  /* the input's file name under tests/fuzz_regress/<dir>/ */
    const char *dir;   /* the parser: fuzz/fuzz_<dir>.c */
    fz_target run;
    int code;          /* the error it must return */
    const char *needle1, *needle2; /* in the formatted error (location, message) */
} regress_case;

static const regress_case cases[] = {
    /* line 1's count sized the flow array: 4*10^11 flows asked for 1.6 TB */
    {"huge-count.txt", "flow_ns3", fz_flow_ns3, TL_ERANGE, ".txt:1:1:",
     "expected 1..1000000000 flows on line 1, found 400000000100"},
    /* start_s * 1e12 overflowed llround: a negative start time */
    {"start-past-int64.txt", "flow_ns3", fz_flow_ns3, TL_ERANGE, ".txt:2:",
     "start_s 1e+07 is past"},
    /* "racks N" sized an N x N array before any row was read (80 GB) */
    {"huge-racks.txt", "matrix", fz_matrix, TL_EPARSE, ".txt:4:", "row 0: expected 100000"},
    /* 6*10^8 servers were within the old 2^31 limit: minutes and gigabytes */
    {"dcell-600M-servers.txt", "topo_spec", fz_topo_spec, TL_ERANGE, "k: ",
     "more than 4194304 servers"},
    /* a UBJSON string length past the end (checksum valid): XGBoost read beyond its buffer */
    {"ubj-string-past-end.model", "m3_model", fz_m3_model, TL_EPARSE,
     ".model: damaged XGBoost model bytes",
     "a length or count larger than the bytes that follow (at byte 1521 of the file)"},
};

static void fuzz_inputs_fail_cleanly(void **state)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const regress_case *c = &cases[i];
        if (!c->run)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/fuzz_regress/%s/%s", TL_TEST_DIR, c->dir, c->name);
        size_t n = 0;
        char *data = tu_read_file(path, &n);
        if (!data)
            fail_msg("[%s] cannot read %s", c->name, path);
        tl_err err;
        tl_err_clear(&err);
        int rc = c->run((const uint8_t *)data, n, &err);
        free(data);
        if (rc != c->code)
            fail_msg("[%s] expected code %d, got %d (%s)", c->name, c->code, rc, err.msg);
        tu_check_err(c->name, &err, c->code, c->needle1, c->needle2);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fuzz_inputs_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
