/*
 * test_auth_cluster.c - an authenticated cluster from outside: a scheduler
 * and a node monitor started with a cluster key, and the real `skylark`
 * tool as a user (with the key, with another key, with none) and as an
 * outsider. The outsider's job never runs and the daemons count its
 * attempts; key files that anyone may read, and listening beyond loopback
 * without a key, are refused at start with exit status 2.
 */
#include "config.h"
#include "daemon_harness.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char skylark[1024];

/* Makes a key file with `skylark key new`. */
static const char *new_key(const char *name, char *path, size_t len)
{
    char cmd[2200], out[512];
    snprintf(path, len, "%s/%s", dh_dir(), name);
    snprintf(cmd, sizeof cmd, "'%s' key new '%s'", skylark, path);
    if (dh_sh(cmd, out, sizeof out, NULL) != 0)
        tap_bail_out("skylark key new failed: %s", out);
    return path;
}

/* A daemon that must refuse to start: its exit status and log. */
static int start_refused(const char *const *argv_extra, dh_proc *p)
{
    char *argv[16];
    int a = 0;
    argv[a++] = (char *)dh_sched_path();
    for (const char *const *e = argv_extra; *e != NULL; e++)
        argv[a++] = (char *)*e;
    argv[a] = NULL;
    if (dh_spawn(p, "refused", argv) != 0 || !dh_wait_exit(p, 5))
        return -1;
    return WIFEXITED(p->dp_status) ? WEXITSTATUS(p->dp_status) : -1;
}

int main(void)
{
    tap_plan_lazy();
    tap_timeout(120);
    dh_init();
    const char *b = getenv("top_builddir");
    snprintf(skylark, sizeof skylark, "%s/cli/skylark", b ? b : ".");
    if (access(skylark, X_OK) != 0)
        tap_bail_out("no skylark binary at %s", skylark);

    char key[600], other[600], cmd[4000], out[4096];
    new_key("cluster.key", key, sizeof key);
    new_key("other.key", other, sizeof other);
    struct stat st;
    tap_ok(stat(key, &st) == 0 && (st.st_mode & 0777) == 0600,
           "skylark key new makes a file only its owner may read");
    tap_is_int(dh_sh(strcat(strcpy(cmd, skylark), " key new /dev/null"), out,
                     sizeof out, NULL),
               2, "skylark key new over an existing file: exit 2");

    /* Refusals at start. */
    dh_proc p;
    const char *nokey[] = {"--listen", "tcp://0.0.0.0:1", NULL};
    tap_is_int(start_refused(nokey, &p), 2,
               "listening beyond loopback without a key: exit 2");
    tap_ok(dh_log_has(&p, "refusing to listen on tcp://0.0.0.0:1 without a "
                          "cluster key"),
           "and says why");
    char loose[600];
    snprintf(loose, sizeof loose, "%s/loose.key", dh_dir());
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod 644 '%s'", key, loose,
             loose);
    if (system(cmd) != 0)
        tap_bail_out("cannot copy the key");
    const char *loose_args[] = {"--key-file", loose, NULL};
    tap_is_int(start_refused(loose_args, &p), 2,
               "a key file others may read: exit 2");
    tap_ok(dh_log_has(&p, "its group or others may use it (mode 0644)"),
           "and says why");

    /* The cluster. */
    dh_proc sched, node;
    const char *keyed[] = {"--key-file", key, NULL};
    if (dh_start_sched(&sched, "s1", 1, keyed) != 0)
        tap_bail_out("the keyed scheduler does not start");
    const dh_proc *scheds[] = {&sched};
    if (dh_start_nodemon(&node, "n1", 1, 2, scheds, 1, keyed) != 0)
        tap_bail_out("the keyed node monitor does not start");
    tap_ok(!dh_log_has(&sched, "no cluster key"),
           "a keyed daemon does not warn of running unauthenticated");

    /* A user with the key. */
    char marker[600];
    snprintf(marker, sizeof marker, "%s/ran", dh_dir());
    double secs;
    snprintf(cmd, sizeof cmd,
             "'%s' run --scheduler '%s' --key-file '%s' -n 4 --timeout 20 -- "
             "'echo ok'",
             skylark, sched.dp_endpoint, key);
    int rc = dh_sh(cmd, out, sizeof out, &secs);
    tap_is_int(rc, 0, "with the key, a job of 4 tasks runs (%.1f s)", secs);
    if (rc != 0)
        tap_diag("%s", out);

    /* Without a key, and with another: refused, quickly, with the reason;
     * the command never runs. */
    snprintf(cmd, sizeof cmd,
             "SKYLARK_DIR='%s/none' '%s' run --scheduler '%s' -n 1 --timeout "
             "20 -- 'touch %s'",
             dh_dir(), skylark, sched.dp_endpoint, marker);
    rc = dh_sh(cmd, out, sizeof out, &secs);
    tap_ok(rc == 1 && secs < 10,
           "without a key: exit 1 in %.1f s (not the "
           "timeout)",
           secs);
    tap_ok(strstr(out, "wants authentication") != NULL,
           "and says the scheduler wants authentication");
    snprintf(cmd, sizeof cmd,
             "'%s' run --scheduler '%s' --key-file '%s' -n 1 --timeout 20 -- "
             "'touch %s'",
             skylark, sched.dp_endpoint, other, marker);
    rc = dh_sh(cmd, out, sizeof out, &secs);
    tap_ok(rc == 1 && secs < 10, "with another key: exit 1 in %.1f s", secs);
    tap_ok(strstr(out, "does not hold our cluster key") != NULL,
           "and says the scheduler does not hold that key");
    tap_ok(access(marker, F_OK) != 0, "neither command ran anywhere");

    /* Status: only with the key. */
    snprintf(cmd, sizeof cmd,
             "SKYLARK_DIR='%s/none' '%s' status --timeout 2 '%s'", dh_dir(),
             skylark, node.dp_endpoint);
    tap_is_int(dh_sh(cmd, out, sizeof out, NULL), 1,
               "status of a keyed node monitor without the key: refused");
    snprintf(cmd, sizeof cmd, "'%s' status --key-file '%s' '%s'", skylark, key,
             node.dp_endpoint);
    rc = dh_sh(cmd, out, sizeof out, NULL);
    tap_ok(rc == 0 && strstr(out, "nodemon n1") != NULL,
           "with the key: answered");

    /* The outsider's attempts are counted where they arrived. */
    snprintf(cmd, sizeof cmd,
             "'%s' status --verbose --key-file '%s' '%s' | grep "
             "transport.auth",
             skylark, key, sched.dp_endpoint);
    rc = dh_sh(cmd, out, sizeof out, NULL);
    tap_ok(rc == 0 && strstr(out, "transport.auth_failed") != NULL,
           "the scheduler's status counts authentication failures (%s)",
           strtok(out, "\n"));

    dh_kill(&node);
    dh_kill(&sched);
    tap_done();
    return tap_exit_status();
}
