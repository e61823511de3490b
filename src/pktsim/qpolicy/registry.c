/* The queue policies pktsim knows, by name. */
#include <string.h>

#include "../qpolicy.h"

static const tl_qpolicy_ops *const qps[] = {&tl_qpolicy_red, &tl_qpolicy_none};

const tl_qpolicy_ops *tl_qpolicy_find(const char *name)
{
    for (size_t i = 0; i < sizeof qps / sizeof *qps; i++)
        if (strcmp(qps[i]->name, name) == 0)
            return qps[i];
    return NULL;
}
