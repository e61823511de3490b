/* The transports pktsim knows, by name. */
#include <string.h>

#include "../transport.h"

static const tl_transport_ops *const tps[] = {&tl_transport_gbn, &tl_transport_stripe};

const tl_transport_ops *tl_transport_find(const char *name)
{
    for (size_t i = 0; i < sizeof tps / sizeof *tps; i++)
        if (strcmp(tps[i]->name, name) == 0)
            return tps[i];
    return NULL;
}
