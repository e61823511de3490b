/* The monitors pktsim knows, by name. */
#include <string.h>

#include "../tap.h"

static const tl_tap_ops *const taps[] = {&tl_tap_count};

const tl_tap_ops *tl_tap_find(const char *name)
{
    for (size_t i = 0; i < sizeof taps / sizeof *taps; i++)
        if (strcmp(taps[i]->name, name) == 0)
            return taps[i];
    return NULL;
}
