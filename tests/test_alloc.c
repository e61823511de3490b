/* Allocation failure (STYLE.md "Tests": an allocator hook fails the Nth
 * allocation; each create and load runs for every N). This executable is
 * linked with GNU ld's --wrap for malloc, calloc, realloc, free, strdup,
 * aligned_alloc, getline, fopen and jansson's json_load{s,b,f}
 * (CMakeLists.txt), so those calls made by libtailor.a (and by this file)
 * land in the __wrap_ functions below, which count calls, fail the armed
 * one, and keep a table of live blocks; the library has no hook and pays
 * nothing. jansson's own allocations are routed here too
 * (json_set_alloc_funcs). Each case runs with the Nth counted call failing,
 * for N = 1, 2, ... until a run no longer reaches N (the count per case is
 * printed with TL_ALLOC_VERBOSE=1); every run that reached it must return
 * an error with code TL_ENOMEM, and the live blocks and bytes must be back
 * where they were before the case, so a leak fails the test even without
 * ASan's leak checker (`make test-asan` adds use-after-free and double-free
 * detection). A crash names the case and N. TL_ALLOC_ONLY=substring runs
 * the matching cases; TL_ALLOC_TRACE=1 prints the stack of each failed call.
 *
 * Counted: the calls above from libtailor.a and from jansson. fopen counts
 * as one allocation (its FILE), getline as one when it has no buffer yet
 * (later growth is libc's own realloc, tracked but not counted), and a
 * json_load{s,b,f} as one: jansson 2.14's parser is not safe when an
 * allocation fails inside it (its lexer drops a failed append and goes on
 * with inconsistent state, akheron/jansson#362: a SEGV in json_loads when
 * this test counted its allocations), so the load as a
 * whole fails the way jansson reports running out of memory, and the
 * allocations inside it are tracked but not counted.
 * Not counted: allocations inside GSL, igraph, GLPK, XGBoost, libgomp and
 * libc itself (qsort's scratch, stdio buffers): --wrap only redirects the
 * references of the objects being linked. GLPK and XGBoost do not return
 * allocation failures to their callers anyway (GLPK aborts in glp_alloc,
 * XGBoost throws).
 * Everything runs on one thread (omp_set_num_threads(1), n_threads = 1), so
 * the Nth allocation is the same in every run; code that only runs with
 * several threads (per-thread scratch of parallel loops) runs
 * single-threaded here.
 *
 * Covered (the cases table): the event heap, pool and quantile sketch;
 * tl_read_file and the JSON position index; parameters, presets and copies;
 * tl_scenario_parse and _load (CDF and matrix files, a file topology,
 * several classes, failed links, transport knobs, engine options) and
 * _build_topo; tl_world_from_json (topology, routes, load calibration and
 * generation for uniform, permutation, matrix, dc_mix, incast and
 * all-to-all classes with every arrival process); every topology generator,
 * the same-equipment graphs, tl_topo_from_spec and both file loaders;
 * routes (create, masked, rebuild); size distributions and matrices
 * (built-in and files); workload generation, link loads, summary, class
 * rate, flow paths; flow CSV and ns-3 loads; pktsim create and run under
 * every CC with a link failure and run-time control, and a run that grows
 * its event heap; flowsim (network and path modes, and a run that grows
 * its heap); Parsimon create and run, plain and clustered; m3 create, run,
 * summary, repredict and path table, with and without a model; every
 * engine through the engine interface (pktsim with a queue trace, m3
 * swept); the throughput graph, distances, every TM generator and TM files, the exact
 * and approximate solvers, relative throughput, bisection and sparsest
 * cut; summary build, load and save, compare build and save, slowdown
 * CDFs (load and save); and the writers of results, flows, topologies and
 * TMs (tl_afile: nothing left behind on failure; output identical to a
 * clean run's when an optional allocation failed).
 * Not covered: the m3 training pipeline (tl_m3_gen_data, tl_m3_train):
 * each run simulates synthetic scenarios with pktsim and trains XGBoost
 * (seconds even when small, times every N), and its allocations are
 * mostly XGBoost's, which are not counted. cli/ is not library code.
 * Functions that allocate nothing (tl_routes_path, tl_sizedist_param,
 * tl_params_set*, tl_pktsim_set_direct_*, tl_topo_set_failed, ...) need
 * no case. */
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "m3/m3_int.h"
#include "m3/model.h"
#include "m3train/m3train_int.h"
#include "tailor/cc.h"
#include "tailor/compare.h"
#include "tailor/engine.h"
#include "tailor/fileio.h"
#include "tailor/flowsim.h"
#include "tailor/heap.h"
#include "tailor/jsonerr.h"
#include "tailor/m3.h"
#include "tailor/params.h"
#include "tailor/parsimon.h"
#include "tailor/pktsim.h"
#include "tailor/pool.h"
#include "tailor/quantile.h"
#include "tailor/result.h"
#include "tailor/routing.h"
#include "tailor/sizedist.h"
#include "tailor/spec.h"
#include "tailor/throughput.h"
#include "tailor/topo.h"
#include "tailor/workload.h"
#include "tailor/world.h"
#include "testutil.h"

/* ======================== the allocator hook ======================== */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
char *__real_strdup(const char *s);
void *__real_aligned_alloc(size_t align, size_t n);
ssize_t __real_getline(char **line, size_t *cap, FILE *f);
FILE *__real_fopen(const char *path, const char *mode);

/* Live blocks: an open-addressing table of (pointer, bytes), linear probing
 * with backward-shift deletion, kept outside the counted allocator. A free
 * of a pointer not in the table (memory a shared library allocated, such
 * as igraph's) is passed through. */
typedef struct block {
    void *p;
    size_t bytes;
} block;

static struct {
    pthread_mutex_t lock;
    block *tab; /* (cap) */
    size_t cap, n_live, live_bytes;
    uint64_t n_calls; /* counted calls since arm */
    uint64_t fail_at; /* 0 = disarmed */
    int is_hit;       /* the armed call was reached */
    int is_paused;    /* inside a call whose allocations are not counted */
} hook = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t slot_of(const void *p, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15u;
    return (size_t)(h >> 20) & (cap - 1);
}

static void tab_put(void *p, size_t bytes);

static void hook_pause(int is_paused)
{
    pthread_mutex_lock(&hook.lock);
    hook.is_paused = is_paused;
    pthread_mutex_unlock(&hook.lock);
}

static void tab_grow(void)
{
    size_t old_cap = hook.cap;
    block *old = hook.tab;
    hook.cap = old_cap ? 2 * old_cap : 1 << 16;
    hook.tab = __real_calloc(hook.cap, sizeof *hook.tab);
    if (!hook.tab) {
        fprintf(stderr, "test_alloc: no memory for the block table\n");
        abort();
    }
    hook.n_live = hook.live_bytes = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].p)
            tab_put(old[i].p, old[i].bytes);
    __real_free(old);
}

static void tab_put(void *p, size_t bytes)
{
    if (2 * (hook.n_live + 1) > hook.cap)
        tab_grow();
    size_t i = slot_of(p, hook.cap);
    while (hook.tab[i].p)
        i = (i + 1) & (hook.cap - 1);
    hook.tab[i] = (block){p, bytes};
    hook.n_live++;
    hook.live_bytes += bytes;
}

/* Removes p; returns 1 if it was there. */
static int tab_del(void *p)
{
    if (!p || !hook.cap)
        return 0;
    size_t mask = hook.cap - 1, i = slot_of(p, hook.cap);
    while (hook.tab[i].p && hook.tab[i].p != p)
        i = (i + 1) & mask;
    if (!hook.tab[i].p)
        return 0;
    hook.n_live--;
    hook.live_bytes -= hook.tab[i].bytes;
    /* backward shift: move later members of the cluster into the hole when
     * their home slot does not lie strictly between the hole and them */
    size_t hole = i, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!hook.tab[j].p)
            break;
        size_t home = slot_of(hook.tab[j].p, hook.cap);
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            hook.tab[hole] = hook.tab[j];
            hole = j;
        }
    }
    hook.tab[hole] = (block){NULL, 0};
    return 1;
}

static int is_trace; /* TL_ALLOC_TRACE set: print the stack of each failed call */

