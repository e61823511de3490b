/* Training data for m3's model (m3.txt §5.1): one synthetic path sample per
 * line of DIR/samples.csv — its description, flowsim features and pktsim
 * ground truth — generated in parallel blocks and appended in index order,
 * so an interrupted run continues where it stopped and the file is the same
 * whatever the thread count or the interruptions. */
#include <errno.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "m3train/m3train_int.h"
#include "tailor/fanout.h"
#include "tailor/fileio.h"

/* The first line pins everything the samples depend on. */
static void header_line(char *buf, size_t n, uint64_t seed, const m3_synth_opts *o)
{
    char cfg[64];
    m3_config_tag(o, cfg, sizeof cfg);
    snprintf(buf, n,
             "# tailor m3 samples: schema %d, seed %llu, fg_flows %u, max_flows %u, cc %s, "
             "quantiles %d%s, labels %d",
             M3_FEATURE_SCHEMA, (unsigned long long)seed, o->fg_flows, o->max_flows,
             o->only_cc ? o->only_cc : "any", M3_N_Q, cfg, M3_LABELS_VERSION);
}

int m3_record_make(uint64_t seed, uint64_t index, const m3_synth_opts *o, m3_record *r,
                   tl_err *err)
{
    memset(r, 0, sizeof *r);
    m3_sample s;
    int rc = m3_synth_draw(&s, seed, index, o, err);
    if (rc)
        return rc;
    r->index = index;
    r->hops = s.hops;
    snprintf(r->cc, sizeof r->cc, "%s", s.cc);
    snprintf(r->size_kind, sizeof r->size_kind, "%s", s.size_kind);
    r->load = s.target_load, r->mean_bytes = s.mean_bytes, r->shape = s.size_shape;
    r->sigma = s.sigma;
    r->n_flows = s.w.n_flows, r->n_fg = s.w.n_fg;
    rc = m3_features(&s.w, &s.p, s.cc, &r->feat, err);
    rc = rc ? rc : m3_synth_truth(&s, r->truth, r->n_truth, err);
    m3_sample_fini(&s);
    return rc;
}

void m3_record_write(FILE *f, const m3_record *r)
{
    fprintf(f, "%llu,%d,%s,%s", (unsigned long long)r->index, r->hops, r->cc, r->size_kind);
    m3_put_num(f, r->load), m3_put_num(f, r->mean_bytes), m3_put_num(f, r->shape), m3_put_num(f, r->sigma);
    fprintf(f, ",%llu,%llu", (unsigned long long)r->n_flows, (unsigned long long)r->n_fg);
    for (int i = 0; i < M3_N_SHARED; i++)
        m3_put_num(f, r->feat.shared[i]);
    for (int b = 0; b < M3_N_OUT; b++) {
        fprintf(f, ",%u,%u,%u", r->feat.n_fg[b], r->n_truth[b], r->feat.n_ref[b]);
        for (int q = 0; q < M3_N_Q; q++)
            m3_put_num(f, r->feat.fs_q[b][q]);
        for (int q = 0; q < M3_N_Q; q++)
            m3_put_num(f, r->feat.ref_q[b][q]);
        for (int q = 0; q < M3_N_Q; q++)
            m3_put_num(f, r->truth[b][q]);
    }
    fputc('\n', f);
}

