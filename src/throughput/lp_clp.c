/* Exact throughput with COIN-OR CLP through its C interface (where
 * DBL_MAX is CLP's infinity, COIN_DBL_MAX in C++): the same
 * source-aggregated arc LP as lp_exact.c, built column-wise, solved by CLP's
 * dual simplex or its barrier (interior point, then crossover to a basis).
 * Beside GLPK because CLP's simplex is faster on the larger LPs
 * (bench/README.md, throughput); GLPK stays the default where it wins.
 *
 *   maximize t  subject to, for every source s and node v,
 *     out_s(v) - in_s(v) - t b_s(v) = 0   (b_s(s) = D_s, b_s(w) = -d(s, w) at a sink w)
 *     sum_s f_{s,a} <= cap(a),  f >= 0, t >= 0. */
#include "tailor/throughput.h"

#include <Clp_C_Interface.h>
#include <float.h>
#include <limits.h>
#include <stdio.h>

#include "tailor/memlimit.h"
#include "throughput/throughput_int.h"

static int solve_clp(Clp_Simplex *m, tl_lp_solver solver)
{
    return solver == TL_LP_CLP_BARRIER ? Clp_initialBarrierSolve(m) : Clp_initialDualSolve(m);
}

static const char *clp_status_name(int st)
{
    switch (st) {
    case 0: return "optimal";
    case 1: return "primal infeasible";
    case 2: return "dual infeasible";
    case 3: return "stopped on iterations or time";
    case 4: return "stopped on errors";
    default: return "unknown";
    }
}

int tl_lp_clp_solve(const tl_tput_net *net, const tl_tput_dem *dm, tl_lp_solver solver,
                    tl_tput *out, tl_err *err)
{
    int rc = 0;
    size_t n = net->n, rows = 0, cols = 0, nnz = 0;
    int over = tl_tput_lp_size(net, dm, &rows, &cols, &nnz);
    Clp_Simplex *m = NULL;
    CoinBigIndex *start = NULL;
    int *index = NULL;
    double *value = NULL, *collb = NULL, *colub = NULL, *obj = NULL, *rowlb = NULL, *rowub = NULL;
    if (over) {
        rc = tl_err_set(err, TL_ERANGE, "the exact LP would have %u sources x %u arcs variables, "
                        "more than CLP can index; use the approximation (--method approx)",
                        dm->n_src, net->n_arcs);
        goto done;
    }
    char what[200];
    snprintf(what, sizeof what, "the exact LP for CLP (%zu rows x %zu columns, %zu nonzeros; "
             "--method approx needs far less)", rows, cols, nnz);
    /* ours: the column arrays; CLP's: a row and a column copy of the matrix and its factors */
    if ((rc = tl_mem_check((double)nnz * 60 + (double)(rows + cols) * 200, what, err)))
        goto done;
    start = malloc((cols + 1) * sizeof *start);
    index = malloc(nnz * sizeof *index);
    value = malloc(nnz * sizeof *value);
    collb = calloc(cols, sizeof *collb);
    colub = malloc(cols * sizeof *colub);
    obj = calloc(cols, sizeof *obj);
    rowlb = malloc(rows * sizeof *rowlb);
    rowub = malloc(rows * sizeof *rowub);
    if (!start || !index || !value || !collb || !colub || !obj || !rowlb || !rowub) {
        rc = tl_err_nomem(err);
        goto done;
    }
    double d_max, c_max;
    tl_tput_lp_scales(net, dm, &d_max, &c_max);
    /* Rows: conservation of source i at node v is i * n + v; the capacity
     * row of arc a is n_src * n + a. Columns: f_{i,a} is i * n_arcs + a; t last. */
    const size_t row_cap0 = (size_t)dm->n_src * n;
    for (size_t r = 0; r < rows; r++) {
        rowlb[r] = r < row_cap0 ? 0 : -DBL_MAX;
        rowub[r] = r < row_cap0 ? 0 : net->cap[r - row_cap0] / c_max;
    }
    size_t k = 0, c = 0;
    for (uint32_t i = 0; i < dm->n_src; i++)
        for (uint32_t a = 0; a < net->n_arcs; a++, c++) {
            start[c] = (CoinBigIndex)k;
            size_t rt = (size_t)i * n + net->tail[a], rh = (size_t)i * n + net->head[a];
            /* CLP wants each column's rows in any order, without duplicates */
            index[k] = (int)rt, value[k++] = 1.0;
            index[k] = (int)rh, value[k++] = -1.0;
            index[k] = (int)(row_cap0 + a), value[k++] = 1.0;
            colub[c] = DBL_MAX;
        }
    start[c] = (CoinBigIndex)k;
    for (uint32_t i = 0; i < dm->n_src; i++) {
        double d_src = 0;
        for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++) {
            double d = dm->d[j] / d_max;
            d_src += d;
            index[k] = (int)((size_t)i * n + dm->dst[j]), value[k++] = d;
        }
        index[k] = (int)((size_t)i * n + dm->src[i]), value[k++] = -d_src;
    }
    colub[c] = DBL_MAX;
    obj[c] = 1.0;
    start[c + 1] = (CoinBigIndex)k;
    if (!(m = Clp_newModel())) {
        rc = tl_err_nomem(err);
        goto done;
    }
    Clp_setLogLevel(m, 0); /* the library never prints (STYLE.md) */
    Clp_loadProblem(m, (int)cols, (int)rows, start, index, value, collb, colub, obj, rowlb, rowub);
    Clp_setObjSense(m, -1); /* maximize */
    free(index), free(value), free(start), free(collb), free(colub), free(obj), free(rowlb),
        free(rowub);
    index = NULL, value = NULL, start = NULL, collb = colub = obj = rowlb = rowub = NULL;
    solve_clp(m, solver);
    int status = Clp_status(m);
    if (status != 0) {
        rc = tl_err_set(err, TL_EINVAL, "%s did not reach an optimum (%s) on an LP of %zu rows x "
                        "%zu columns", tl_lp_solver_names[solver], clp_status_name(status), rows,
                        cols);
        goto done;
    }
    tl_tput_lp_result(out, Clp_objectiveValue(m), d_max, c_max, rows, cols,
                      (uint64_t)Clp_numberIterations(m));
done:
    if (m)
        Clp_deleteModel(m);
    free(index), free(value), free(start), free(collb), free(colub), free(obj), free(rowlb),
        free(rowub);
    return rc;
}
