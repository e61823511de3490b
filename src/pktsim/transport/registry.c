/* The transports pktsim knows, by name. */
#include "../registry.h"
#include "../transport.h"

static const tl_transport_ops *const tps[] = {&tl_transport_gbn, &tl_transport_stripe,
                                              &tl_transport_sack, &tl_transport_ec};

TL_PLUGIN_REGISTRY(tl_transport_ops, tl_transport, tps)
