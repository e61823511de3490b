/* Exact throughput (topology-throughput.txt §II-A): the maximum concurrent flow
 * LP in its source-aggregated arc form, solved by GLPK's simplex. Aggregating
 * by source is exact (flows of one source to many sinks need not be told
 * apart) and never larger than topobench's per-commodity form; unlike
 * topobench's path-length pruning (notes A1) nothing is restricted.
 *
 *   maximize t  subject to, for every source s and node v,
 *     sum_{a out of v} f_{s,a} - sum_{a into v} f_{s,a} = t D_s      (v = s, D_s = sum_w d(s,w))
 *                                                       = -t d(s,v)   (v a sink of s)
 *                                                       = 0           (otherwise)
 *   and for every arc a: sum_s f_{s,a} <= cap(a);  f >= 0, t >= 0.
 *
 * One conservation row of each source is implied by the others; it is kept
 * (GLPK's presolver removes it) so the rows read as the formulation. */
#include "tailor/throughput.h"

#include <glpk.h>
#include <setjmp.h>
#include <limits.h>
#include <stdio.h>

#include "throughput/throughput_int.h"
#include "tailor/memlimit.h"

/* GLPK indexes rows, columns and nonzeros with int: the LP must fit. */
static int lp_size(const tl_tput_net *net, const tl_tput_dem *dm, size_t *rows, size_t *cols,
                   size_t *nnz, tl_err *err)
{
    if (tl_tput_lp_size(net, dm, rows, cols, nnz))
        return tl_err_set(err, TL_ERANGE, "the exact LP would have %u sources x %u arcs "
                          "variables, more than GLPK can index; use tl_throughput_approx",
                          dm->n_src, net->n_arcs);
    return 0;
}

static const char *glpk_ret_name(int ret)
{
    switch (ret) {
    case GLP_EBADB: return "invalid initial basis";
    case GLP_ESING: return "singular basis";
    case GLP_ECOND: return "ill-conditioned basis";
    case GLP_EBOUND: return "invalid bounds";
    case GLP_EFAIL: return "solver failure";
    case GLP_EOBJLL: case GLP_EOBJUL: return "objective limit reached";
    case GLP_EITLIM: return "iteration limit";
    case GLP_ETMLIM: return "time limit";
    case GLP_ENOPFS: return "no primal feasible solution";
    case GLP_ENODFS: return "no dual feasible solution";
    default: return "unknown failure";
    }
}

static const char *glpk_status_name(int st)
{
    switch (st) {
    case GLP_OPT: return "optimal";
    case GLP_FEAS: return "feasible, not proven optimal";
    case GLP_INFEAS: return "infeasible";
    case GLP_NOFEAS: return "no feasible solution";
    case GLP_UNBND: return "unbounded";
    default: return "undefined";
    }
}

/* GLPK reports a failure it cannot return (too many columns, no memory) by
 * printing and calling abort(), unless an error hook is installed: the hook
 * jumps back here, and glp_free_env() then frees all of this thread's GLPK
 * memory, the problem object included. Everything the jump must free lives
 * in this heap context, which is not changed between setjmp and longjmp's
 * return (automatic variables changed in between would be indeterminate). */
typedef struct lp_ctx {
    jmp_buf jb;
    glp_prob *lp;
    int *ia, *ja;
    double *ar;
    char msg[256]; /* GLPK's last words before the failure */
} lp_ctx;

static void on_glpk_error(void *info) { longjmp(((lp_ctx *)info)->jb, 1); }

static int on_glpk_term(void *info, const char *s)
{
    lp_ctx *c = info;
    size_t n = strlen(c->msg);
    snprintf(c->msg + n, sizeof c->msg - n, "%s", s);
    for (char *p = c->msg; *p; p++)
        if (*p == '\n')
            *p = ' ';
    return 1; /* the library never prints (STYLE.md) */
}

/* GLPK's own bounds (glpapi01.c): rows and columns at most 1e8 each,
 * constraint coefficients at most 5e8 (glpapi02.c NNZ_MAX). */
