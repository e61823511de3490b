/* Unit-suffixed quantities for scenario files and --set (see tailor/units.h). */
#include "tailor/units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    const char *suffix;
    double mult;
} unit;

/* Splits "<number>[space]<suffix>" and looks the suffix up (case-sensitive
 * first, so "ms" and "Ms" cannot be confused; then case-insensitive). */
static int parse(const char *s, const unit *units, size_t n_units, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v))
        return -1;
    while (*end == ' ')
        end++;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n_units; i++)
            if (pass == 0 ? strcmp(end, units[i].suffix) == 0
                          : strcasecmp(end, units[i].suffix) == 0) {
                *out = v * units[i].mult;
                return 0;
            }
    return -1;
}

int tl_units_parse_rate(const char *s, uint64_t *bps)
{
    static const unit u[] = {
        {"bps", 1},    {"b/s", 1},    {"Kbps", 1e3}, {"Kb/s", 1e3}, {"K", 1e3},
        {"Mbps", 1e6}, {"Mb/s", 1e6}, {"M", 1e6},    {"Gbps", 1e9}, {"Gb/s", 1e9},
        {"G", 1e9},    {"Tbps", 1e12}, {"Tb/s", 1e12}, {"T", 1e12},
    };
    double v;
    if (parse(s, u, sizeof u / sizeof *u, &v) != 0 || v < 0 || v > 1e18)
        return -1;
    *bps = (uint64_t)llround(v);
    return 0;
}

int tl_units_parse_time(const char *s, int64_t *ps)
{
    static const unit u[] = {{"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
    double v;
    if (parse(s, u, sizeof u / sizeof *u, &v) != 0 || fabs(v) > 9e18)
        return -1;
    *ps = (int64_t)llround(v);
    return 0;
}

int tl_units_parse_bytes(const char *s, uint64_t *bytes)
{
    static const unit u[] = {{"B", 1},   {"KB", 1e3},         {"MB", 1e6},
                             {"GB", 1e9}, {"KiB", 1024.0},     {"MiB", 1048576.0},
                             {"GiB", 1073741824.0}};
    double v;
    if (parse(s, u, sizeof u / sizeof *u, &v) != 0 || v < 0 || v > 1.8e19)
        return -1;
    *bytes = (uint64_t)llround(v);
    return 0;
}

char *tl_units_fmt_rate(uint64_t bps, char *buf, size_t n)
{
    static const unit u[] = {{"Tbps", 1e12}, {"Gbps", 1e9}, {"Mbps", 1e6}, {"Kbps", 1e3}};
    for (size_t i = 0; i < sizeof u / sizeof *u; i++) {
        uint64_t m = (uint64_t)u[i].mult;
        if (bps >= m && bps % m == 0) {
            snprintf(buf, n, "%llu%s", (unsigned long long)(bps / m), u[i].suffix);
            return buf;
        }
    }
    snprintf(buf, n, "%llubps", (unsigned long long)bps);
    return buf;
}

char *tl_units_fmt_time(int64_t ps, char *buf, size_t n)
{
    static const unit u[] = {{"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}};
    for (size_t i = 0; i < sizeof u / sizeof *u; i++) {
        int64_t m = (int64_t)u[i].mult;
        if (ps != 0 && ps % m == 0) {
            snprintf(buf, n, "%lld%s", (long long)(ps / m), u[i].suffix);
            return buf;
        }
    }
    snprintf(buf, n, "%lldps", (long long)ps);
    return buf;
}