/* Counts one allocating call; 1 if it is the one to fail. Lock held. */
static int should_fail(void)
{
    if (!hook.fail_at || hook.is_paused)
        return 0;
    if (++hook.n_calls != hook.fail_at)
        return 0;
    hook.is_hit = 1;
    if (is_trace) {
        void *pcs[32];
        int n = backtrace(pcs, 32);
        fprintf(stderr, "-- allocation %llu fails:\n", (unsigned long long)hook.fail_at);
        backtrace_symbols_fd(pcs, n, 2);
    }
    return 1;
}

void *__wrap_malloc(size_t n)
{
    pthread_mutex_lock(&hook.lock);
    void *p = NULL;
    if (!should_fail() && (p = __real_malloc(n)))
        tab_put(p, n);
    pthread_mutex_unlock(&hook.lock);
    if (!p)
        errno = ENOMEM;
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    pthread_mutex_lock(&hook.lock);
    void *p = NULL;
    if (!should_fail() && (p = __real_calloc(n, size)))
        tab_put(p, n * size);
    pthread_mutex_unlock(&hook.lock);
    if (!p)
        errno = ENOMEM;
    return p;
}

void *__wrap_realloc(void *old, size_t n)
{
    pthread_mutex_lock(&hook.lock);
    void *p = NULL;
    if (!should_fail()) {
        p = __real_realloc(old, n);
        if (p) {
            tab_del(old);
            tab_put(p, n);
        }
    }
    pthread_mutex_unlock(&hook.lock);
    if (!p)
        errno = ENOMEM;
    return p;
}

void __wrap_free(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&hook.lock);
    tab_del(p);
    __real_free(p);
    pthread_mutex_unlock(&hook.lock);
}

char *__wrap_strdup(const char *s)
{
    pthread_mutex_lock(&hook.lock);
    char *p = NULL;
    if (!should_fail() && (p = __real_strdup(s)))
        tab_put(p, strlen(s) + 1);
    pthread_mutex_unlock(&hook.lock);
    if (!p)
        errno = ENOMEM;
    return p;
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
    pthread_mutex_lock(&hook.lock);
    void *p = NULL;
    if (!should_fail() && (p = __real_aligned_alloc(align, n)))
        tab_put(p, n);
    pthread_mutex_unlock(&hook.lock);
    if (!p)
        errno = ENOMEM;
    return p;
}

/* Only a first call (no buffer yet) counts: it is the one that allocates
 * for sure. The buffer libc makes or grows is tracked as it comes back. */
ssize_t __wrap_getline(char **line, size_t *cap, FILE *f)
{
    pthread_mutex_lock(&hook.lock);
    int is_fail = !*line && should_fail();
    pthread_mutex_unlock(&hook.lock);
    if (is_fail) {
        errno = ENOMEM;
        return -1;
    }
    char *old = *line;
    ssize_t n = __real_getline(line, cap, f);
    if (*line != old) {
        pthread_mutex_lock(&hook.lock);
        tab_del(old);
        tab_put(*line, *cap);
        pthread_mutex_unlock(&hook.lock);
    }
    return n;
}

FILE *__wrap_fopen(const char *path, const char *mode)
{
    pthread_mutex_lock(&hook.lock);
    int is_fail = should_fail();
    pthread_mutex_unlock(&hook.lock);
    if (is_fail) {
        errno = ENOMEM;
        return NULL;
    }
    return __real_fopen(path, mode);
}

/* jansson 2.14's parser is not safe under allocation failure (see the top
 * of the file), so allocations inside json_loads, json_loadb and
 * json_loadf are tracked but not counted; instead the load as a whole
 * counts as one allocation and fails the way jansson reports running out
 * of memory (json_error_out_of_memory). */
json_t *__real_json_loads(const char *text, size_t flags, json_error_t *je);
json_t *__real_json_loadb(const char *buf, size_t n, size_t flags, json_error_t *je);
json_t *__real_json_loadf(FILE *f, size_t flags, json_error_t *je);

static int json_load_fails(json_error_t *je)
{
    pthread_mutex_lock(&hook.lock);
    int is_fail = should_fail();
    pthread_mutex_unlock(&hook.lock);
    if (!is_fail) {
        hook_pause(1);
        return 0;
    }
    if (je) {
        memset(je, 0, sizeof *je);
        je->line = je->column = je->position = -1;
        snprintf(je->text, sizeof je->text, "out of memory");
        je->text[JSON_ERROR_TEXT_LENGTH - 1] = (char)json_error_out_of_memory;
    }
    return 1;
}

json_t *__wrap_json_loads(const char *text, size_t flags, json_error_t *je)
{
    if (json_load_fails(je))
        return NULL;
    json_t *v = __real_json_loads(text, flags, je);
    hook_pause(0);
    return v;
}

json_t *__wrap_json_loadb(const char *buf, size_t n, size_t flags, json_error_t *je)
{
    if (json_load_fails(je))
        return NULL;
    json_t *v = __real_json_loadb(buf, n, flags, je);
    hook_pause(0);
    return v;
}

json_t *__wrap_json_loadf(FILE *f, size_t flags, json_error_t *je)
{
    if (json_load_fails(je))
        return NULL;
    json_t *v = __real_json_loadf(f, flags, je);
    hook_pause(0);
    return v;
}

static void arm(uint64_t fail_at)
{
    pthread_mutex_lock(&hook.lock);
    hook.n_calls = 0;
    hook.fail_at = fail_at;
    hook.is_hit = 0;
    pthread_mutex_unlock(&hook.lock);
}

/* Disarms; returns whether the armed call was reached. */
static int disarm(uint64_t *n_calls)
{
    pthread_mutex_lock(&hook.lock);
    int hit = hook.is_hit;
    if (n_calls)
        *n_calls = hook.n_calls;
    hook.fail_at = 0;
    hook.is_hit = 0;
    pthread_mutex_unlock(&hook.lock);
    return hit;
}

static void live(size_t *n, size_t *bytes)
{
    pthread_mutex_lock(&hook.lock);
    *n = hook.n_live;
    *bytes = hook.live_bytes;
    pthread_mutex_unlock(&hook.lock);
}

/* The case and N being run, for a crash report. */
static const char *volatile cur_case = "(none)";
static volatile uint64_t cur_n;

static void say_where(void)
{
    char buf[256];
    int k =
        snprintf(buf, sizeof buf, "test_alloc: crashed in case '%s' with allocation %llu failing\n",
                 cur_case, (unsigned long long)cur_n);
    if (k > 0 && write(2, buf, (size_t)k) < 0)
        return;
}

/* ASan calls this before its report; the sanitizers' death callback covers
 * UBSan (weak: absent from builds without sanitizers). */
void __asan_on_error(void);
void __asan_on_error(void) { say_where(); }
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/* cmocka installs its own signal handlers around a test; ours says where,
 * then hands the signal to the handler that was there before cmocka's
 * (ASan's, with its stack trace), by returning into the faulting
 * instruction or by raising the signal again. */
static struct sigaction old_segv, old_bus, old_abrt;

static void on_signal(int sig)
{
    say_where();
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    sigaction(SIGABRT, &old_abrt, NULL);
    if (sig == SIGABRT)
        raise(sig);
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
}

/* ======================== fixtures ======================== */

/* Small worlds: every N re-runs the whole case, so the inputs are tiny. */
#define LEAFSPINE_SMALL                                                                            \
    "{\"type\": \"leaf_spine\", \"leaves\": 2, \"spines\": 2, \"hosts_per_leaf\": 2, "             \
    "\"host_link_bps\": \"10Gbps\", \"fabric_link_bps\": \"10Gbps\"}"

static const char *const world_json =
    "{\"seed\": 3, \"topology\": " LEAFSPINE_SMALL ", "
    "\"workload\": {\"flows\": 24, \"calibration_samples\": 1000, \"classes\": ["
    "{\"name\": \"a\", \"sizes\": {\"dist\": \"exponential\", \"mean_bytes\": 20000}, "
    "\"spatial\": {\"type\": \"uniform\"}, \"load\": {\"max_link_load\": 0.4}}, "
    "{\"name\": \"b\", \"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 3000}, "
    "\"spatial\": {\"type\": \"permutation\"}, \"load\": {\"max_link_load\": 0.2}}]}, "
    "\"transport\": {\"cc\": \"dctcp\"}}";

