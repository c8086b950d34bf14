/*
 * upper.c - an example framework on libskylark, using both sides of the
 * client API on one libev loop: executors for the framework "upper", one
 * registered with each node monitor given, turn a task's spec (a word)
 * into upper case; a frontend submits one job with a task per word and
 * prints what each task returned, where it ran and how long it waited.
 *
 *   upper SCHEDULER NODEMON... -- WORD...
 *
 * With a local cluster (skylark cluster up) in DIR:
 *   SKYLARK_KEY_FILE=DIR/cluster.key \
 *   upper $(awk '$1=="scheduler"{print $3; exit}' DIR/cluster) \
 *         $(awk '$1=="nodemon"{print $3}' DIR/cluster) -- hello sky lark
 *
 * $SKYLARK_KEY_FILE names the cluster key of an authenticated cluster.
 *
 * Only the public header is used, as installed: build it with
 *   cc upper.c $(pkg-config --cflags --libs skylark)
 */
#include <ctype.h>
#include <ev.h>
#include <skylark/skylark.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 64

/* --- the executor side: runs tasks -------------------------------------- */

typedef struct worker {
    sk_executor *w_ex;
    const char *w_nodemon;
} worker;

static void on_launch(void *arg, const sk_launch_info *t)
{
    worker *w = arg;
    char out[256];
    uint32_t n = t->li_spec_len < sizeof out ? t->li_spec_len : sizeof out;
    for (uint32_t i = 0; i < n; i++)
        out[i] = (char)toupper(((const unsigned char *)t->li_spec)[i]);
    /* A real framework would start the work here and finish it later,
     * from its own watcher; this one is done at once. */
    sk_executor_finish(w->w_ex, t->li_job, t->li_task, t->li_attempt,
                       SK_OUTCOME_OK, 0, out, n);
}

static void on_kill(void *arg, sk_job_id job, uint32_t task, uint32_t attempt)
{
    /* Nothing runs for long here: there is nothing to stop. */
}

static void on_session(void *arg, int up)
{
    worker *w = arg;
    fprintf(stderr, "executor %s node monitor %s\n",
            up ? "registered with" : "lost", w->w_nodemon);
}

/* --- the frontend side: submits and reports ----------------------------- */

static void on_started(void *arg, const sk_task_start *s)
{
    printf("task %u started on %s, %.2f ms after submission\n", s->ts_task,
           s->ts_node, (double)(s->ts_launch_us - s->ts_submit_us) / 1e3);
}

static void on_task_done(void *arg, const sk_task_result *r)
{
    printf("task %u %s on %s: %.*s\n", r->tr_task,
           sk_outcome_name(r->tr_outcome), r->tr_node, (int)r->tr_output_len,
           (const char *)r->tr_output);
}

int main(int argc, char **argv)
{
    int sep = 1;
    while (sep < argc && strcmp(argv[sep], "--") != 0)
        sep++;
    int nnodes = sep - 2, nwords = argc - sep - 1;
    if (nnodes < 1 || nnodes > MAX_NODES || nwords < 1) {
        fprintf(stderr, "usage: upper SCHEDULER NODEMON... -- WORD...\n");
        return 2;
    }
    struct ev_loop *loop = ev_default_loop(0);
    /* An authenticated cluster's key, as the skylark tool finds it. */
    const char *key = getenv("SKYLARK_KEY_FILE");
    if (key != NULL && key[0] == '\0')
        key = NULL;

    /* One executor per node monitor, as if one ran on every machine. */
    static worker workers[MAX_NODES];
    sk_executor_callbacks ecb = {on_launch, on_kill, on_session, NULL};
    for (int i = 0; i < nnodes; i++) {
        sk_executor_opts eo;
        sk_executor_opts_init(&eo);
        eo.eo_nodemon = workers[i].w_nodemon = argv[2 + i];
        eo.eo_framework = "upper";
        eo.eo_key_file = key;
        ecb.ec_arg = &workers[i];
        if (sk_executor_create(loop, &eo, &ecb, &workers[i].w_ex) != 0 ||
            sk_executor_wait_registered(workers[i].w_ex, 5) != 0) {
            fprintf(stderr, "upper: no node monitor at %s\n", argv[2 + i]);
            return 1;
        }
    }

    sk_frontend_opts fo;
    sk_frontend_opts_init(&fo);
    const char *sched = argv[1];
    fo.fo_schedulers = &sched;
    fo.fo_nschedulers = 1;
    fo.fo_key_file = key;
    sk_frontend *fe;
    if (sk_frontend_create(loop, &fo, &fe) != 0) {
        fprintf(stderr, "upper: bad scheduler address %s\n", sched);
        return 2;
    }
    sk_task_desc *tasks = calloc((size_t)nwords, sizeof *tasks);
    for (int i = 0; i < nwords; i++) {
        tasks[i].td_spec = argv[sep + 1 + i];
        tasks[i].td_spec_len = (uint32_t)strlen(argv[sep + 1 + i]);
    }
    sk_job_desc job;
    sk_job_desc_init(&job);
    job.jo_framework = "upper";
    job.jo_tasks = tasks;
    job.jo_ntasks = (uint32_t)nwords;
    sk_job_callbacks cb = {on_started, on_task_done, NULL, NULL};
    sk_job_id id;
    if (sk_frontend_submit(fe, &job, &cb, &id) != 0) {
        fprintf(stderr, "upper: %s\n", sk_frontend_error(fe));
        return 2;
    }
    free(tasks);

    /* Waiting runs the loop, which serves the executors too. */
    sk_job_result jr;
    int rc = sk_frontend_wait_job(fe, id, 30, &jr);
    if (rc != 0) {
        fprintf(stderr, "upper: %s\n", sk_strerror(rc));
        return 1;
    }
    printf("job %llu: %u of %u tasks ok in %.2f ms%s%s\n",
           (unsigned long long)jr.jr_job, jr.jr_ok, jr.jr_tasks,
           (double)(jr.jr_end_us - jr.jr_submit_us) / 1e3,
           jr.jr_error ? ": " : "", jr.jr_reason);
    sk_frontend_destroy(fe);
    for (int i = 0; i < nnodes; i++)
        sk_executor_destroy(workers[i].w_ex);
    return jr.jr_ok == jr.jr_tasks ? 0 : 1;
}
