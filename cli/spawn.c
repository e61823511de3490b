/* Running gnuplot for the plots of compare and topo-bench: posix_spawn with
 * an argv, never a shell, so no folder or file name a user chose is ever
 * parsed as a command. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

extern char **environ;

int cli_gnuplot(const char *script, const char *arg, const char *cwd)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    int bad = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0) ||
              posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0) ||
              (cwd && posix_spawn_file_actions_addchdir_np(&fa, cwd));
    char *const argv[] = {"gnuplot", "-c", (char *)script, (char *)arg, NULL};
    pid_t pid;
    int rc = bad ? -1 : posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    if (rc != 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