/* 1,100 flows at once: more pending events than the simulators' initial
 * event heaps hold (1,024), so their runs grow the heap (tl_heap_push). */
static const char *const wide_json =
    "{\"seed\": 4, \"topology\": " LEAFSPINE_SMALL ", "
    "\"workload\": {\"flows\": 1100, \"classes\": [{\"sizes\": {\"dist\": \"fixed\", "
    "\"mean_bytes\": 500}, \"spatial\": {\"type\": \"uniform\"}, \"arrival\": {\"process\": "
    "\"simultaneous\"}}]}}";

#define N_WIDE_PATH 1100 /* flows of the flowsim case that grows its heap */

/* Parsing and building: one scenario per branch of the parser worth its own
 * allocations (CDF and matrix files, file topologies, several classes,
 * failed links, transport knobs and presets, engine options). */
static const char *const scenario_cdf_json =
    "{\"name\": \"cdf\", \"seed\": 1, \"topology\": {\"type\": \"leaf_spine\", \"leaves\": 2, "
    "\"spines\": 2, \"hosts_per_leaf\": 2, \"failed_links\": [5]}, "
    "\"workload\": {\"flows\": 10, \"calibration_samples\": 1000, \"classes\": "
    "[{\"name\": \"web\", \"sizes\": {\"cdf\": "
    "\"webserver\"}, \"spatial\": {\"type\": \"uniform\"}, \"arrival\": {\"process\": "
    "\"lognormal\", \"sigma\": 2}, \"load\": {\"max_link_load\": 0.3}}]}, "
    "\"transport\": {\"cc\": \"dcqcn\", \"nic\": {\"mtu_bytes\": \"4KB\"}, "
    "\"switch\": {\"buffer_bytes\": \"12MB\"}}, "
    "\"engine\": {\"name\": \"parsimon\", \"threads\": 1, \"cluster\": true, \"bucket_min\": 10}}";

static const char *const scenario_matrix_json =
    "{\"seed\": 2, \"topology\": {\"type\": \"fabric\", \"pods\": 2, \"racks_per_pod\": 16, "
    "\"hosts_per_rack\": 1, \"planes\": 1, \"oversubscription\": 2}, "
    "\"workload\": {\"flows\": 12, \"classes\": [{\"sizes\": {\"dist\": \"lognormal\", "
    "\"mean_bytes\": 5000, \"shape\": 1}, \"spatial\": {\"type\": \"matrix\", \"matrix\": "
    "\"B\"}, \"load\": {\"flows_per_s\": 1e6}}]}, "
    "\"engine\": {\"name\": \"m3\", \"paths\": 7, \"no_model\": true}}";

static const char *const scenario_twodc_json =
    "{\"topology\": {\"type\": \"two_dc\", \"k\": 4, \"core_border_links\": 1, "
    "\"inter_dc_links\": 2}, \"workload\": {\"flows\": 10, \"duration_ns\": 1e9, \"classes\": ["
    "{\"name\": \"in\", \"sizes\": {\"dist\": \"pareto\", \"mean_bytes\": 9000, \"shape\": 1.5}, "
    "\"spatial\": {\"type\": \"dc_mix\", \"intra_fraction\": 1.0}, \"load\": {\"offered_bps\": "
    "\"1Gbps\"}}, {\"name\": \"out\", \"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 1000}, "
    "\"spatial\": {\"type\": \"dc_mix\", \"intra_fraction\": 0.0}, \"arrival\": {\"process\": "
    "\"simultaneous\"}, \"flows\": 3}]}, \"transport\": {\"cc\": \"hpcc\"}}";

static const char *const scenario_incast_json =
    "{\"topology\": {\"type\": \"parking_lot\", \"hops\": 2, \"hosts_per_switch\": 2}, "
    "\"workload\": {\"flows\": 6, \"classes\": [{\"sizes\": {\"dist\": \"gaussian\", "
    "\"mean_bytes\": 4000, \"shape\": 100}, \"spatial\": {\"type\": \"incast\", \"senders\": 3, "
    "\"destination\": 0}, \"arrival\": {\"process\": \"simultaneous\"}, "
    "\"flows\": 3}, {\"sizes\": {\"dist\": "
    "\"fixed\", \"mean_bytes\": 100}, \"spatial\": {\"type\": \"all_to_all\"}, \"arrival\": "
    "{\"process\": \"simultaneous\"}, \"flows\": 3}]}, \"transport\": {\"cc\": \"timely\"}}";

typedef struct fixture {
    tl_world w;                 /* world_json */
    tl_world wide;              /* wide_json */
    tl_fs_path_flow *wide_path; /* (N_WIDE_PATH) */
    tl_tgraph g;                /* of a small fat tree */
    tl_tm tm;                   /* all-to-all on g */
    tl_topo *ft;                /* k=4 fat tree */
    tl_summary sum;             /* of w's flows with made-up FCTs */
    tl_flow_result *res;        /* (w.flows.n) */
    char *topo_parsimon, *topo_ns3, *flows_csv, *flows_ns3, *sizes_txt, *matrix_txt, *tm_txt,
        *summary_json, *fct_csv, *scenario_file, *scenario_filetopo, *out_path, *model,
        *compare_json, *fct_ns3, *tm_saved, *cdf_csv;
} fixture;

static fixture fx;

/* ======================== cases ======================== */

/* Each case builds, uses and frees: a return of 0 means every step worked. */

static int c_heap(tl_err *err)
{
    tl_heap h;
    if (tl_heap_init(&h, 4, err))
        return err->code;
    for (int i = 0; i < 40; i++)
        if (!tl_heap_push(&h, 40 - i, (uint32_t)i, 0, 0)) {
            tl_heap_fini(&h);
            return tl_err_nomem(err);
        }
    tl_heap_fini(&h);
    return 0;
}

static int c_pool(tl_err *err)
{
    tl_pool p;
    if (tl_pool_init(&p, 24, 4, 64, err))
        return err->code;
    tl_pool_fini(&p);
    return 0;
}

static int c_qsketch(tl_err *err)
{
    tl_qsketch a, b;
    if (tl_qsketch_init(&a, 1, 1e6, 0.01, err))
        return err->code;
    if (tl_qsketch_init(&b, 1, 1e6, 0.01, err)) {
        tl_qsketch_fini(&a);
        return err->code;
    }
    for (int i = 1; i < 100; i++)
        tl_qsketch_add(&b, i);
    int rc = tl_qsketch_merge(&a, &b, err);
    tl_qsketch_fini(&a);
    tl_qsketch_fini(&b);
    return rc;
}

static int c_read_file(tl_err *err)
{
    char *t = tl_read_file(fx.sizes_txt, NULL, err);
    if (!t)
        return err->code;
    free(t);
    return 0;
}

static int c_json_ctx(tl_err *err)
{
    tl_json_ctx c;
    int rc = tl_json_ctx_init(&c, "x.json", scenario_cdf_json, err);
    tl_json_ctx_fini(&c);
    return rc;
}

static int c_params(tl_err *err)
{
    tl_params p, q;
    if (tl_params_init(&p, err))
        return err->code;
    int rc = tl_params_apply_preset(&p, "dcqcn.nvidia-default", err);
    if (!rc)
        rc = tl_params_set_assign(&p, "nic.mtu_bytes=4KB", err);
    if (!rc && !(rc = tl_params_copy(&q, &p, err)))
        tl_params_fini(&q);
    tl_params_fini(&p);
    return rc;
}

static int parse(const char *json, tl_err *err)
{
    tl_scenario sc;
    int rc = tl_scenario_parse(&sc, json, "<test>", NULL, err);
    tl_scenario_fini(&sc);
    return rc;
}

static int c_parse_cdf(tl_err *err) { return parse(scenario_cdf_json, err); }
static int c_parse_matrix(tl_err *err) { return parse(scenario_matrix_json, err); }
static int c_parse_twodc(tl_err *err) { return parse(scenario_twodc_json, err); }
static int c_parse_incast(tl_err *err) { return parse(scenario_incast_json, err); }
static int c_parse_default(tl_err *err) { return parse(tl_scenario_default_json(), err); }

