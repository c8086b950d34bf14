/*
 * test_integration_multi.c - two schedulers sharing two node monitors,
 * real daemons on loopback: every node monitor registers with both
 * (HELLO both ways), each scheduler's tasks run and are reported to its
 * own frontend only; and two schedulers' jobs with the same core job id
 * run side by side on one node monitor (it names them to executors by
 * node-local ids).
 */
#include "daemon_harness.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dh_proc sched[2];
static dh_proc nodes[2];
static dh_client *fe;
static sk_peer_id sp[2];
static sk_peer_id np[2];

static dh_job *submit(int s, uint64_t id, uint32_t n, const char *cmd,
                      const char *label)
{
    dh_job *j = dh_client_track(fe, id, n);
    sk_task_spec *t = calloc(n, sizeof *t);
    for (uint32_t i = 0; i < n; i++) {
        t[i].ts_spec.b_data = (const uint8_t *)cmd;
        t[i].ts_spec.b_len = (uint32_t)strlen(cmd) + 1;
    }
    const char *labels[] = {label};
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_SUBMIT_JOB;
    m.m_submit_job.sj_job = id;
    m.m_submit_job.sj_user = s == 0 ? "alice" : "bob";
    m.m_submit_job.sj_labels = labels;
    m.m_submit_job.sj_nlabels = label != NULL ? 1 : 0;
    m.m_submit_job.sj_framework = "";
    m.m_submit_job.sj_tasks = t;
    m.m_submit_job.sj_ntasks = n;
    int rc = dh_client_send(fe, sp[s], &m);
    free(t);
    return rc == 0 ? j : NULL;
}

static int all_ok(const dh_job *j)
{
    if (j == NULL || j->jb_done != 1)
        return 0;
    for (uint32_t t = 0; t < j->jb_ntasks; t++)
        if (j->jb_finished[t] != 1 || j->jb_status[t] != SK_TASK_OK)
            return 0;
    return 1;
}

int main(void)
{
    tap_plan(6);
    tap_timeout(60);
    dh_init();
    if (dh_start_sched(&sched[0], "s1", 1, NULL) != 0 ||
        dh_start_sched(&sched[1], "s2", 2, NULL) != 0)
        tap_bail_out("the schedulers did not start");
    const dh_proc *s[] = {&sched[0], &sched[1]};
    const char *solo[] = {"--label", "solo", NULL};
    if (dh_start_nodemon(&nodes[0], "n1", 1, 2, s, 2, solo) != 0 ||
        dh_start_nodemon(&nodes[1], "n2", 2, 2, s, 2, NULL) != 0)
        tap_bail_out("the node monitors did not start");
    fe = dh_client_new("frontend", "fe1");
    for (int i = 0; i < 2; i++) {
        sp[i] = dh_client_connect(fe, sched[i].dp_endpoint, 5);
        np[i] = dh_client_connect(fe, nodes[i].dp_endpoint, 5);
        dh_client_hello(fe, sp[i], SK_ROLE_FRONTEND);
    }
    tap_ok(dh_wait_status(fe, sp[0], "nodes", 2, 10, NULL) &&
               dh_wait_status(fe, sp[1], "nodes", 2, 10, NULL),
           "each scheduler has both node monitors");
    tap_ok(dh_wait_status(fe, np[0], "peers", 2, 5, NULL) &&
               dh_wait_status(fe, np[1], "peers", 2, 5, NULL),
           "each node monitor registered both schedulers (their HELLOs)");

    /* One job on s2 first, so that the two schedulers' next core job
     * ids differ (see the TODO below). */
    dh_job *warm = submit(1, 100, 1, "true", NULL);
    tap_ok(warm != NULL && dh_job_wait_done(fe, warm, 10) && all_ok(warm),
           "a first job on s2 runs");
    char path[512], cmd[640];
    snprintf(path, sizeof path, "%s/runs", dh_dir());
    snprintf(cmd, sizeof cmd, "echo $SKYLARK_TASK_INDEX >> %s; sleep 0.05",
             path);
    dh_job *a = submit(0, 1, 30, cmd, NULL);
    dh_job *b = submit(1, 2, 30, cmd, NULL);
    dh_job_wait_done(fe, a, 30);
    dh_job_wait_done(fe, b, 30);
    tap_ok(all_ok(a) && all_ok(b),
           "both schedulers' jobs of 30 tasks run on the shared nodes, each "
           "task reported once to the frontend of its scheduler");
    FILE *f = fopen(path, "r");
    int lines = 0;
    char line[64];
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        lines++;
    if (f != NULL)
        fclose(f);
    tap_is_int(lines, 60, "60 commands ran");

    /* s1's next job and s2's next job both get core job id 3; on n1's
     * two slots their task 0 attempt 0 run at the same time. */
    dh_job *x = submit(0, 3, 1, "true", NULL); /* s1: core id 2 */
    dh_job_wait_done(fe, x, 10);
    dh_job *c = submit(0, 4, 1, "sleep 0.5", "solo");
    dh_job *d = submit(1, 5, 1, "sleep 0.5", "solo");
    dh_job_wait_done(fe, c, 10);
    dh_job_wait_done(fe, d, 10);
    tap_ok(all_ok(c) && all_ok(d),
           "equal job ids of two schedulers run side by side on one node "
           "(%s / %s)",
           c && c->jb_output[0] ? c->jb_output[0] : "",
           d && d->jb_output[0] ? d->jb_output[0] : "");
    if (tap_failures() > 0)
        for (int i = 0; i < 2; i++) {
            dh_log_tail(&sched[i], 10);
            dh_log_tail(&nodes[i], 10);
        }
    dh_client_free(fe);
    return tap_exit_status();
}
