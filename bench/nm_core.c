/*
 * bench/nm_core.c - what the node monitor core costs per short task, and
 * that the cost does not grow with the number of users or of queued
 * reservations.
 *
 * One task's life through the core is three inputs (ENQUEUE_RESERVATION,
 * TASK_REPLY, TASK_FINISHED) and three outputs (GET_TASK, LAUNCH_TASK,
 * TASK_STARTED, plus the forwarded TASK_FINISHED). The anchor, measured in
 * the same run, is what a daemon must pay anyway for those three inputs:
 * encoding and decoding them with the protocol library. Each scenario keeps
 * 16 slots busy with a stream of priority-0 tasks from `users` users while
 * `backlog` priority-7 reservations wait behind them (never served), and
 * reports nanoseconds per task as the median of the runs with [min-max],
 * and the ratio of the core's median to the anchor's.
 *
 * Usage: bench/nm_core [--quick] [--runs N] [--tasks N]
 */
#include "nm_core.h"
#include "sk_log.h"
#include "sk_proto.h"
#include "skylark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SCHED 1
#define RING  256

typedef struct scenario {
    const char *sc_name;
    uint32_t sc_users;
    uint32_t sc_backlog;
} scenario;

typedef struct event {
    bool ev_finish; /* else: answer a GET_TASK */
    uint64_t ev_job;
} event;

static event ring[RING];
static unsigned ring_head, ring_len;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void push_event(bool finish, uint64_t job)
{
    if (ring_len == RING) {
        fprintf(stderr, "nm_core: event ring overflow\n");
        exit(1);
    }
    ring[(ring_head + ring_len++) % RING] = (event){finish, job};
}

/* Turn the core's output into the next inputs, then clear it. */
static void harvest(nm_core *nm)
{
    sk_outbox *ob = nm_outbox(nm);
    for (size_t i = 0; i < ob->ob_len; i++) {
        const sk_msg *m = &ob->ob_msgs[i].o_msg;
        if (m->m_type == SK_MSG_GET_TASK)
            push_event(false, m->m_get_task.gt_job);
        else if (m->m_type == SK_MSG_LAUNCH_TASK)
            push_event(true, m->m_launch.lt_job);
    }
    sk_outbox_clear(ob);
}

static void enqueue(nm_core *nm, uint64_t job, const char *user, uint8_t prio)
{
    sk_msg m = {.m_type = SK_MSG_ENQUEUE_RESERVATION};
    m.m_enqueue.er_job = job;
    m.m_enqueue.er_resv = job;
    m.m_enqueue.er_user = user;
    m.m_enqueue.er_priority = prio;
    m.m_enqueue.er_count = 1;
    m.m_enqueue.er_res = (sk_resources){100, 64};
    m.m_enqueue.er_task = SK_TASK_ANY;
    nm_on_message(nm, SCHED, &m, job);
    harvest(nm);
}

/* Nanoseconds per task through the core. */
static double run_core(const scenario *sc, uint32_t ntasks)
{
    nm_config cfg;
    nm_config_init(&cfg, 16);
    cfg.nc_max_queued = 1000000;
    cfg.nc_max_users = 16384;
    nm_core *nm;
    if (nm_new(&cfg, NULL, 1, &nm) != 0)
        exit(1);
    sk_hello h = {.he_role = SK_ROLE_SCHEDULER, .he_id = 1, .he_name = "s"};
    nm_peer_up(nm, SCHED, &h, 0);
    harvest(nm);
    char(*names)[16] = calloc(sc->sc_users, sizeof *names);
    if (names == NULL)
        exit(1);
    for (uint32_t u = 0; u < sc->sc_users; u++)
        snprintf(names[u], sizeof names[u], "user%u", u);
    ring_head = ring_len = 0;
    uint64_t job = 1;
    /* The stream's first reservations take the slots; the backlog then
     * queues behind the rest and is never served. */
    for (int i = 0; i < 64; i++, job++)
        enqueue(nm, job, names[job % sc->sc_users], 0);
    for (uint32_t b = 0; b < sc->sc_backlog; b++)
        enqueue(nm, (1ull << 40) + b, "backlog", 7);

    uint32_t done = 0;
    double t0 = now_ns();
    while (done < ntasks && ring_len > 0) {
        event ev = ring[ring_head];
        ring_head = (ring_head + 1) % RING;
        ring_len--;
        sk_msg m = {0};
        if (ev.ev_finish) {
            m.m_type = SK_MSG_TASK_FINISHED;
            m.m_task_finished.tf_job = ev.ev_job;
            m.m_task_finished.tf_node = "";
            m.m_task_finished.tf_status = SK_TASK_OK;
            nm_on_message(nm, NM_PEER_COMMAND, &m, job);
            harvest(nm);
            done++;
            enqueue(nm, job, names[job % sc->sc_users], 0);
            job++;
        } else {
            m.m_type = SK_MSG_TASK_REPLY;
            m.m_task_reply.tr_job = ev.ev_job;
            m.m_task_reply.tr_resv = ev.ev_job;
            m.m_task_reply.tr_has_task = true;
            m.m_task_reply.tr_spec = (sk_bytes){(const uint8_t *)"run", 3};
            m.m_task_reply.tr_framework = "";
            nm_on_message(nm, SCHED, &m, job);
            harvest(nm);
        }
    }
    double t1 = now_ns();
    nm_slot_info si;
    nm_slots(nm, &si);
    if (done < ntasks || si.si_queued < sc->sc_backlog) {
        fprintf(stderr, "nm_core: scenario %s stalled (%u tasks, %u queued)\n",
                sc->sc_name, done, si.si_queued);
        exit(1);
    }
    nm_free(nm);
    free(names);
    return (t1 - t0) / ntasks;
}