static int c_scenario_load(tl_err *err)
{
    tl_scenario sc;
    int rc = tl_scenario_load(&sc, fx.scenario_file, err);
    tl_scenario_fini(&sc);
    return rc;
}

static int c_scenario_load_filetopo(tl_err *err)
{
    tl_scenario sc;
    int rc = tl_scenario_load(&sc, fx.scenario_filetopo, err);
    if (!rc) {
        tl_topo *t = tl_scenario_build_topo(&sc, err);
        if (!t)
            rc = err->code;
        tl_topo_destroy(t);
    }
    tl_scenario_fini(&sc);
    return rc;
}

static int world(const char *json, tl_err *err)
{
    tl_world w;
    int rc = tl_world_from_json(&w, json, 1, err);
    tl_world_fini(&w);
    return rc;
}

static int c_world_small(tl_err *err) { return world(world_json, err); }
static int c_world_cdf(tl_err *err) { return world(scenario_cdf_json, err); }
static int c_world_matrix(tl_err *err) { return world(scenario_matrix_json, err); }
static int c_world_twodc(tl_err *err) { return world(scenario_twodc_json, err); }
static int c_world_incast(tl_err *err) { return world(scenario_incast_json, err); }

static int topo_done(tl_topo *t, tl_err *err)
{
    if (!t)
        return err->code;
    tl_topo_destroy(t);
    return 0;
}

static int c_topo_fabric(tl_err *err)
{
    tl_fabric_params p = {
        .pods = 2, .racks_per_pod = 2, .hosts_per_rack = 2, .planes = 2, .spines_per_plane = 2};
    return topo_done(tl_topo_fabric(&p, err), err);
}

static int c_topo_fattree(tl_err *err)
{
    tl_fattree_params p = {.k = 4};
    return topo_done(tl_topo_fattree(&p, err), err);
}

static int c_topo_leafspine(tl_err *err)
{
    tl_leafspine_params p = {.leaves = 3, .spines = 2, .hosts_per_leaf = 2};
    return topo_done(tl_topo_leafspine(&p, err), err);
}

static int c_topo_parking(tl_err *err)
{
    tl_parking_params p = {.hops = 3, .hosts_per_switch = 2};
    return topo_done(tl_topo_parking_lot(&p, err), err);
}

static int c_topo_twodc(tl_err *err)
{
    tl_twodc_params p = {.k = 4, .core_border_links = 1, .inter_dc_links = 2};
    return topo_done(tl_topo_two_dc(&p, err), err);
}

static int c_topo_jellyfish(tl_err *err)
{
    return topo_done(tl_topo_jellyfish(12, 3, 1, 5, 0, err), err);
}

static int c_topo_hypercube(tl_err *err) { return topo_done(tl_topo_hypercube(3, 1, 0, err), err); }

static int c_topo_flatfly(tl_err *err)
{
    return topo_done(tl_topo_flattened_butterfly(3, 2, 1, 0, err), err);
}

static int c_topo_hyperx(tl_err *err)
{
    const uint32_t sizes[2] = {2, 3};
    return topo_done(tl_topo_hyperx(sizes, 2, 2, 1, 0, err), err);
}

static int c_topo_dragonfly(tl_err *err)
{
    return topo_done(tl_topo_dragonfly(2, 1, 1, 0, err), err);
}

static int c_topo_slimfly(tl_err *err) { return topo_done(tl_topo_slimfly(5, 1, 0, err), err); }
static int c_topo_bcube(tl_err *err) { return topo_done(tl_topo_bcube(2, 1, 0, err), err); }
static int c_topo_dcell(tl_err *err) { return topo_done(tl_topo_dcell(2, 1, 0, err), err); }
static int c_topo_longhop(tl_err *err) { return topo_done(tl_topo_longhop(3, 1, 0, err), err); }

static int c_topo_same_equipment(tl_err *err)
{
    return topo_done(tl_topo_same_equipment(fx.ft, 3, err), err);
}

static int c_topo_same_equipment_spread(tl_err *err)
{
    return topo_done(tl_topo_same_equipment_spread(fx.ft, 3, err), err);
}

static int c_topo_from_spec(tl_err *err)
{
    return topo_done(tl_topo_from_spec("hyperx:sizes=2x2,multiplicity=1,servers=1", 1, err), err);
}

static int c_topo_load_parsimon(tl_err *err)
{
    return topo_done(tl_topo_load_parsimon(fx.topo_parsimon, err), err);
}

static int c_topo_load_ns3(tl_err *err)
{
    return topo_done(tl_topo_load_ns3(fx.topo_ns3, err), err);
}

static int c_routes(tl_err *err)
{
    tl_routes *r = tl_routes_create(fx.ft, 1, err);
    if (!r)
        return err->code;
    int rc = tl_routes_rebuild(r, err);
    tl_routes_destroy(r);
    return rc;
}

static int c_routes_masked(tl_err *err)
{
    uint8_t down[64] = {0};
    down[20] = 1;
    tl_routes *r = tl_routes_create_masked(fx.ft, 1, down, err);
    if (!r)
        return err->code;
    tl_routes_destroy(r);
    return 0;
}

static int c_sizedist_load(tl_err *err)
{
    tl_sizedist d, e;
    if (tl_sizedist_load(&d, "webserver", err))
        return err->code;
    int rc = tl_sizedist_copy(&e, &d, err);
    if (!rc)
        tl_sizedist_fini(&e);
    tl_sizedist_fini(&d);
    if (!rc && !(rc = tl_sizedist_load(&d, fx.sizes_txt, err)))
        tl_sizedist_fini(&d);
    return rc;
}

static int c_matrix_load(tl_err *err)
{
    tl_matrix m;
    if (tl_matrix_load(&m, "B", err))
        return err->code;
    tl_matrix_fini(&m);
    if (tl_matrix_load(&m, fx.matrix_txt, err))
        return err->code;
    tl_matrix_fini(&m);
    return 0;
}

static int c_workload_generate(tl_err *err)
{
    tl_flows f;
    tl_flows_init(&f);
    int rc = tl_workload_generate(&fx.w.sc.workload, fx.w.topo, fx.w.routes, 7, 1, &f, NULL, err);
    tl_flows_fini(&f);
    return rc;
}

static int c_workload_loads(tl_err *err)
{
    const tl_flows *f = &fx.w.flows;
    double loads[256], mean[2] = {20000, 3000};
    tl_workload_summary s;
    int rc = tl_workload_link_loads(f, fx.w.routes, 1, mean, loads, err);
    if (!rc)
        rc = tl_workload_summarize(f, fx.w.routes, 1, mean, &s, err);
    double rate;
    if (!rc)
        rc = tl_workload_class_rate(&fx.w.sc.workload, 0, fx.w.topo, fx.w.routes, 1, 1, &rate, err);
    return rc;
}

static int c_flow_paths(tl_err *err)
{
    tl_flow_paths fp;
    int rc = tl_flow_paths_build(&fp, fx.w.routes, &fx.w.flows, err);
    if (!rc)
        tl_flow_paths_fini(&fp);
    return rc;
}

static int c_flows_load_csv(tl_err *err)
{
    tl_flows f;
    tl_flows_init(&f);
    int rc = tl_flows_load_csv(&f, fx.flows_csv, fx.w.topo, err);
    tl_flows_fini(&f);
    return rc;
}

static int c_flows_load_ns3(tl_err *err)
{
    tl_flows f;
    tl_flows_init(&f);
    int rc = tl_flows_load_ns3(&f, fx.flows_ns3, fx.w.topo, err);
    tl_flows_fini(&f);
    return rc;
}

/* The run-time control of a closed loop (paraleon.txt): change a knob. */
static int control(void *ctx, tl_pktsim *s, int64_t now_ps)
{
    (void)ctx;
    return tl_pktsim_set_param(s, "switch.buffer_bytes", 4e6 + (double)(now_ps % 1000), NULL);
}

