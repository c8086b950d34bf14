/*
 * cli_run.h - what the tests of the `skylark` tool share: running a
 * program with its stdout and stderr kept apart, under a time limit
 * (SIGKILL when it overruns), timed, and sending it signals at given
 * moments; finding the tool in the build tree; and reading the cluster
 * file of a local cluster.
 */
#ifndef CLI_RUN_H
#define CLI_RUN_H

/* What a command did. */
typedef struct cr_result {
    int r_status;     /* exit status; 128 + n for signal n; -1 killed */
    double r_elapsed; /* seconds from start to exit */
    char r_out[65536];
    char r_err[65536];
} cr_result;

/* The last command's result. */
extern cr_result R;

/* How to poke a command while it runs: up to two signals (0: none), at
 * times in seconds after its start. */
typedef struct cr_pokes {
    int pk_sig[2];
    double pk_at[2];
} cr_pokes;

/* cr_skylark returns the path of the `skylark` tool under
 * $top_builddir (or "."), or NULL if it is not there. */
const char *cr_skylark(void);

/* cr_run runs argv (NULL-terminated) with stdout and stderr apart in R,
 * at most limit seconds, sending the pokes (NULL: none). */
void cr_run(char *const argv[], double limit, const cr_pokes *pk);

/* cr_sky runs `skylark ARGS...` (NULL-terminated) as cr_run. */
void cr_sky(double limit, const cr_pokes *pk, ...);

/* cr_endpoint_of returns the endpoint of the daemon called name in the
 * cluster file of dir (a static buffer, "" if there is none). */
const char *cr_endpoint_of(const char *dir, const char *name);

/* cr_pid_of returns the pid of the daemon called name in the cluster file
 * of dir, or 0. */
long cr_pid_of(const char *dir, const char *name);

#endif /* CLI_RUN_H */