/* Nanoseconds per task to encode and decode its three inputs. */
static double run_codec(uint32_t ntasks)
{
    sk_msg in[3] = {{.m_type = SK_MSG_ENQUEUE_RESERVATION},
                    {.m_type = SK_MSG_TASK_REPLY},
                    {.m_type = SK_MSG_TASK_FINISHED}};
    in[0].m_enqueue.er_user = "user1";
    in[0].m_enqueue.er_count = 1;
    in[0].m_enqueue.er_res = (sk_resources){100, 64};
    in[0].m_enqueue.er_task = SK_TASK_ANY;
    in[1].m_task_reply.tr_has_task = true;
    in[1].m_task_reply.tr_spec = (sk_bytes){(const uint8_t *)"run", 3};
    in[1].m_task_reply.tr_framework = "";
    in[2].m_task_finished.tf_node = "";
    in[2].m_task_finished.tf_status = SK_TASK_OK;
    sk_buf buf = SK_BUF_INIT;
    double t0 = now_ns();
    for (uint32_t t = 0; t < ntasks; t++) {
        in[0].m_enqueue.er_job = in[0].m_enqueue.er_resv = t;
        in[1].m_task_reply.tr_job = in[1].m_task_reply.tr_resv = t;
        in[2].m_task_finished.tf_job = t;
        for (int k = 0; k < 3; k++) {
            sk_msg out;
            if (sk_msg_encode(&buf, &in[k]) != 0 ||
                sk_msg_decode(buf.b_data, buf.b_len, &out) != 0)
                exit(1);
            sk_msg_free(&out);
        }
    }
    double t1 = now_ns();
    sk_buf_free(&buf);
    return (t1 - t0) / ntasks;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int runs = 5;
    uint32_t ntasks = 200000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            runs = 3;
            ntasks = 20000;
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--tasks") == 0 && i + 1 < argc) {
            ntasks = (uint32_t)atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--quick] [--runs N] [--tasks N]\n",
                    argv[0]);
            return 2;
        }
    }
    if (runs < 1 || runs > 100 || ntasks < 1) {
        fprintf(stderr, "nm_core: --runs must be 1..100, --tasks >= 1\n");
        return 2;
    }
    sk_log_set_level(SK_LOG_ERROR);
    static const scenario scenarios[] = {
        {"1 user", 1, 0},
        {"100 users", 100, 0},
        {"10000 users", 10000, 0},
        {"100 users, 100k backlog", 100, 100000},
    };
    printf("%-26s %26s %26s %8s\n", "scenario", "core ns/task [min-max]",
           "codec ns/task [min-max]", "ratio");
    for (size_t s = 0; s < sizeof scenarios / sizeof scenarios[0]; s++) {
        double core[100], codec[100];
        for (int r = 0; r < runs; r++) {
            core[r] = run_core(&scenarios[s], ntasks);
            codec[r] = run_codec(ntasks);
        }
        qsort(core, (size_t)runs, sizeof core[0], cmp_double);
        qsort(codec, (size_t)runs, sizeof codec[0], cmp_double);
        double cm = core[runs / 2], am = codec[runs / 2];
        char a[64], b[64];
        snprintf(a, sizeof a, "%.0f [%.0f-%.0f]", cm, core[0], core[runs - 1]);
        snprintf(b, sizeof b, "%.0f [%.0f-%.0f]", am, codec[0],
                 codec[runs - 1]);
        printf("%-26s %26s %26s %8.2f\n", scenarios[s].sc_name, a, b, cm / am);
    }
    return 0;
}