static int c_pktsim_one(const tl_cc_desc *cc, tl_err *err)
{
    tl_world *w = &fx.w;
    tl_params p;
    if (tl_params_copy(&p, &w->sc.params, err))
        return err->code;
    const char *preset = cc->default_preset;
    int rc = preset ? tl_params_apply_preset(&p, preset, err) : 0;
    tl_pktsim *s =
        rc ? NULL : tl_pktsim_create(w->topo, w->routes, &w->flows, &p, cc->name, 1, err);
    if (!rc && !s)
        rc = err->code;
    if (!rc)
        rc = tl_pktsim_fail_link(s, 5, 20000000, err);
    if (!rc)
        rc = tl_pktsim_set_control(s, 10000000, control, NULL, err);
    if (!rc)
        rc = tl_pktsim_run(s, 0, NULL, err);
    tl_pktsim_destroy(s);
    tl_params_fini(&p);
    return rc;
}

/* Every CC pktsim implements, in registry order: the first failure ends the case. */
static int c_pktsim(tl_err *err)
{
    int rc = 0;
    for (size_t i = 0; i < tl_cc_count() && !rc; i++)
        if (tl_cc_get(i)->ops)
            rc = c_pktsim_one(tl_cc_get(i), err);
    return rc;
}

static int c_flowsim(tl_err *err)
{
    tl_world *w = &fx.w;
    tl_flowsim *s = tl_flowsim_create(w->topo, w->routes, &w->flows, &w->sc.params, err);
    if (!s)
        return err->code;
    int rc = tl_flowsim_run(s, NULL, err);
    tl_flowsim_destroy(s);
    return rc;
}

static int c_pktsim_heap(tl_err *err)
{
    tl_world *w = &fx.wide;
    tl_pktsim *s = tl_pktsim_create(w->topo, w->routes, &w->flows, &w->sc.params, "dctcp", 1, err);
    if (!s)
        return err->code;
    int rc = tl_pktsim_run(s, 0, NULL, err);
    tl_pktsim_destroy(s);
    return rc;
}

/* The plug-ins: two subflows per flow, sprayed packets (paths interned as
 * they appear), a queue policy per port class, a tap on every port. */
static int c_pktsim_plugins(tl_err *err)
{
    tl_world *w = &fx.w;
    tl_pktsim_opts o = {.transport = "stripe", .lb = "spray", .qpolicy = {[TL_PORT_DC] = "none"}};
    tl_pktsim *s = tl_pktsim_create_opts(w->topo, w->routes, &w->flows, &w->sc.params, &o, 1, err);
    if (!s)
        return err->code;
    uint32_t n = 2 * tl_topo_n_links(w->topo);
    uint32_t *chans = malloc(n * sizeof *chans);
    int rc = chans ? 0 : tl_err_nomem(err);
    for (uint32_t c = 0; !rc && c < n; c++)
        chans[c] = c;
    if (!rc && tl_pktsim_add_tap(s, "count", chans, n, 10000000, err) < 0)
        rc = err->code;
    free(chans);
    if (!rc)
        rc = tl_pktsim_run(s, 0, NULL, err);
    tl_pktsim_destroy(s);
    return rc;
}

/* 1,100 flows, each held to 1 Mb/s by its own access link on a 100 Gb/s
 * path: none couples with another (no refill work), and all 1,100
 * completions are pending at once. */
static int c_flowsim_heap(tl_err *err)
{
    const tl_fs_link link = {100000000000, 1000000};
    tl_flowsim *s =
        tl_flowsim_create_path(&link, 1, fx.wide_path, N_WIDE_PATH, &fx.w.sc.params, err);
    if (!s)
        return err->code;
    int rc = tl_flowsim_run(s, NULL, err);
    tl_flowsim_destroy(s);
    return rc;
}

static int c_flowsim_path(tl_err *err)
{
    const tl_fs_link links[3] = {
        {10000000000, 1000000}, {40000000000, 1000000}, {10000000000, 1000000}};
    tl_fs_path_flow flows[12];
    for (int i = 0; i < 12; i++)
        flows[i] = (tl_fs_path_flow){.size_bytes = 1000 + 3000 * (uint64_t)i,
                                     .start_ps = 100000 * i,
                                     .first = (uint16_t)(i % 3),
                                     .last = 2,
                                     .src = {i % 2 ? 10000000000 : 0, 1000000}};
    tl_flowsim *s = tl_flowsim_create_path(links, 3, flows, 12, &fx.w.sc.params, err);
    if (!s)
        return err->code;
    int rc = tl_flowsim_run(s, NULL, err);
    tl_flowsim_destroy(s);
    return rc;
}

static int parsimon(int is_cluster, tl_err *err)
{
    tl_world *w = &fx.w;
    tl_parsimon_opts o;
    tl_parsimon_opts_default(&o);
    o.n_threads = 1;
    o.bucket_min = 4;
    o.is_cluster = is_cluster;
    tl_parsimon *s =
        tl_parsimon_create(w->topo, w->routes, &w->flows, &w->sc.params, w->sc.cc, 1, &o, err);
    if (!s)
        return err->code;
    int rc = tl_parsimon_run(s, NULL, err);
    tl_parsimon_destroy(s);
    return rc;
}

static int c_parsimon(tl_err *err) { return parsimon(0, err); }
static int c_parsimon_cluster(tl_err *err) { return parsimon(1, err); }

/* The model: a tiny one of the fixture's, for speed (XGBoost's load is not
 * counted, but runs once per N); its metadata names dctcp-rate and
 * calibration shifts. */
static int m3(int is_no_model, tl_err *err)
{
    tl_world *w = &fx.w;
    tl_m3_opts o;
    tl_m3_opts_default(&o);
    o.n_threads = 1;
    o.n_paths = 4;
    o.is_no_model = is_no_model;
    o.is_keep_workloads = o.is_keep_reference = 1;
    o.model_path = fx.model;
    tl_m3 *s = tl_m3_create(w->topo, w->routes, &w->flows, &w->sc.params, "dctcp-rate", 1, &o, err);
    if (!s)
        return err->code;
    int rc = tl_m3_run(s, NULL, err);
    tl_summary sum = {0};
    if (!rc)
        rc = tl_m3_summary(s, &sum, err);
    if (!rc)
        rc = tl_m3_repredict(s, &fx.w.sc.params, "dctcp-rate", err);
    if (!rc && !(rc = tl_m3_write_paths(s, fx.out_path, err)))
        unlink(fx.out_path);
    tl_summary_fini(&sum);
    tl_m3_destroy(s);
    return rc;
}

static int c_m3_no_model(tl_err *err) { return m3(1, err); }
static int c_m3_model(tl_err *err) { return m3(0, err); }

/* The engine interface (tailor/engine.h): one registered engine, created,
 * run and summarized through it, with its run record; pktsim with its queue
 * trace, m3 without a model, swept (what a repredict keeps) and repredicted.
 * The world's engine keys are set to one thread and few samples here. */
static int engine(const char *name, tl_err *err)
{
    tl_world *w = &fx.w;
    const tl_engine_ops *ops = tl_engine_find(name, err);
    if (!ops)
        return err->code;
    static const char *const swept[] = {"switch.kmin_bytes_per_gbps", "nic.mtu_bytes"};
    tl_engine_opts o;
    tl_engine_opts_init(&o);
    o.is_no_model = 1;
    o.n_paths = 4;
    o.swept = swept;
    o.n_swept = 2;
    o.trace_path = fx.out_path;
    o.trace_interval_us = 5;
    tl_engine_spec keep = w->sc.engine;
    w->sc.engine.n_threads = 1;
    w->sc.engine.bucket_min = 4;
    tl_engine *e = tl_engine_create(ops, w, &o, err);
    int rc = e ? tl_engine_run(e, NULL, err) : err->code;
    tl_summary sum = {0};
    if (!rc)
        rc = tl_engine_summary(e, &sum, err);
    if (!rc) {
        tl_run_info run;
        tl_engine_run_info(e, &run);
    }
    if (!rc && tl_engine_can_repredict(ops))
        rc = tl_engine_repredict(e, &w->sc.params, w->sc.cc, err);
    tl_summary_fini(&sum);
    tl_engine_destroy(e);
    w->sc.engine = keep;
    unlink(fx.out_path);
    return rc;
}

static int c_engine_pktsim(tl_err *err) { return engine("pktsim", err); }
static int c_engine_flowsim(tl_err *err) { return engine("flowsim", err); }
static int c_engine_parsimon(tl_err *err) { return engine("parsimon", err); }
static int c_engine_m3(tl_err *err) { return engine("m3", err); }

