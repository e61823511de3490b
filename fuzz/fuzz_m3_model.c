/* Fuzzes m3 model files as tl_m3_create loads them (m3_model_load: the
 * 64-byte header, metadata JSON, XGBoost's UBJSON model; docs/m3.md "Model
 * files"). The file's CRC-32 guards against damage, not crafted bytes, so the
 * harness writes the right checksum into the header (unless padding byte 40
 * is 0xFF) to let the fuzzer past it, into the metadata and XGBoost. */
#include <stdlib.h>
#include <string.h>

#include "fz.h"
#include "tailor/m3.h"
#include "tailor/world.h"

/* The model file's checksum (src/m3/model.c): CRC-32 (IEEE) of the file with
 * its bytes 20..23 read as zeros. */
static uint32_t file_crc(const uint8_t *file, size_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc ^= i >= 20 && i < 24 ? 0 : file[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
    return ~crc;
}

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
    uint8_t *file = malloc(n ? n : 1);
    if (!file)
        abort();
    memcpy(file, data, n);
    if (n >= 64 && file[40] != 0xFF) {
        uint32_t crc = file_crc(file, n);
        for (int i = 0; i < 4; i++)
            file[20 + i] = (uint8_t)(crc >> (8 * i));
    }
    tl_m3_opts o;
    tl_m3_opts_default(&o);
    o.model_path = fz_temp_file(file, n, ".model");
    o.n_threads = 1;
    free(file);
    tl_m3 *s = tl_m3_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc, 1, &o, err);
    tl_m3_destroy(s);
    return s ? 0 : err->code;
}

FZ_ENTRY(fz_m3_model)
