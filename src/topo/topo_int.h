/* Internal layout of tl_topo, shared by the builder, generators and loaders. */
#ifndef TAILOR_TOPO_INT_H
#define TAILOR_TOPO_INT_H

#include "tailor/topo.h"

struct tl_topo {
    tl_node *nodes; /* (n_nodes) */
    tl_link *links; /* (n_links) */
    uint32_t n_nodes, n_links, cap_nodes, cap_links;
    int is_finished;

    /* Built by tl_topo_finish. */
    uint32_t *out_off, *out_chan; /* CSR: channels leaving node i are out_chan[out_off[i]..out_off[i+1]) */
    uint32_t *hosts, n_hosts;
    uint32_t *rack_off, *rack_hosts, n_racks; /* CSR of hosts per rack */
    uint32_t *pod_off, *pod_racks, n_pods;    /* CSR of racks per pod */
    uint32_t n_dcs;
};

#endif