static int c_tgraph(tl_err *err)
{
    tl_tgraph g;
    if (tl_tgraph_from_topo(&g, fx.ft, 0, err))
        return err->code;
    uint16_t *d = tl_tgraph_distances(&g, err);
    tl_tgraph_fini(&g);
    if (!d)
        return err->code;
    free(d);
    return 0;
}

static int tm_kind(tl_tm_kind kind, double param, tl_err *err)
{
    tl_tm tm = {0};
    int rc = tl_tm_make(&fx.g, kind, param, 1, &tm, err);
    tl_tm_fini(&tm);
    return rc;
}

static int c_tm_all_to_all(tl_err *err) { return tm_kind(TL_TM_ALL_TO_ALL, 0, err); }
static int c_tm_random_matching(tl_err *err) { return tm_kind(TL_TM_RANDOM_MATCHING, 0, err); }
static int c_tm_longest_matching(tl_err *err) { return tm_kind(TL_TM_LONGEST_MATCHING, 0, err); }
static int c_tm_kodialam(tl_err *err) { return tm_kind(TL_TM_KODIALAM, 0, err); }
static int c_tm_skewed(tl_err *err) { return tm_kind(TL_TM_SKEWED, 0.2, err); }

static int c_tm_load(tl_err *err)
{
    tl_tm tm = {0};
    int rc = tl_tm_load(&fx.g, fx.tm_txt, &tm, err);
    tl_tm_fini(&tm);
    return rc;
}

static int c_tput_exact(tl_err *err)
{
    tl_tput o;
    return tl_throughput_exact(&fx.g, &fx.tm, &o, err);
}

static int c_tput_approx(tl_err *err)
{
    tl_tput o;
    return tl_throughput_approx(&fx.g, &fx.tm, 0.1, &o, err);
}

static int c_tput_relative(tl_err *err)
{
    tl_rel_tput o;
    return tl_relative_throughput(fx.ft, TL_TM_RANDOM_MATCHING, 0, 0, 0.2, 0, 2, 1, &o, err);
}

static int c_bisection(tl_err *err)
{
    tl_cut c = {0};
    int rc = tl_bisection_bandwidth(&fx.g, &c, err);
    tl_cut_fini(&c);
    return rc;
}

static int c_sparsest(tl_err *err)
{
    tl_cut c = {0};
    int rc = tl_sparsest_cut(&fx.g, &fx.tm, &c, err);
    tl_cut_fini(&c);
    return rc;
}

static int c_summary_build(tl_err *err)
{
    tl_summary s;
    int rc = tl_summary_build(&s, "pktsim", &fx.w.flows, fx.res, err);
    tl_summary_fini(&s);
    return rc;
}

static int c_summary_load(tl_err *err)
{
    tl_summary s = {0};
    int rc = tl_summary_load_json(&s, fx.summary_json, err);
    tl_summary_fini(&s);
    return rc;
}

static int c_compare(tl_err *err)
{
    tl_summary s = {0};
    tl_compare c = {0};
    int rc = tl_summary_load_json(&s, fx.summary_json, err);
    if (!rc)
        rc = tl_compare_build(&fx.sum, &s, &c, err);
    tl_compare_fini(&c);
    tl_summary_fini(&s);
    return rc;
}

static int c_slowdowns_load(tl_err *err)
{
    tl_slowdowns s = {0};
    int rc = tl_slowdowns_load_csv(&s, fx.fct_csv, err);
    tl_slowdowns_fini(&s);
    return rc;
}

/* Writers: a failed one leaves neither the file nor its temporary
 * (tl_afile); one that succeeds wrote the same bytes as a clean run did
 * (jansson's dump absorbs a few failed allocations of its own). */
static int check_written(int rc, const char *want_path, tl_err *err)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", fx.out_path, (long)getpid());
    if (access(tmp, F_OK) == 0)
        return tl_err_set(err, TL_EINVAL, "the temporary %s was left behind", tmp);
    if (rc) {
        if (access(fx.out_path, F_OK) == 0)
            return tl_err_set(err, TL_EINVAL, "a failed write left %s", fx.out_path);
        return rc;
    }
    char *got = tu_read_file(fx.out_path, NULL), *want = tu_read_file(want_path, NULL);
    int same = got && want && strcmp(got, want) == 0;
    free(got);
    free(want);
    if (!same && getenv("TL_ALLOC_TRACE"))
        fprintf(stderr, "%s differs from %s\n", fx.out_path, want_path),
            rename(fx.out_path, "/tmp/alloc-diff.out");
    else
        unlink(fx.out_path);
    return same ? 0 : tl_err_set(err, TL_EINVAL, "the output differs from a clean run's");
}

static int written(int rc, const char *want_path, tl_err *err)
{
    hook_pause(1);
    rc = check_written(rc, want_path, err);
    hook_pause(0);
    return rc;
}

static int c_summary_save(tl_err *err)
{
    return written(tl_summary_save_json(&fx.sum, fx.out_path, err), fx.summary_json, err);
}

static int c_compare_save(tl_err *err)
{
    tl_compare c = {0};
    int rc = tl_compare_build(&fx.sum, &fx.sum, &c, err);
    if (!rc)
        rc = written(tl_compare_save_json(&c, "a", "b", fx.out_path, err), fx.compare_json, err);
    tl_compare_fini(&c);
    return rc;
}

static int c_result_save_csv(tl_err *err)
{
    return written(tl_result_save_csv(&fx.w.flows, fx.res, fx.out_path, err), fx.fct_csv, err);
}

static int c_topo_save_parsimon(tl_err *err)
{
    return written(tl_topo_save_parsimon(fx.w.topo, fx.out_path, err), fx.topo_parsimon, err);
}

static int c_topo_save_ns3(tl_err *err)
{
    return written(tl_topo_save_ns3(fx.w.topo, fx.out_path, err), fx.topo_ns3, err);
}

static int c_flows_save_csv(tl_err *err)
{
    return written(tl_flows_save_csv(&fx.w.flows, fx.out_path, err), fx.flows_csv, err);
}

static int c_flows_save_ns3(tl_err *err)
{
    return written(tl_flows_save_ns3(&fx.w.flows, fx.out_path, 0, err), fx.flows_ns3, err);
}

static int c_result_save_ns3(tl_err *err)
{
    return written(tl_result_save_ns3(&fx.w.flows, fx.res, fx.out_path, err), fx.fct_ns3, err);
}

static int c_tm_save(tl_err *err)
{
    return written(tl_tm_save(&fx.tm, fx.out_path, err), fx.tm_saved, err);
}

static int c_cdf_save(tl_err *err)
{
    tl_slowdowns sd = {0};
    int rc = tl_slowdowns_load_csv(&sd, fx.fct_csv, err);
    tl_cdf_side sides[2] = {{.sd = &sd, .label = "pktsim"}, {.pts = fx.sum.all, .label = "m3"}};
    if (!rc)
        rc = written(tl_cdf_save_csv(sides, 16, fx.out_path, err), fx.cdf_csv, err);
    tl_slowdowns_fini(&sd);
    return rc;
}

typedef struct alloc_case {
    const char *name;
    int (*run)(tl_err *err);
    /* The run may succeed although the armed allocation failed, when its
     * output is checked to be a clean run's: the failing call was an
     * optional one (tl_afile_open_buffered's large stdio buffer falls back
     * to the default buffering) or one jansson's dump absorbs. */
    int may_absorb;
} alloc_case;

