/* The memory one input may ask for (DESIGN.md: bad input never crashes).
 * Builders of structures whose size comes from input (topologies, routing
 * tables, flow sets, LPs, traffic matrices) estimate their size first and
 * refuse, with the estimate in the message, what would not fit, instead of
 * growing to many GB and being killed. */
#ifndef TAILOR_MEMLIMIT_H
#define TAILOR_MEMLIMIT_H

#include <stdint.h>

#include "tailor/err.h"

/* The limit in bytes: $TAILOR_MAX_MEMORY when set (a size such as 8GB; the
 * CLI's --max-memory sets it), else the machine's physical memory. Read on
 * every call: the environment is the one setting, no state is kept here. */
uint64_t tl_mem_limit_bytes(void);

/* 0 if est_bytes fits the limit; else TL_ERANGE with "WHAT: about N GB
 * needed, more than the L GB ..." (what: "the routing tables of 251250000 nodes").
 * est_bytes is a double so that an estimate itself never overflows. */
int tl_mem_check(double est_bytes, const char *what, tl_err *err);

#endif
