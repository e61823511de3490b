/* The command under mpirun (docs/scale-out.md): every rank runs the same
 * command; fan-outs spread their jobs over the ranks (tailor/dist.h); only
 * rank 0 prints and writes, the others' standard output and error go to
 * /dev/null. MPI starts only when a launcher started this process, so a
 * plain run pays nothing for it. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tailor/dist.h"

/* Set once by cli_ranks_start, before any command runs; like outdir.c's
 * table of live folders, it belongs to the process, not to a command. */
static tl_dist *ranks;
static tl_err last_err; /* this rank's last error (cli_print_err), sent to rank 0 */

int cli_ranks_start(void)
{
    if (!tl_dist_is_launched())
        return 0;
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!tl_dist_is_built()) {
        if (!r || !strcmp(r, "0"))
            fprintf(stderr, "tailor: error: started as one of several MPI ranks, but this "
                            "tailor was built without MPI: each rank would run the whole job "
                            "(rebuild with libopenmpi-dev installed; docs/scale-out.md)\n");
        return EXIT_INPUT;
    }
    tl_err err;
    tl_err_clear(&err);
    if (tl_dist_create(&ranks, &err)) {
        if (!r || !strcmp(r, "0"))
            cli_print_err("mpi", &err);
        return EXIT_INPUT;
    }
    if (tl_dist_rank(ranks) != 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
    }
    return 0;
}

tl_dist *cli_dist(void) { return ranks; }

int cli_is_root(void) { return tl_dist_rank(ranks) == 0; }

int cli_ranks(void) { return tl_dist_size(ranks); }

void cli_ranks_note_err(const tl_err *err) { last_err = *err; }

int cli_ranks_finish(int code)
{
    code = tl_dist_finish(ranks, code, code ? &last_err : NULL);
    ranks = NULL;
    return code;
}

int cli_ranks_refuse(const char *cmd, const char *what, const char *instead)
{
    if (cli_ranks() <= 1)
        return 0;
    fprintf(stderr, "tailor %s: error: %s does not spread over MPI ranks (%d here): run it "
                    "without mpirun%s%s\n",
            cmd, what, cli_ranks(), instead ? "; " : "", instead ? instead : "");
    return EXIT_INPUT;
}