#define GLPK_MAX_ROWS_COLS 100000000u
#define GLPK_MAX_NNZ 500000000u

/* Loads and solves the LP in cx's arrays. Its own function so that nothing
 * the GLPK error hook's longjmp returns to is a local changed after setjmp
 * (-Wclobbered): cx is a parameter, never assigned here. */
static int glpk_load_solve(lp_ctx *cx, const tl_tput_net *net, const tl_tput_dem *dm,
                           size_t rows, size_t cols, tl_tput *out, tl_err *err)
{
    glp_term_hook(on_glpk_term, cx);
    glp_error_hook(on_glpk_error, cx);
    if (setjmp(cx->jb)) {
        glp_error_hook(NULL, NULL);
        glp_term_hook(NULL, NULL);
        glp_free_env(); /* frees cx->lp with the rest of GLPK's state */
        cx->lp = NULL;
        return tl_err_set(err, TL_EINVAL,
                          "GLPK failed on the exact LP of %zu rows x %zu columns (%s); "
                          "--method approx solves it without GLPK",
                          rows, cols, cx->msg[0] ? cx->msg : "no message");
    }
    double d_max, c_max;
    tl_tput_lp_scales(net, dm, &d_max, &c_max);
    int *ia = cx->ia, *ja = cx->ja;
    double *ar = cx->ar;
    glp_prob *lp = cx->lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MAX);
    glp_add_rows(lp, (int)rows);
    glp_add_cols(lp, (int)cols);
    /* Rows: conservation of source i at node v is row i * n + v + 1; the
     * capacity row of arc a is n_src * n + a + 1. Columns: f_{i,a} is
     * i * n_arcs + a + 1; t is the last. */
    const int row_cap0 = (int)(dm->n_src * (size_t)net->n);
    const int col_t = (int)cols;
    for (int r = 1; r <= row_cap0; r++)
        glp_set_row_bnds(lp, r, GLP_FX, 0.0, 0.0);
    for (uint32_t a = 0; a < net->n_arcs; a++)
        glp_set_row_bnds(lp, row_cap0 + (int)a + 1, GLP_UP, 0.0, net->cap[a] / c_max);
    for (int c = 1; c < col_t; c++)
        glp_set_col_bnds(lp, c, GLP_LO, 0.0, 0.0);
    glp_set_col_bnds(lp, col_t, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(lp, col_t, 1.0);

    size_t k = 0;
    for (uint32_t i = 0; i < dm->n_src; i++) {
        int base_row = (int)(i * (size_t)net->n);
        int base_col = (int)(i * (size_t)net->n_arcs);
        for (uint32_t a = 0; a < net->n_arcs; a++) {
            int c = base_col + (int)a + 1;
            k++, ia[k] = base_row + (int)net->tail[a] + 1, ja[k] = c, ar[k] = 1.0;
            k++, ia[k] = base_row + (int)net->head[a] + 1, ja[k] = c, ar[k] = -1.0;
            k++, ia[k] = row_cap0 + (int)a + 1, ja[k] = c, ar[k] = 1.0;
        }
        /* out - in - t * (D_s at s, -d at sinks) = 0 */
        double d_src = 0;
        for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++) {
            double d = dm->d[j] / d_max;
            d_src += d;
            k++, ia[k] = base_row + (int)dm->dst[j] + 1, ja[k] = col_t, ar[k] = d;
        }
        k++, ia[k] = base_row + (int)dm->src[i] + 1, ja[k] = col_t, ar[k] = -d_src;
    }
    glp_load_matrix(lp, (int)k, ia, ja, ar);

    /* GLPK writes progress to stdout unless told not to; the library never
     * prints (STYLE.md), so terminal output is off for the call and restored. */
    int old_term = glp_term_out(GLP_OFF);
    glp_scale_prob(lp, GLP_SF_AUTO);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    int ret = glp_simplex(lp, &parm);
    int status = ret == 0 ? glp_get_status(lp) : GLP_UNDEF;
    glp_term_out(old_term);
    if (ret != 0 || status != GLP_OPT) {
        return tl_err_set(err, TL_EINVAL, "GLPK simplex did not reach an optimum (%s; status %s) "
                          "on an LP of %zu rows x %zu columns", ret ? glpk_ret_name(ret) : "ok",
                          glpk_status_name(status), rows, cols);
    }
    tl_tput_lp_result(out, glp_get_obj_val(lp), d_max, c_max, rows, cols,
                      (uint64_t)glp_get_it_cnt(lp));
    return 0;
}

