/* The load balancers pktsim knows, by name. */
#include <string.h>

#include "../lb.h"

static const tl_lb_ops *const lbs[] = {&tl_lb_ecmp, &tl_lb_spray};

const tl_lb_ops *tl_lb_find(const char *name)
{
    for (size_t i = 0; i < sizeof lbs / sizeof *lbs; i++)
        if (strcmp(lbs[i]->name, name) == 0)
            return lbs[i];
    return NULL;
}
