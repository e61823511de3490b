/* Fuzzes m3 model files as tl_m3_create loads them (m3_model_load: the 64-byte
 * header, lengths and CRC-32, then metadata and XGBoost's bytes; docs/m3.md "Model
 * files"): damaged files, the checksum's remit. Crafted ones with a valid checksum
 * reach XGBoost, which trusts its trees' node indices: out of scope (fuzz_m3_ubj.c). */
#include <stdlib.h>

#include "fz.h"
#include "tailor/m3.h"
#include "tailor/world.h"

int fz_m3_model(const uint8_t *data, size_t n, tl_err *err)
{
    static tl_world w;
    static int is_built;
    if (!is_built) {
        static const char json[] =
            "{\"topology\": {\"type\": \"parking_lot\", \"hops\": 1, \"hosts_per_switch\": 2},"
            " \"workload\": {\"flows\": 10, \"classes\": [{\"sizes\": {\"dist\": \"fixed\","
            " \"mean_bytes\": 1000}, \"spatial\": {\"type\": \"uniform\"},"
            " \"load\": {\"max_link_load\": 0.5}}]}, \"transport\": {\"cc\": \"dctcp-rate\"}}";
        tl_err e;
        tl_err_clear(&e);
        if (tl_world_from_json(&w, json, 1, &e) != 0)
            abort();
        is_built = 1;
    }
    tl_m3_opts o;
    tl_m3_opts_default(&o);
    o.model_path = fz_temp_file(data, n, ".model");
    o.n_threads = 1;
    tl_m3 *s = tl_m3_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc, 1, &o, err);
    tl_m3_destroy(s);
    return s ? 0 : err->code;
}

FZ_ENTRY(fz_m3_model)