static int exact_glpk(const tl_tput_net *net, const tl_tput_dem *dm, tl_tput *out, tl_err *err)
{
    int rc;
    lp_ctx *cx = NULL;
    size_t rows = 0, cols = 0, nnz = 0;
    rc = lp_size(net, dm, &rows, &cols, &nnz, err);
    if (rc != 0)
        goto done;
    if (rows > GLPK_MAX_ROWS_COLS || cols > GLPK_MAX_ROWS_COLS || nnz > GLPK_MAX_NNZ) {
        rc = tl_err_set(err, TL_ERANGE,
                        "the exact LP would have %zu rows, %zu columns and %zu nonzeros, more "
                        "than GLPK takes (1e8 rows or columns, 5e8 nonzeros); use the "
                        "approximation (--method approx), certified within --eps",
                        rows, cols, nnz);
        goto done;
    }
    /* ours: ia, ja, ar; GLPK's: a ~48-byte element per nonzero (twice while
     * scaling and presolving) and a few hundred bytes per row and column. */
    char what[200];
    snprintf(what, sizeof what,
             "the exact LP (%zu rows x %zu columns, %zu nonzeros; --method approx needs far "
             "less)",
             rows, cols, nnz);
    if ((rc = tl_mem_check((double)nnz * (16 + 96) + (double)(rows + cols) * 300, what, err)))
        goto done;

    if (!(cx = calloc(1, sizeof *cx))) {
        rc = tl_err_nomem(err);
        goto done;
    }
    cx->ia = malloc((nnz + 1) * sizeof *cx->ia);
    cx->ja = malloc((nnz + 1) * sizeof *cx->ja);
    cx->ar = malloc((nnz + 1) * sizeof *cx->ar);
    if (!cx->ia || !cx->ja || !cx->ar) {
        rc = tl_err_nomem(err);
        goto done;
    }
    rc = glpk_load_solve(cx, net, dm, rows, cols, out, err);
done:
    if (cx) {
        glp_error_hook(NULL, NULL);
        glp_term_hook(NULL, NULL);
        if (cx->lp)
            glp_delete_prob(cx->lp);
        free(cx->ia), free(cx->ja), free(cx->ar);
        free(cx);
    }
    return rc;
}

const char *const tl_lp_solver_names[] = {"glpk", "clp-dual", "clp-barrier", NULL};

/* The entry every solver shares: the net and demands prepared once, the
 * method named, the time taken. */
int tl_throughput_exact_with(const tl_tgraph *g, const tl_tm *tm, tl_lp_solver solver,
                             tl_tput *out, tl_err *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->method, sizeof out->method, "exact-lp (%s)", tl_lp_solver_names[solver]);
    double t0 = tl_wall_s();
    tl_tput_net net;
    tl_tput_dem dm;
    int rc = tl_tput_prepare(g, tm, &net, &dm, err);
    if (rc != 0)
        return rc;
    rc = solver == TL_LP_GLPK ? exact_glpk(&net, &dm, out, err)
                              : tl_lp_clp_solve(&net, &dm, solver, out, err);
    tl_tput_dem_fini(&dm);
    tl_tput_net_fini(&net);
    out->seconds = tl_wall_s() - t0;
    return rc;
}

/* CLP's barrier: the fastest of the three at every size measured, from 25
 * switches (0.25 s against GLPK's 0.33 s) to 100 (40 s; GLPK did not finish
 * 75 in 60 s), bench/README.md (throughput). */
int tl_throughput_exact(const tl_tgraph *g, const tl_tm *tm, tl_tput *out, tl_err *err)
{
    return tl_throughput_exact_with(g, tm, TL_LP_DEFAULT, out, err);
}