static const alloc_case cases[] = {
    {"core/heap", c_heap, 0},
    {"core/pool", c_pool, 0},
    {"core/qsketch", c_qsketch, 0},
    {"core/read_file", c_read_file, 0},
    {"core/json_ctx", c_json_ctx, 0},
    {"spec/params", c_params, 0},
    {"spec/parse cdf+failed+knobs", c_parse_cdf, 0},
    {"spec/parse matrix", c_parse_matrix, 0},
    {"spec/parse two_dc", c_parse_twodc, 0},
    {"spec/parse incast+all_to_all", c_parse_incast, 0},
    {"spec/parse default", c_parse_default, 0},
    {"spec/load", c_scenario_load, 0},
    {"spec/load file topology+build", c_scenario_load_filetopo, 0},
    {"world/small", c_world_small, 0},
    {"world/cdf", c_world_cdf, 0},
    {"world/matrix", c_world_matrix, 0},
    {"world/two_dc", c_world_twodc, 0},
    {"world/incast", c_world_incast, 0},
    {"topo/fabric", c_topo_fabric, 0},
    {"topo/fattree", c_topo_fattree, 0},
    {"topo/leafspine", c_topo_leafspine, 0},
    {"topo/parking_lot", c_topo_parking, 0},
    {"topo/two_dc", c_topo_twodc, 0},
    {"topo/jellyfish", c_topo_jellyfish, 0},
    {"topo/hypercube", c_topo_hypercube, 0},
    {"topo/flattened_butterfly", c_topo_flatfly, 0},
    {"topo/hyperx", c_topo_hyperx, 0},
    {"topo/dragonfly", c_topo_dragonfly, 0},
    {"topo/slimfly", c_topo_slimfly, 0},
    {"topo/bcube", c_topo_bcube, 0},
    {"topo/dcell", c_topo_dcell, 0},
    {"topo/longhop", c_topo_longhop, 0},
    {"topo/same_equipment", c_topo_same_equipment, 0},
    {"topo/same_equipment_spread", c_topo_same_equipment_spread, 0},
    {"topo/from_spec", c_topo_from_spec, 0},
    {"topo/load_parsimon", c_topo_load_parsimon, 0},
    {"topo/load_ns3", c_topo_load_ns3, 0},
    {"routing/create+rebuild", c_routes, 0},
    {"routing/create_masked", c_routes_masked, 0},
    {"workload/sizedist_load+copy", c_sizedist_load, 0},
    {"workload/matrix_load", c_matrix_load, 0},
    {"workload/generate", c_workload_generate, 0},
    {"workload/link_loads+summarize+class_rate", c_workload_loads, 0},
    {"workload/flow_paths", c_flow_paths, 0},
    {"workload/load_csv", c_flows_load_csv, 0},
    {"workload/load_ns3", c_flows_load_ns3, 0},
    {"pktsim/every registered cc", c_pktsim, 0},
    {"pktsim/heap growth", c_pktsim_heap, 0},
    {"pktsim/plug-ins", c_pktsim_plugins, 0},
    {"flowsim/network", c_flowsim, 0},
    {"flowsim/heap growth", c_flowsim_heap, 0},
    {"flowsim/path", c_flowsim_path, 0},
    {"parsimon/create+run", c_parsimon, 0},
    {"parsimon/clustered", c_parsimon_cluster, 0},
    {"m3/no model", c_m3_no_model, 0},
    {"m3/model", c_m3_model, 0},
    {"engine/pktsim+trace", c_engine_pktsim, 0},
    {"engine/flowsim", c_engine_flowsim, 0},
    {"engine/parsimon", c_engine_parsimon, 0},
    {"engine/m3 swept", c_engine_m3, 0},
    {"throughput/tgraph+distances", c_tgraph, 0},
    {"throughput/tm all-to-all", c_tm_all_to_all, 0},
    {"throughput/tm random matching", c_tm_random_matching, 0},
    {"throughput/tm longest matching", c_tm_longest_matching, 0},
    {"throughput/tm kodialam", c_tm_kodialam, 0},
    {"throughput/tm skewed", c_tm_skewed, 0},
    {"throughput/tm load", c_tm_load, 0},
    {"throughput/exact", c_tput_exact, 0},
    {"throughput/approx", c_tput_approx, 0},
    {"throughput/relative", c_tput_relative, 0},
    {"throughput/bisection", c_bisection, 0},
    {"throughput/sparsest cut", c_sparsest, 0},
    {"report/summary_build", c_summary_build, 0},
    {"report/summary_load", c_summary_load, 0},
    {"report/compare_build", c_compare, 0},
    {"report/slowdowns_load", c_slowdowns_load, 0},
    {"report/summary_save", c_summary_save, 0},
    {"report/compare_save", c_compare_save, 0},
    {"report/result_save_csv", c_result_save_csv, 1},
    {"topo/save_parsimon", c_topo_save_parsimon, 1},
    {"topo/save_ns3", c_topo_save_ns3, 1},
    {"workload/save_csv", c_flows_save_csv, 1},
    {"workload/save_ns3", c_flows_save_ns3, 1},
    {"report/result_save_ns3", c_result_save_ns3, 1},
    {"report/cdf_save_csv", c_cdf_save, 1},
    {"throughput/tm save", c_tm_save, 1},
};

/* ======================== runner ======================== */

