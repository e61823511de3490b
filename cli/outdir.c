/* Output transactions of the `tailor` command (DESIGN.md: an interrupted run
 * never leaves a half-written result that looks whole). A command checks its
 * target before any work, writes everything into a fresh temporary folder
 * beside the target, and at the end swaps that folder into place whole
 * (renameat2 RENAME_EXCHANGE) or moves its files into an existing folder.
 * SIGINT and SIGTERM remove every open transaction's temporary folder (and
 * the parents it created) before the process dies of the signal.
 *
 * Invariants:
 *  1. Between begin and commit/abort, o->tmp exists and nothing outside it
 *     has been changed, except the missing parents of the target, which are
 *     listed in o->made and removed by abort.
 *  2. An open transaction is in the signal table (live[]); commit and abort
 *     take it out before touching the file system. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"

/* The open transactions, for the signal handler: the only mutable global of
 * the command, because a handler has nowhere else to look. */
#define MAX_LIVE 8
static cli_out *volatile live[MAX_LIVE];

/* Removes path and everything under it without malloc or stdio, so that a
 * signal handler may call it (open, getdents64, unlinkat and close are
 * async-signal-safe). Depth is bounded: our folders nest at most twice. */
static void rm_tree_at(int parent_fd, const char *name, int depth)
{
    if (unlinkat(parent_fd, name, 0) == 0 || errno == ENOENT)
        return;
    if (depth > 6)
        return;
    int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[4096];
    for (int pass = 0; pass < 4; pass++) { /* a thread may still add a file */
        long n;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
            for (long off = 0; off < n;) {
                struct linux_dirent64 {
                    unsigned long long d_ino;
                    long long d_off;
                    unsigned short d_reclen;
                    unsigned char d_type;
                    char d_name[];
                } *d = (void *)(buf + off);
                off += d->d_reclen;
                if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
                    rm_tree_at(fd, d->d_name, depth + 1);
            }
        if (unlinkat(parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
            break;
        lseek(fd, 0, SEEK_SET);
    }
    close(fd);
}

static void rm_tree(const char *path) { rm_tree_at(AT_FDCWD, path, 0); }

static void undo(cli_out *o)
{
    if (o->tmp[0])
        rm_tree(o->tmp);
    for (int i = o->n_made - 1; i >= 0; i--)
        rmdir(o->made[i]); /* only if still empty */
}

static void on_signal(int sig)
{
    /* under mpirun, a dead rank makes mpirun stop the others this way */
    tl_dist_write_inflight(cli_dist(), STDERR_FILENO);
    for (int i = 0; i < MAX_LIVE; i++)
        if (live[i])
            undo(live[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void track(cli_out *o, int is_on)
{
    static int is_installed;
    if (is_on && !is_installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        is_installed = 1;
    }
    for (int i = 0; i < MAX_LIVE; i++)
        if (is_on ? !live[i] : live[i] == o) {
            live[i] = is_on ? o : NULL;
            return;
        }
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* mkdir -p of dir's missing parents and dir itself, each recorded in o->made
 * so that abort can take them back. */
static int make_dirs(cli_out *o, const char *dir, tl_err *err)
{
    char buf[CLI_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1;; p++) {
        char c = *p;
        if (c != '/' && c != '\0')
            continue;
        *p = '\0';
        if (!is_dir(buf)) {
            if (mkdir(buf, 0777) != 0)
                return tl_err_at(err, TL_EIO, buf, 0, 0, NULL,
                                 "cannot create the output folder: %s", strerror(errno));
            if (o->n_made < CLI_OUT_MAX_MADE)
                snprintf(o->made[o->n_made++], sizeof o->made[0], "%s", buf);
        }
        *p = c;
        if (!c)
            return 0;
    }
}

/* Splits path into its folder (".", if none) and last name. */
static int split_path(const char *path, char *dir, char *base, tl_err *err)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    if (n == 0 || n >= CLI_PATH_MAX - 64)
        return tl_err_at(err, TL_EINVAL, path, 0, 0, NULL,
                         n ? "path too long (over %d characters)" : "empty output path",
                         CLI_PATH_MAX - 64);
    const char *slash = memrchr(path, '/', n);
    if (!slash)
        snprintf(dir, CLI_PATH_MAX, ".");
    else if (slash == path)
        snprintf(dir, CLI_PATH_MAX, "/");
    else
        snprintf(dir, CLI_PATH_MAX, "%.*s", (int)(slash - path), path);
    snprintf(base, CLI_PATH_MAX, "%.*s", (int)(n - (slash ? (size_t)(slash + 1 - path) : 0)),
             slash ? slash + 1 : path);
    if (!strcmp(base, ".") || !strcmp(base, ".."))
        return tl_err_at(err, TL_EINVAL, path, 0, 0, NULL,
                         "expected a folder name to create or replace, found '%s'", base);
    return 0;
}

/* An existing target folder is replaced only if it is empty or a tailor
 * output folder (it has our marker, or a summary.json, compare.json or
 * topo-bench.csv of an older tailor); anything else is the user's and stays. */
static int check_replaceable(const char *target, tl_err *err)
{
    DIR *d = opendir(target);
    if (!d)
        return tl_err_at(err, TL_EIO, target, 0, 0, NULL, "cannot read the folder: %s",
                         strerror(errno));
    int n = 0, is_ours = 0;
    struct dirent *e;
    char first[256] = "";
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (!n++)
            snprintf(first, sizeof first, "%s", e->d_name);
        is_ours |= !strcmp(e->d_name, CLI_OUT_MARKER) || !strcmp(e->d_name, "summary.json") ||
                   !strcmp(e->d_name, "topo-bench.csv") || !strcmp(e->d_name, "compare.json");
    }
    closedir(d);
    if (n && !is_ours)
        return tl_err_at(err, TL_EINVAL, target, 0, 0, NULL,
                         "exists and is not a tailor output folder (it holds '%s' and no %s); "
                         "tailor replaces an output folder whole, so choose a new folder or "
                         "empty this one",
                         first, CLI_OUT_MARKER);
    return 0;
}

int cli_out_begin(cli_out *o, const char *target, int mode, tl_err *err)
{
    memset(o, 0, sizeof *o);
    o->mode = mode;
    if (!cli_is_root()) /* under mpirun only rank 0 writes: nothing to make here */
        return 0;
    if (mode == CLI_OUT_FILE && !strcmp(target, "-")) {
        o->is_stdout = 1;
        snprintf(o->target, sizeof o->target, "-");
        snprintf(o->file, sizeof o->file, "-");
        return 0;
    }
    char dir[CLI_PATH_MAX], base[CLI_PATH_MAX];
    int rc = split_path(target, dir, base, err);
    if (rc)
        return rc;
    snprintf(o->target, sizeof o->target, "%.*s", (int)(sizeof o->target - 1), target);
    struct stat st;
    int exists = stat(target, &st) == 0;
    if (mode == CLI_OUT_FILE) {
        if (exists && S_ISDIR(st.st_mode))
            return tl_err_at(err, TL_EINVAL, target, 0, 0, NULL,
                             "is a folder; expected a file name to write");
        snprintf(o->dest, sizeof o->dest, "%s", dir);
        snprintf(o->name, sizeof o->name, "%s", base);
    } else if (mode == CLI_OUT_FILES) { /* files added into the folder target */
        if (exists && !S_ISDIR(st.st_mode))
            return tl_err_at(err, TL_EINVAL, target, 0, 0, NULL,
                             "exists and is not a folder");
        snprintf(o->dest, sizeof o->dest, "%s", target);
    } else {
        if (exists && !S_ISDIR(st.st_mode))
            return tl_err_at(err, TL_EINVAL, target, 0, 0, NULL,
                             "exists and is not a folder");
        if (exists && (rc = check_replaceable(target, err)))
            return rc;
        snprintf(o->dest, sizeof o->dest, "%s", dir);
        snprintf(o->name, sizeof o->name, "%s", base);
    }
    if ((rc = make_dirs(o, o->dest, err))) {
        undo(o);
        return rc;
    }
    if (access(o->dest, W_OK | X_OK) != 0) {
        rc = tl_err_at(err, TL_EIO, o->dest, 0, 0, NULL, "cannot write into the folder: %s",
                       strerror(errno));
        undo(o);
        return rc;
    }
    snprintf(o->tmp, sizeof o->tmp, "%s/.%s.tailor-tmp%ld", o->dest,
             mode == CLI_OUT_FILES ? "out" : o->name, (long)getpid());
    if (mkdir(o->tmp, 0777) != 0) {
        rc = tl_err_at(err, TL_EIO, o->dest, 0, 0, NULL,
                       "cannot create a temporary folder in it: %s", strerror(errno));
        o->tmp[0] = '\0';
        undo(o);
        return rc;
    }
    track(o, 1);
    snprintf(o->file, sizeof o->file, "%s/%s", o->tmp, o->name);
    if (mode == CLI_OUT_DIR) {
        char marker[CLI_PATH_MAX + 32];
        snprintf(marker, sizeof marker, "%s/%s", o->tmp, CLI_OUT_MARKER);
        FILE *f = fopen(marker, "w");
        if (f) {
            fprintf(f, "tailor %s output folder: replaced whole by the next run into it\n",
                    TL_VERSION_STRING);
            fclose(f);
        }
    }
    return 0;
}

const char *cli_out_path(const cli_out *o) { return o->mode == CLI_OUT_FILE ? o->file : o->tmp; }

int cli_out_commit(cli_out *o, tl_err *err)
{
    if (o->is_stdout || !o->tmp[0])
        return 0;
    track(o, 0);
    int rc = 0;
    if (o->mode == CLI_OUT_DIR) {
        /* Swap the new folder with the old one in one step, so a reader sees
         * the old result or the new, never a mix; then remove the old. */
        if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->target, RENAME_EXCHANGE) == 0)
            rm_tree(o->tmp);
        else if (errno == ENOENT && rename(o->tmp, o->target) == 0)
            ;
        else if (errno == EINVAL || errno == ENOSYS) { /* no exchange here: old aside first */
            char old[CLI_PATH_MAX + 16];
            snprintf(old, sizeof old, "%s.old", o->tmp);
            if (rename(o->target, old) != 0 || rename(o->tmp, o->target) != 0)
                rc = tl_err_at(err, TL_EIO, o->target, 0, 0, NULL,
                               "cannot move the results into place: %s", strerror(errno));
            rm_tree(old);
        } else
            rc = tl_err_at(err, TL_EIO, o->target, 0, 0, NULL,
                           "cannot move the results into place: %s", strerror(errno));
    } else {
        DIR *d = opendir(o->tmp);
        struct dirent *e;
        while (d && !rc && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char from[CLI_PATH_MAX + 300], to[CLI_PATH_MAX + 300];
            snprintf(from, sizeof from, "%s/%s", o->tmp, e->d_name);
            snprintf(to, sizeof to, "%s/%s", o->dest, e->d_name);
            if (rename(from, to) != 0)
                rc = tl_err_at(err, TL_EIO, to, 0, 0, NULL, "cannot move into place: %s",
                               strerror(errno));
        }
        if (d)
            closedir(d);
    }
    if (rc)
        undo(o);
    else
        rm_tree(o->tmp);
    o->tmp[0] = '\0';
    return rc;
}

void cli_out_abort(cli_out *o)
{
    if (o->is_stdout || !o->tmp[0])
        return;
    track(o, 0);
    undo(o);
    o->tmp[0] = '\0';
}
