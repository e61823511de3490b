/* The `tailor` command: dispatches to one file per subcommand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "tailor/alloc.h"

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *summary;
    const char *usage;
} cmds[] = {
    {"demo", cmd_demo, "estimate the built-in default scenario with Parsimon and check it against pktsim",
     "tailor demo [-o DIR] [--seed N] [--threads N] [--quiet]\n"
     "  Prints what inspect reports for the default scenario, estimates it with Parsimon\n"
     "  (DIR/parsimon/, default DIR out/demo), simulates it with pktsim (or reuses the run kept\n"
     "  in out/cache/ under a hash of the scenario) and compares the two: DIR/compare.json,\n"
     "  DIR/compare.png and a table of errors (est - ref) / ref per size bucket.\n"},
    {"run", cmd_run, "simulate a scenario with an engine and write its results",
     "tailor run [SCENARIO] -o OUTDIR [--engine pktsim|flowsim|parsimon|m3] [--flows FILE]\n"
     "           [--seed N] [--cc NAME] [--preset NAME] [--preset-file FILE]\n"
     "           [--set name=value]... [--threads N] [--cluster] [--no-passthrough] [--no-residual] [--paths N] [--model FILE]\n"
     "           [--no-model] [--path-pktsim] [--queue-trace-us N] [--monitor] [--tune]\n"
     "           [--until TIME] [--quiet]\n"
     "  Writes OUTDIR/fct.csv (per flow), fct.txt (ns-3 HPCC format), summary.json\n"
     "  (slowdown per size bucket and class) and, for pktsim, links.csv (per directed link).\n"
     "  m3 writes summary.json and paths.csv (the sampled paths); it estimates\n"
     "  distributions, not flows, so it writes no per-flow table.\n"
     "  OUTDIR is replaced whole at the end (an existing folder only if it is a tailor\n"
     "  output folder); an interrupted run leaves the old OUTDIR as it was.\n"
     "  --engine            pktsim (packet level, the truth), flowsim (max-min flows),\n"
     "                      parsimon (link-level decomposition, docs/parsimon.md) or m3\n"
     "                      (sampled paths, flowsim + learned correction, docs/m3.md);\n"
     "                      default: the scenario's engine.name\n"
     "  --cluster           parsimon: simulate one link per cluster of similar links\n"
     "  --no-passthrough    parsimon: simulate links that only forward one upstream link's\n"
     "                      packets too, as the paper does (by default they add no delay)\n"
     "  --no-residual       parsimon: feed each link straight from the sources' NICs and\n"
     "                      into fat links, as the paper does (by default the links around\n"
     "                      it run at their residual rates; docs/parsimon.md)\n"
     "  --paths N           m3: paths to draw (default 500)\n"
     "  --model FILE        m3: model file (default data/models/m3-CC.model for the\n"
     "                      scenario's congestion control CC if it exists, else\n"
     "                      data/models/m3.model)\n"
     "  --no-model          m3: flowsim's own path-level estimate, uncorrected\n"
     "  --path-pktsim       m3: pktsim on each drawn path instead (the decomposition's own\n"
     "                      error, what a perfect model would reach; slow)\n"
     "  --cc NAME           congestion control (dctcp, dctcp-rate, dcqcn, timely, hpcc,\n"
     "                      uno, gemini, mprdma-bbr; docs/congestion-control.md), starting\n"
     "                      from its default preset (PFC on for the RDMA ones)\n"
     "  --flow-count N      cut the workload to its first N flows\n"
     "  --max-memory SIZE   refuse inputs estimated to need more (default: the machine's)\n"
     "  --preset NAME       apply a parameter preset (tailor params lists them) before --set\n"
     "  --preset-file FILE  then a preset file ({\"transport\": {\"group\": {\"knob\": v}}}; the\n"
     "                      tune_setting.json that tailor tune writes)\n"
     "  --queue-trace-us N  also write queues.csv: every N us of simulated time, the\n"
     "                      queue length of every port that holds packets\n"
     "  --queue-trace-max SIZE  stop with an error if queues.csv would pass SIZE\n"
     "                      (default 256MiB)\n"
     "  --monitor           pktsim: run PARALEON's runtime monitor (Elastic Sketch per ToR,\n"
     "                      flow states, KL trigger, Eq. (1) metrics; monitor.* knobs) and\n"
     "                      write monitor_fsd.csv, monitor_states.csv, monitor_metrics.csv,\n"
     "                      monitor_triggers.csv and monitor.png (docs/paraleon.md)\n"
     "  --tune              pktsim: PARALEON's closed loop (implies --monitor): anneals\n"
     "                      Table I's DCQCN knobs while the run goes; writes\n"
     "                      tune_trajectory.csv, tune_setting.json, tune.png (docs/paraleon.md)\n"
     "  --until TIME        pktsim: stop at this simulated time (e.g. 50ms); flows not done\n"
     "                      are unfinished (needed with fault.* blackholes)\n"},
    {"sweep", cmd_sweep, "p99 slowdown per size bucket for each value of a knob (counterfactuals)",
     "tailor sweep [SCENARIO] --set knob=v1,v2,... [--set knob2=w1,w2,...] [--engine NAME]\n"
     "             [-o OUTDIR] [--set name=value]... [--cc NAME] [--paths N] [--model FILE]\n"
     "             [--no-model] [--seed N] [--threads N] [--flow-count N] [--quiet]\n"
     "  Every --set with a list of values is swept; lists of the same length move together\n"
     "  (e.g. switch.kmin_bytes_per_gbps=1KB,2KB --set switch.kmax_bytes_per_gbps=1KB,2KB).\n"
     "  Prints the p99 slowdown of every size bucket for each setting (--quiet: not,\n"
     "  and then -o is required); with -o, writes OUTDIR/vN/summary.json (and, for\n"
     "  engines other than m3, each value's full results in OUTDIR/vN/). Engine m3 (default) decomposes, samples and featurizes once\n"
     "  and re-runs only the model (m3.txt §5.4); Kmin also recomputes the reference from\n"
     "  kept per-flow terms, the MTU and header bytes re-run flowsim on the kept paths;\n"
     "  other engines run the scenario per value.\n"},
    {"m3", cmd_m3, "m3's training pipeline: synthetic path samples, then the correction model",
     "tailor m3 gen-data DIR [--kind parking|fabric|fabric-net] [--samples N] [--seed N]\n"
     "                       [--sizes table2|mixture|mixture3|measured]\n"
     "                       [--traffic uniform|local|skew]\n"
     "                       [--length short|long] [--pfc drawn|on|off] [--truth-from OLD]\n"
     "                       [--threads N] [--fg-flows N] [--max-flows N]\n"
     "                       [--cc NAME] [--quiet]\n"
     "tailor m3 train DIR [DIR ...] [-o MODEL] [--trees N] [--depth N] [--eta X]\n"
     "                    [--seed N] [--threads N] [--calib-min N] [--calib-folds K]\n"
     "                    [--leaf-refit] [--quiet]\n"
     "tailor m3 calibrate MODEL DIR [DIR ...] [-o OUT] [--threads N]\n"
     "  gen-data  makes samples 0..N-1 (default 4000) with their flowsim features and\n"
     "            pktsim ground truth (docs/m3.md): --kind parking (default) random 2-, 4-\n"
     "            and 6-hop parking lots into DIR/samples.csv; --kind fabric paths drawn\n"
     "            from random 32-rack fabrics into DIR/fabric.csv, 40 a fabric, labelled\n"
     "            by pktsim on each path; --kind fabric-net the same, 200 a fabric,\n"
     "            labelled by pktsim on the whole fabric (docs/m3.md); --sizes mixture\n"
     "            draws fabric flow sizes from two-part laws (small and heavy-tailed flows)\n"
     "            instead of Table 2's, mixture3 from three-part laws (a middle part of\n"
     "            5-50 KB mean as well), measured from four published laws (WebSearch,\n"
     "            Google RPC, Alibaba storage, Solar), each scaled by 0.5-2; --traffic\n"
     "            local keeps a share 0.2-1 of the flows inside their rack in half the\n"
     "            fabrics (uniform traffic otherwise);\n"
     "            --length long gives each fabric 1-16 GB of flows (log-uniform, 200,000\n"
     "            flows at most) instead of 2 GB (60,000 flows at most); --pfc on|off\n"
     "            makes every scenario lossless or lossy instead of drawing it (half\n"
     "            lossless; DCQCN always lossless); --truth-from OLD takes the labels\n"
     "            of fabric folder OLD, made with the same settings under any feature\n"
     "            schema, instead of running pktsim: features again at flowsim's cost.\n"
     "            Interrupt it at any time: a second run continues after the last\n"
     "            complete block. Same seed, same file.\n"
     "  train     fits the model on DIR/fabric.csv if there is one, else DIR/samples.csv\n"
     "            (10% held out) and writes MODEL (default data/models/m3.model) and\n"
     "            MODEL.log (held-out errors per bucket); several folders of fabric paths\n"
     "            (the same paths per fabric) train one model together; the shifts\n"
     "            come from the held-out calibration scenarios\n"
     "  calibrate  sets a fabric-trained MODEL's calibration shifts from fabric folders\n"
     "            it was not trained on (another --seed): per size bucket and quantile,\n"
     "            the shift that makes the mixture of the paths' predictions, as m3\n"
     "            mixes them, meet the quantile of their flows pooled; writes OUT\n"
     "            (default MODEL, the same trees) and OUT.log (docs/m3.md)\n"
     "  --fg-flows foreground flows per sample (1000); --max-flows flows per sample at most\n"
     "            (30000); --cc only this congestion control (default: dctcp-rate, dcqcn,\n"
     "            hpcc, timely uniformly)\n"
     "  --trees, --depth, --eta  XGBoost rounds (400), tree depth (8), learning rate (0.05)\n"
     "  --calib-min N  fabric paths: calibrate only with at least N calibration scenarios\n"
     "            (every twentieth; default 50): with fewer, the shifts would be set by\n"
     "            whichever few fabrics stormed\n"
     "  --calib-folds K  fabric paths: calibrate instead on the training scenarios, each\n"
     "            predicted by a model trained the same way on the other K-1 of K folds\n"
     "            (K+1 trainings in all)\n"
     "  --leaf-refit  fabric paths: set each tree's leaves to the pinball loss's minimizer\n"
     "            over their rows instead of XGBoost's Newton step (the upper quantiles\n"
     "            converge; docs/m3.md)\n"},
    {"compare", cmd_compare, "accuracy of a run against a reference run, per size bucket and class",
     "tailor compare REF_DIR EST_DIR [-o OUT_DIR] [--force] [--quiet]\n"
     "  REF_DIR, EST_DIR  output folders of `tailor run` (summary.json, and fct.csv for the plot)\n"
     "  Prints, per size bucket, over all classes and for each class present in both runs,\n"
     "  the mean, p50, p99 and p99.9 slowdown of both runs and the relative error\n"
     "  (est - ref) / ref. Writes OUT_DIR/compare.json (default OUT_DIR: EST_DIR) and, when\n"
     "  both runs have fct.csv, compare_cdf.csv, compare.gp and compare.png (gnuplot):\n"
     "  the two slowdown CDFs of every size bucket.\n"
     "  Runs of different flows (summary.json's run record: topology and flows hash)\n"
     "  are refused (exit 2): their difference is the workloads', not an engine's error.\n"
     "  --force  compare them anyway\n"
     "  --quiet  no notes on stderr (missing fct.csv, gnuplot missing, differing seeds,\n"
     "           congestion controls or engine options)\n"},
    {"inspect", cmd_inspect, "show a scenario's topology, workload and offered link loads",
     "tailor inspect [SCENARIO] [--flows FILE] [--seed N] [--set name=value]... [--threads N]\n"
     "               [--cc NAME] [--preset NAME] [--flow-count N] [--quiet]\n"
     "  SCENARIO  a scenario JSON file (docs/scenario.md); the built-in default if omitted\n"
     "  --flows   inspect this flow file (tailor CSV if it ends in .csv, else ns-3 flow.txt)\n"
     "            instead of generating the scenario's workload\n"
     "  Prints node and link counts, oversubscription per tier, the workload, the path-length\n"
     "  histogram and the offered load per directed link (max, mean of the top 10%, mean).\n"},
    {"gen-flows", cmd_gen_flows, "generate a scenario's flows into a file",
     "tailor gen-flows [SCENARIO] -o FILE [--format csv|ns3] [--seed N] [--set name=value]...\n"
     "                 [--threads N] [--flow-count N] [--quiet]\n"
     "  -o FILE   output path ('-' for standard output); written atomically\n"
     "  --flow-count N  only the first N flows by start time\n"
     "  --format  csv (default: id,src,dst,size,start_ns,class) or ns3 (HPCC flow.txt)\n"
     "  --seed    override the scenario's seed\n"
     "  --threads worker threads (default: the scenario's engine.threads, else all cores);\n"
     "            the output does not depend on it\n"},
    {"export-topo", cmd_export_topo, "write a scenario's topology as Parsimon JSON or ns-3 topology.txt",
     "tailor export-topo [SCENARIO] -o FILE [--format parsimon|ns3] [--quiet]\n"
     "  --format  parsimon (default: {nodes, links} JSON, bandwidth bit/s, delay ns) or ns3\n"
     "            (HPCC topology.txt). Both load back as a scenario topology of type \"file\".\n"},
    {"tune", cmd_tune, "PARALEON's tuning of DCQCN: closed loop in pktsim, or offline with an estimator",
     "tailor tune [SCENARIO] -o OUTDIR [--oracle pktsim|parsimon|m3|flowsim]\n"
     "            [--scheme paraleon|naive|acc|dcqcn-plus] [--knobs K1,K2,...]\n"
     "            [--objective STAT@BUCKET[:W],...] [--seed N] [--cc NAME] [--preset NAME]\n"
     "            [--preset-file FILE] [--set name=value]... [--threads N] [--flow-count N]\n"
     "            [--until TIME] [--cluster] [--paths N] [--model FILE] [--quiet]\n"
     "  --oracle pktsim (default): PARALEON's closed loop inside one pktsim run: the\n"
     "      monitor's trigger starts simulated annealing over the knobs, one setting per\n"
     "      monitor interval, dispatched to every NIC and switch. Writes the run's results\n"
     "      (fct.csv, summary.json, ...), monitor_*.csv, tune_trajectory.csv,\n"
     "      tune_setting.json (a preset file), monitor.png and tune.png.\n"
     "  --oracle parsimon|m3|flowsim: offline: the same search, each candidate scored by\n"
     "      the estimator's FCT slowdowns under --objective, tune.batch candidates at\n"
     "      once; then pktsim runs the start and the best setting. Writes\n"
     "      tune_offline.csv, tune_setting.json, tune_validation.csv, tune_offline.png.\n"
     "      An oracle that does not read a searched knob is refused (exit 2).\n"
     "  --scheme  paraleon (guided SA, default), naive (SA moving each knob either way:\n"
     "      the ablation), acc (ACC-like: Kmin/Kmax/Pmax from queueing and utilization)\n"
     "      or dcqcn-plus (DCQCN+-like: AI/HAI steps and the increase timer scaled by the\n"
     "      incast degree); the last two are baselines inside pktsim\n"
     "  --knobs   the searched knobs (default Table I's: dcqcn.ai_rate_bps,\n"
     "      dcqcn.hai_rate_bps, dcqcn.rate_reduce_monitor_period_ps,\n"
     "      dcqcn.min_time_between_cnps_ps, switch.kmin_bytes_per_gbps,\n"
     "      switch.kmax_bytes_per_gbps, switch.pmax); each needs a direction in the registry;\n"
     "      NAME=LO:HI bounds a knob's search inside its registered range\n"
     "      (dcqcn.ai_rate_bps=1Mbps:500Mbps)\n"
     "  --objective  offline only: a weighted sum of slowdown statistics, STAT one of mean,\n"
     "      p50, p90, p99, p99.9 and BUCKET one of 0-1KB, 1-10KB, 10-50KB, 50KB+, all;\n"
     "      weights (all or none) sum to 1 (default p99@0-1KB,mean@50KB+)\n"
     "  --preset-file FILE  start from a preset file (tune_setting.json of an earlier tune)\n"
     "  tune.* knobs set the schedule (--set tune.iters_per_temp=5; tailor params)\n"},
    {"throughput", cmd_throughput, "max-concurrent-flow throughput of a topology under a traffic matrix",
     "tailor throughput TOPOLOGY [--tm KIND|FILE] [--method exact|approx] [--eps E] [--seed N]\n"
     "                  [--skew F] [--cuts] [--relative N [--spread-servers]] [--save-tm FILE]\n"
     "                  [--lp-solver glpk|clp-dual|clp-barrier] [--time-limit S] [--threads N]\n"
     "                  [--theorem2] [--quiet]\n"
     "  TOPOLOGY  a family (jellyfish:switches=100,degree=8,servers=4; fat_tree:k=8;\n"
     "            flattened_butterfly:k=5,n=2,servers=5; hypercube, hyperx, dragonfly, slimfly,\n"
     "            bcube, dcell, longhop, leaf_spine, fabric: docs/throughput.md), a scenario or\n"
     "            Parsimon JSON file, or an ns-3 topology.txt\n"
     "  --tm      all-to-all, random-matching, longest-matching (default), kodialam, skewed\n"
     "            (--skew F: fraction of flows weighted 10, default 0.1) or a file of\n"
     "            'src dst demand' lines (node ids)\n"
     "  --method  exact (the LP, default) or approx (certified within --eps, default 0.02)\n"
     "  --lp-solver  exact: COIN-OR CLP's barrier (default) or dual simplex, or GLPK's primal\n"
     "            simplex\n"
     "  --time-limit S  approx: stop after S seconds and print the certified bounds reached\n"
     "            (Ctrl-C does the same); progress lines go to stderr unless --quiet\n"
     "  --threads N  approx: threads for the shortest-path searches (default all cores;\n"
     "            the result does not depend on it)\n"
     "  --theorem2  also solve all-to-all for Theorem 2's lower bound (half its throughput)\n"
     "  --cuts    also sparsest cut and bisection bandwidth\n"
     "  --relative N  relative throughput against N same-equipment random graphs\n"
     "  --spread-servers  the random graphs spread the servers over all switches in\n"
     "            proportion to their ports (Jellyfish's same equipment; the paper's fat-tree\n"
     "            baseline) instead of keeping each switch's servers\n"},
    {"topo-bench", cmd_topo_bench, "compare topology families (the throughput paper's Figures 5-6, Table I)",
     "tailor topo-bench [-o DIR] [--quick] [--relative N] [--spread-servers] [--eps E] [--seed N]\n"
     "                  [--quiet]\n"
     "  Every family at sizes up to ~1,000 servers under all-to-all, random matching and\n"
     "  longest matching, relative to N same-equipment random graphs (default 3; --quick: the\n"
     "  smallest size only, N = 2). Writes DIR/topo-bench.csv, topo-bench.png, table.md\n"
     "  (default DIR out/topo-bench).\n"},
    {"params", cmd_params, "list every tunable parameter (name, unit, default, range)",
     "tailor params [--markdown | --cc-markdown]\n"
     "  Prints the parameter registry and presets; --markdown prints them as the\n"
     "  Markdown of docs/parameters.md, --cc-markdown as docs/congestion-control.md\n"
     "  (redirect to the file to update it).\n"},
};

static void usage(FILE *f)
{
    fprintf(f, "tailor %s: data-center network performance estimation\n\n"
               "usage: tailor COMMAND [options]\n\ncommands:\n",
            TL_VERSION_STRING);
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
        fprintf(f, "  %-12s %s\n", cmds[i].name, cmds[i].summary);
    fprintf(f, "  %-12s %s\n", "help", "show the options of one command: tailor help COMMAND");
    fprintf(f, "\nglobal: tailor --help, tailor --version; every command takes --max-memory SIZE\n"
               "(refuse inputs estimated to need more; default: this machine's memory)\n"
               "Exit status: 0 success, 1 the run failed, 2 bad input (nothing written).\n");
}

int cli_help(const char *cmd)
{
    if (strcmp(cmd, "help") == 0) {
        printf("tailor help COMMAND\n  Prints the options of one command; tailor --help lists "
               "the commands.\n");
        return 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
        if (strcmp(cmds[i].name, cmd) == 0) {
            printf("%s", cmds[i].usage);
            return 0;
        }
    fprintf(stderr, "tailor help: unknown command '%s'\n", cmd);
    return EXIT_INPUT;
}

/* What spreads over MPI ranks: every other command is refused there. */
#define CLI_RANKS_INSTEAD                                                                          \
    "run --engine parsimon|m3, tune --oracle parsimon|m3|flowsim and topo-bench do"

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_INPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("tailor %s%s\n", TL_VERSION_STRING,
               tl_dist_is_built() ? " (MPI: runs over ranks under mpirun)" : " (without MPI)");
        return 0;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return 0;
        }
        return cli_help(argv[2]);
    }
    /* A data folder that is not there would be passed over for the built-in
     * copies: a user who set one means it. */
    const char *data = getenv("TAILOR_DATA");
    struct stat st;
    if (data && data[0] && (stat(data, &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr,
                "tailor: error: TAILOR_DATA=%s: no such folder (it names the folder of "
                "tailor's data files: workloads, models; unset it to use the installed copy)\n",
                data);
        return EXIT_INPUT;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
        if (strcmp(cmds[i].name, cmd) == 0) {
            for (int a = 2; a < argc; a++)
                if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0)
                    return cli_help(cmd);
            if (strcmp(cmd, "run") && strcmp(cmd, "tune") && strcmp(cmd, "topo-bench")) {
                char what[64];
                snprintf(what, sizeof what, "tailor %s", cmd);
                int rc = cli_ranks_refuse(cmd, what, CLI_RANKS_INSTEAD);
                if (rc)
                    return rc;
            }
            return cmds[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "tailor: unknown command '%s' (see tailor --help)\n", cmd);
    return EXIT_INPUT;
}

int main(int argc, char **argv)
{
    tl_alloc_tune();
    int rc = cli_ranks_start();
    if (rc)
        return rc;
    return cli_ranks_finish(dispatch(argc, argv));
}
