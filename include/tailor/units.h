/* Quantities with units in text ("10Gbps", "1us", "3KB"), for scenario files
 * and the CLI's --set. Decimal prefixes (K=1e3, M=1e6, G=1e9, T=1e12) except
 * the binary KiB/MiB/GiB. Functions return 0, or -1 when s is not of the form
 * "<number><optional space><unit>" with a known unit. */
#ifndef TAILOR_UNITS_H
#define TAILOR_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* bps, Kbps, Mbps, Gbps, Tbps; also "b/s" spellings and bare G/M/K. */
int tl_units_parse_rate(const char *s, uint64_t *bps);
/* ps, ns, us, ms, s. */
int tl_units_parse_time(const char *s, int64_t *ps);
/* B, KB, MB, GB, KiB, MiB, GiB. */
int tl_units_parse_bytes(const char *s, uint64_t *bytes);

/* "10Gbps", "1us", "3MiB": shortest exact spelling, for exports and reports. */
char *tl_units_fmt_rate(uint64_t bps, char *buf, size_t n);
char *tl_units_fmt_time(int64_t ps, char *buf, size_t n);

#endif