int m3_record_parse(char *line, const char *file, int lineno, m3_record *r, tl_err *err)
{
    memset(r, 0, sizeof *r);
    m3_fields fs = {line, file, lineno, 0};
    double v;
    int rc = m3_field_num(&fs, &v, err);
    r->index = (uint64_t)v;
    rc = rc ? rc : m3_field_num(&fs, &v, err);
    r->hops = (int)v;
    rc = rc ? rc : m3_field_str(&fs, r->cc, sizeof r->cc, err);
    rc = rc ? rc : m3_field_str(&fs, r->size_kind, sizeof r->size_kind, err);
    rc = rc ? rc : m3_field_num(&fs, &r->load, err);
    rc = rc ? rc : m3_field_num(&fs, &r->mean_bytes, err);
    rc = rc ? rc : m3_field_num(&fs, &r->shape, err);
    rc = rc ? rc : m3_field_num(&fs, &r->sigma, err);
    rc = rc ? rc : m3_field_num(&fs, &v, err);
    r->n_flows = (uint64_t)v;
    rc = rc ? rc : m3_field_num(&fs, &v, err);
    r->n_fg = (uint64_t)v;
    for (int i = 0; i < M3_N_SHARED && !rc; i++) {
        rc = m3_field_num(&fs, &v, err);
        r->feat.shared[i] = (float)v;
    }
    for (int b = 0; b < M3_N_OUT && !rc; b++) {
        rc = m3_field_num(&fs, &v, err);
        r->feat.n_fg[b] = (uint32_t)v;
        rc = rc ? rc : m3_field_num(&fs, &v, err);
        r->n_truth[b] = (uint32_t)v;
        rc = rc ? rc : m3_field_num(&fs, &v, err);
        r->feat.n_ref[b] = (uint32_t)v;
        for (int q = 0; q < M3_N_Q && !rc; q++)
            rc = m3_field_num(&fs, &r->feat.fs_q[b][q], err);
        for (int q = 0; q < M3_N_Q && !rc; q++)
            rc = m3_field_num(&fs, &r->feat.ref_q[b][q], err);
        for (int q = 0; q < M3_N_Q && !rc; q++)
            rc = m3_field_num(&fs, &r->truth[b][q], err);
    }
    if (!rc && fs.p)
        rc = tl_err_at(err, TL_EPARSE, file, lineno, 0, NULL,
                       "more fields than a schema-%d sample has (%d)", M3_FEATURE_SCHEMA, fs.col);
    return rc;
}

/* One block's samples as fan-out jobs: job k makes sample at + k. */
typedef struct record_job {
    uint64_t seed, at;
    const m3_synth_opts *o;
    m3_record *recs; /* (block) */
} record_job;

static int make_record_job(void *ctx, size_t k, void *local, tl_err *err)
{
    const record_job *c = ctx;
    return m3_record_make(c->seed, c->at + k, c->o, &c->recs[k], err);
}

int m3_gen_data(const char *dir, uint64_t seed, uint64_t n_samples, const m3_synth_opts *o,
                int n_threads, tl_progress *prog, uint64_t *n_new, tl_err *err)
{
    *n_new = 0;
    char path[4096], header[512];
    header_line(header, sizeof header, seed, o);
    long have = 0;
    FILE *f = m3_samples_open(dir, "samples.csv", header, 1, path, sizeof path, &have, err);
    if (!f)
        return err && err->code ? err->code : TL_EIO;
    int rc, nt = n_threads > 0 ? n_threads : omp_get_max_threads();
    uint32_t block = (uint32_t)(4 * nt);
    m3_record *recs = calloc(block, sizeof *recs);
    rc = !recs ? tl_err_nomem(err) : 0;
    record_job job = {seed, 0, o, recs};
    for (uint64_t at = (uint64_t)have; at < n_samples && !rc; at += block) {
        uint32_t nb = (uint32_t)(n_samples - at < block ? n_samples - at : block);
        job.at = at;
        tl_fanout fo = {.n_jobs = nb, .n_threads = nt, .run = make_record_job, .ctx = &job};
        size_t failed;
        rc = tl_fanout_run(&fo, &failed, err);
        for (uint32_t k = 0; k < failed; k++)
            m3_record_write(f, &recs[k]);
        rc = m3_samples_sync(f, path, rc, err);
        if (!rc)
            *n_new += nb;
        tl_progress_report(prog, "m3 samples", (double)(at + nb), (double)n_samples, "samples");
    }
    if (fclose(f) != 0 && !rc)
        rc = tl_err_at(err, TL_EIO, path, 0, 0, NULL, "write failed: %s", strerror(errno));
    free(recs);
    return rc;
}
