/* Bounds check of the XGBoost model bytes in an m3 model file, before XGBoost reads
 * them: XGBoost 1.7's UBJSON reader (src/common/json.cc, UBJReader) trusts every length
 * and count in its input, so crafted bytes behind a valid checksum made it read past its
 * buffer (found by fuzz/fuzz_m3_model.c). This walks the subset of UBJSON that reader
 * accepts, checking that every length fits; XGBoost then checks the meaning. */
#include "m3/model.h"

#include <string.h>

/* Nesting deeper than this is refused: XGBoost's models nest about 8 deep, and its
 * reader recurses once per level. */
#define MAX_DEPTH 64

typedef struct ubj {
    const unsigned char *b;
    size_t n, at;    /* bytes, their count, the cursor */
    const char *why; /* set on failure; at is then where */
} ubj;

static int bad(ubj *u, const char *why)
{
    u->why = why;
    return -1;
}

static int take(ubj *u, size_t k, const char *what)
{
    if (k > u->n - u->at)
        return bad(u, what);
    u->at += k;
    return 0;
}

/* A big-endian int64 count or length after its 'L' marker, 0..remaining/unit. */
static int count(ubj *u, size_t unit, uint64_t *out)
{
    if (u->at >= u->n || u->b[u->at] != 'L')
        return bad(u, "expected 'L' before a length");
    u->at++;
    if (u->n - u->at < 8)
        return bad(u, "a length runs past the end");
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | u->b[u->at + i];
    if (v > (uint64_t)INT64_MAX || v > (u->n - u->at - 8) / unit)
        return bad(u, "a length or count larger than the bytes that follow");
    u->at += 8;
    *out = v;
    return 0;
}

static int value(ubj *u, int depth);

/* A string body or object key: 'L' length, then the bytes. */
static int string(ubj *u)
{
    uint64_t len;
    return count(u, 1, &len) ? -1 : take(u, (size_t)len, "a string runs past the end");
}

static int array(ubj *u, int depth)
{
    uint64_t n;
    if (u->at < u->n && u->b[u->at] == '$') { /* typed: $ type # L n, then n raw items */
        u->at++;
        if (u->at >= u->n)
            return bad(u, "a typed array ends before its type");
        size_t size;
        switch (u->b[u->at]) {
        case 'U': size = 1; break;
        case 'd':
        case 'l': size = 4; break;
        case 'L': size = 8; break;
        default: return bad(u, "a typed array of a type XGBoost does not read");
        }
        u->at++;
        if (u->at >= u->n || u->b[u->at] != '#')
            return bad(u, "expected '#' after a typed array's type");
        u->at++;
        if (count(u, size, &n))
            return -1;
        return take(u, (size_t)n * size, "a typed array runs past the end");
    }
    if (u->at < u->n && u->b[u->at] == '#') { /* counted: # L n, then n values */
        u->at++;
        if (count(u, 1, &n))
            return -1;
        for (uint64_t i = 0; i < n; i++)
            if (value(u, depth + 1))
                return -1;
        return 0;
    }
    while (u->at < u->n && u->b[u->at] != ']')
        if (value(u, depth + 1))
            return -1;
    return take(u, 1, "an array without its ']'");
}

static int object(ubj *u, int depth)
{
    while (u->at < u->n && u->b[u->at] != '}')
        if (string(u) || value(u, depth + 1))
            return -1;
    return take(u, 1, "an object without its '}'");
}

static int value(ubj *u, int depth)
{
    if (depth > MAX_DEPTH)
        return bad(u, "nested too deeply");
    if (u->at >= u->n)
        return bad(u, "a value is missing at the end");
    switch (u->b[u->at++]) {
    case '{': return object(u, depth);
    case '[': return array(u, depth);
    case 'Z':
    case 'T':
    case 'F': return 0;
    case 'S': return string(u);
    case 'i':
    case 'U':
    case 'C': return take(u, 1, "a number runs past the end");
    case 'I': return take(u, 2, "a number runs past the end");
    case 'd':
    case 'l': return take(u, 4, "a number runs past the end");
    case 'L': return take(u, 8, "a number runs past the end");
    default: u->at--; return bad(u, "not a UBJSON value XGBoost reads");
    }
}

int m3_ubj_check(const unsigned char *b, size_t n, size_t *bad_at, const char **why)
{
    ubj u = {.b = b, .n = n};
    if (value(&u, 0) == 0 && u.at != n)
        bad(&u, "bytes after the model's value");
    if (!u.why)
        return 0;
    *bad_at = u.at;
    *why = u.why;
    return -1;
}