static void fixture_make(void)
{
    tl_err err;
    tl_err_clear(&err);
    tu_world_make(&fx.w, world_json);
    tu_world_make(&fx.wide, wide_json);
    fx.wide_path = calloc(N_WIDE_PATH, sizeof *fx.wide_path);
    assert_non_null(fx.wide_path);
    for (int i = 0; i < N_WIDE_PATH; i++)
        fx.wide_path[i] = (tl_fs_path_flow){
            .size_bytes = 1000 + (uint64_t)i, .start_ps = i, .src = {1000000, 1000000}};
    /* the heap cases do grow the heaps */
    tl_pktsim *ps = tl_pktsim_create(fx.wide.topo, fx.wide.routes, &fx.wide.flows,
                                     &fx.wide.sc.params, "dctcp", 1, &err);
    assert_non_null(ps);
    assert_int_equal(tl_pktsim_run(ps, 0, NULL, &err), 0);
    tl_pktsim_stats pst;
    tl_pktsim_get_stats(ps, &pst);
    assert_true(pst.max_pending_events > 1024);
    tl_pktsim_destroy(ps);
    const tl_fs_link link = {100000000000, 1000000};
    tl_flowsim *fs =
        tl_flowsim_create_path(&link, 1, fx.wide_path, N_WIDE_PATH, &fx.w.sc.params, &err);
    assert_non_null(fs);
    assert_int_equal(tl_flowsim_run(fs, NULL, &err), 0);
    tl_flowsim_stats fst;
    tl_flowsim_get_stats(fs, &fst);
    assert_true(fst.max_active_flows > 1024 && fst.links_refilled == 0);
    tl_flowsim_destroy(fs);
    tl_fattree_params ftp = {.k = 4};
    fx.ft = tl_topo_fattree(&ftp, &err);
    assert_non_null(fx.ft);
    assert_int_equal(tl_tgraph_from_topo(&fx.g, fx.ft, 0, &err), 0);
    assert_int_equal(tl_tm_all_to_all(&fx.g, &fx.tm, &err), 0);

    fx.res = calloc(fx.w.flows.n, sizeof *fx.res);
    assert_non_null(fx.res);
    for (size_t i = 0; i < fx.w.flows.n; i++) {
        fx.res[i].ideal_ps = 1000000 + 1000 * (int64_t)i;
        fx.res[i].fct_ps = i == 3 ? -1 : fx.res[i].ideal_ps * (int64_t)(1 + i % 5);
    }
    assert_int_equal(tl_summary_build(&fx.sum, "pktsim", &fx.w.flows, fx.res, &err), 0);

    fx.topo_parsimon = tu_temp_path(".json");
    fx.topo_ns3 = tu_temp_path(".txt");
    fx.flows_csv = tu_temp_path(".csv");
    fx.flows_ns3 = tu_temp_path(".txt");
    fx.summary_json = tu_temp_path(".json");
    fx.fct_csv = tu_temp_path(".csv");
    fx.out_path = tu_temp_path(".out");
    assert_int_equal(tl_topo_save_parsimon(fx.w.topo, fx.topo_parsimon, &err), 0);
    assert_int_equal(tl_topo_save_ns3(fx.w.topo, fx.topo_ns3, &err), 0);
    assert_int_equal(tl_flows_save_csv(&fx.w.flows, fx.flows_csv, &err), 0);
    assert_int_equal(tl_flows_save_ns3(&fx.w.flows, fx.flows_ns3, 0, &err), 0);
    assert_int_equal(tl_summary_save_json(&fx.sum, fx.summary_json, &err), 0);
    assert_int_equal(tl_result_save_csv(&fx.w.flows, fx.res, fx.fct_csv, &err), 0);
    tl_compare cmp;
    fx.compare_json = tu_temp_path(".json");
    assert_int_equal(tl_compare_build(&fx.sum, &fx.sum, &cmp, &err), 0);
    assert_int_equal(tl_compare_save_json(&cmp, "a", "b", fx.compare_json, &err), 0);
    tl_compare_fini(&cmp);
    fx.fct_ns3 = tu_temp_path(".txt");
    fx.tm_saved = tu_temp_path(".txt");
    fx.cdf_csv = tu_temp_path(".csv");
    assert_int_equal(tl_result_save_ns3(&fx.w.flows, fx.res, fx.fct_ns3, &err), 0);
    assert_int_equal(tl_tm_save(&fx.tm, fx.tm_saved, &err), 0);
    tl_slowdowns sd = {0};
    assert_int_equal(tl_slowdowns_load_csv(&sd, fx.fct_csv, &err), 0);
    tl_cdf_side sides[2] = {{.sd = &sd, .label = "pktsim"}, {.pts = fx.sum.all, .label = "m3"}};
    assert_int_equal(tl_cdf_save_csv(sides, 16, fx.cdf_csv, &err), 0);
    tl_slowdowns_fini(&sd);
    fx.sizes_txt = tu_write_temp("# test CDF\n100 0\n1000 50\n\n20000 90\n100000 100\n", ".txt");
    const char *matrix = "# tailor rack matrix v1\nracks 4\npods 2\npod 0 racks 0-1\n"
                         "pod 1 racks 2-3\n0 1 2 3\n4 0 5 6\n7 8 0 9\n1 1 1 0\n";
    fx.matrix_txt = tu_write_temp(matrix, ".txt");
    fx.tm_txt = tu_write_temp("# src dst demand\n0 5 1\n1 6 0.5\n7 2 0.25\n", ".txt");
    fx.scenario_file = tu_write_temp(scenario_matrix_json, ".json");
    char json[2048];
    snprintf(json, sizeof json,
             "{\"topology\": {\"type\": \"file\", \"format\": \"parsimon\", \"path\": \"%s\", "
             "\"failed_links\": [6]}, "
             "\"workload\": {\"flows\": 5, \"classes\": [{\"sizes\": {\"cdf\": \"%s\"}, "
             "\"spatial\": {\"type\": \"uniform\"}, \"load\": {\"max_link_load\": 0.3}}]}}",
             fx.topo_parsimon, fx.sizes_txt);
    fx.scenario_filetopo = tu_write_temp(json, ".json");

    m3_dataset d;
    assert_int_equal(m3_dataset_init(&d, M3_N_FEATURES, &err), 0);
    tl_rng r;
    tl_rng_init(&r, 1, "test-alloc-model", 0);
    for (int i = 0; i < 200; i++) {
        float row[M3_N_FEATURES];
        for (int j = 0; j < M3_N_FEATURES; j++)
            row[j] = (float)tl_rng_uniform(&r);
        assert_int_equal(m3_dataset_append(&d, row, 1 + row[0], &err), 0);
    }
    m3_train_opts o;
    m3_train_opts_default(&o);
    o.n_trees = 2, o.max_depth = 2, o.n_threads = 1;
    m3_model *m = m3_model_train(&d, NULL, &o, NULL, &err);
    assert_non_null(m);
    char meta[1024] = "{\"ccs\": \"dctcp-rate\", \"shift\": [0";
    for (int i = 1; i < M3_N_OUT * M3_N_Q; i++)
        strcat(meta, ", 0.01");
    strcat(meta, "]}");
    fx.model = tu_temp_path(".model");
    assert_int_equal(m3_model_save(m, fx.model, M3_FEATURE_SCHEMA, meta, &err), 0);
    m3_model_destroy(m);
    m3_dataset_fini(&d);
}

static void fixture_free(void)
{
    char *files[] = {
        fx.topo_parsimon,     fx.topo_ns3, fx.flows_csv,    fx.flows_ns3,    fx.sizes_txt,
        fx.matrix_txt,        fx.tm_txt,   fx.summary_json, fx.fct_csv,      fx.scenario_file,
        fx.scenario_filetopo, fx.out_path, fx.model,        fx.compare_json, fx.fct_ns3,
        fx.tm_saved,          fx.cdf_csv};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        unlink(files[i]);
        free(files[i]);
    }
    tl_summary_fini(&fx.sum);
    free(fx.res);
    tl_tm_fini(&fx.tm);
    tl_tgraph_fini(&fx.g);
    tl_topo_destroy(fx.ft);
    tl_world_fini(&fx.w);
    tl_world_fini(&fx.wide);
    free(fx.wide_path);
}

/* Runs one case for N = 1, 2, ...; returns the number of failures and the
 * N values exercised in *n_runs. */
static int run_case(const alloc_case *c, uint64_t *n_runs)
{
    int n_bad = 0;
    cur_case = c->name;
    for (uint64_t n = 1;; n++) {
        size_t n0, b0, n1, b1;
        live(&n0, &b0);
        tl_err err;
        tl_err_clear(&err);
        cur_n = n;
        arm(n);
        int rc = c->run(&err);
        uint64_t n_calls;
        int hit = disarm(&n_calls);
        live(&n1, &b1);
        if (n1 != n0 || b1 != b0) {
            fprintf(stderr, "[%s] N=%llu: %zd blocks, %zd bytes leaked (rc %d: %s)\n", c->name,
                    (unsigned long long)n, (ssize_t)(n1 - n0), (ssize_t)(b1 - b0), rc, err.msg);
            n_bad++;
        }
        if (!hit) {
            if (rc != 0) {
                fprintf(stderr, "[%s] fails without an injected failure: rc %d: %s\n", c->name, rc,
                        err.msg);
                n_bad++;
            }
            *n_runs = n - 1;
            break;
        }
        if (rc == 0 && !c->may_absorb) {
            fprintf(stderr, "[%s] N=%llu: allocation failed but the call succeeded\n", c->name,
                    (unsigned long long)n);
            n_bad++;
        } else if (rc != 0 && (rc != TL_ENOMEM || err.code != TL_ENOMEM)) {
            char buf[1024];
            fprintf(stderr, "[%s] N=%llu: expected TL_ENOMEM, got rc %d, err.code %d: %s\n",
                    c->name, (unsigned long long)n, rc, err.code,
                    tl_err_format(&err, buf, sizeof buf));
            n_bad++;
        }
        if (n_bad > 20) {
            fprintf(stderr, "[%s] too many failures, next case\n", c->name);
            *n_runs = n;
            break;
        }
    }
    cur_case = "(between cases)";
    return n_bad;
}

static void every_create_fails_cleanly(void **state)
{
    (void)state;
    catch_signals();
    fixture_make();
    const char *only = getenv("TL_ALLOC_ONLY"); /* a substring of case names */
    int is_verbose = getenv("TL_ALLOC_VERBOSE") != NULL;
    is_trace = getenv("TL_ALLOC_TRACE") != NULL;
    int n_bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (only && !strstr(cases[i].name, only))
            continue;
        uint64_t n_runs = 0;
        clock_t t0 = clock();
        int bad = run_case(&cases[i], &n_runs);
        n_bad += bad;
        if (is_verbose)
            fprintf(stderr, "%-44s %6llu allocations %6.2f s%s\n", cases[i].name,
                    (unsigned long long)n_runs, (double)(clock() - t0) / CLOCKS_PER_SEC,
                    bad ? "  FAILED" : "");
        if (n_runs == 0) {
            fprintf(stderr, "[%s] made no counted allocation\n", cases[i].name);
            n_bad++;
        }
    }
    fixture_free();
    if (n_bad)
        fail_msg("%d allocation-failure checks failed (see above)", n_bad);
}

void omp_set_num_threads(int n);

int main(void)
{
    omp_set_num_threads(1); /* the Nth allocation is the same in every run */
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(say_where);
    sigaction(SIGSEGV, NULL, &old_segv);
    sigaction(SIGBUS, NULL, &old_bus);
    sigaction(SIGABRT, NULL, &old_abrt);
    json_set_alloc_funcs(__wrap_malloc, __wrap_free);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_create_fails_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
