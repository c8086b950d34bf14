/*
 * test_nm_core.c - the node monitor core driven directly, without sockets:
 * fair queueing, priorities, resource fit, cancellation, GET_TASK and late
 * binding, executors, peers going down, long-task reservations, heartbeats,
 * status and the counting of stale or unknown input.
 */
#include "nm_core.h"
#include "sk_config.h"
#include "sk_core.h"
#include "sk_log.h"
#include "sk_proto.h"
#include "skylark.h"
#include "tap.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Peers as the test numbers them. */
enum { SCHED = 10, SCHED2 = 11, EXEC = 20, FLOWD = 30, TOOL = 40 };
#define SCHED_ID  7
#define SCHED2_ID 8

static sk_buf encbuf = SK_BUF_INIT;
static int encode_failures;

/* Every message the core emits must be one the protocol can encode. */
static void drain(nm_core *nm)
{
    sk_outbox *ob = nm_outbox(nm);
    for (size_t i = 0; i < ob->ob_len; i++) {
        int rc = sk_msg_encode(&encbuf, &ob->ob_msgs[i].o_msg);
        if (rc != 0 && encode_failures++ < 5) {
            tap_diag("cannot encode %s: %s",
                     sk_msg_type_name(ob->ob_msgs[i].o_msg.m_type),
                     sk_strerror(rc));
        }
    }
    sk_outbox_clear(ob);
}

static size_t count(nm_core *nm, sk_msg_type type)
{
    sk_outbox *ob = nm_outbox(nm);
    size_t n = 0;
    for (size_t i = 0; i < ob->ob_len; i++)
        n += ob->ob_msgs[i].o_msg.m_type == type;
    return n;
}

/* The i-th message of a type in the outbox, or NULL; its peer in *to. */
static const sk_msg *nth(nm_core *nm, sk_msg_type type, size_t i, sk_peer *to)
{
    sk_outbox *ob = nm_outbox(nm);
    for (size_t k = 0; k < ob->ob_len; k++) {
        if (ob->ob_msgs[k].o_msg.m_type != type)
            continue;
        if (i-- == 0) {
            if (to != NULL)
                *to = ob->ob_msgs[k].o_peer;
            return &ob->ob_msgs[k].o_msg;
        }
    }
    return NULL;
}

static nm_config base_cfg(uint32_t slots)
{
    nm_config cfg;
    nm_config_init(&cfg, slots);
    snprintf(cfg.nc_node, sizeof cfg.nc_node, "n1");
    cfg.nc_node_id = 3;
    return cfg;
}

static nm_core *make_weighted(const nm_config *cfg, const nm_weights *w)
{
    nm_core *nm;
    if (nm_new(cfg, w, 1, &nm) != 0)
        tap_bail_out("nm_new failed");
    return nm;
}

static nm_core *make(const nm_config *cfg)
{
    return make_weighted(cfg, NULL);
}

static void up(nm_core *nm, sk_peer peer, sk_role role, uint32_t id,
               const char *fw, sk_time now)
{
    sk_hello h = {0};
    h.he_role = (uint8_t)role;
    h.he_id = id;
    h.he_name = "peer";
    h.he_framework = fw;
    drain(nm);
    nm_peer_up(nm, peer, &h, now);
}

/* The usual cast: a scheduler and an executor of framework "spark". */
static void cast(nm_core *nm)
{
    up(nm, SCHED, SK_ROLE_SCHEDULER, SCHED_ID, "", 0);
    up(nm, EXEC, SK_ROLE_EXECUTOR, 0, "spark", 0);
    drain(nm);
}

/* Every message goes through all of nm_prefetch_msg's stages first, as a
 * driver of many cores would send it: the tests then also check that
 * prefetching changes nothing, malformed messages included. */
static void deliver(nm_core *nm, sk_peer from, const sk_msg *m, sk_time now)
{
    drain(nm);
    for (unsigned stage = 0; stage < NM_PREFETCH_STAGES; stage++)
        nm_prefetch_msg(nm, from, m, stage);
    nm_on_message(nm, from, m, now);
}

static void enq_res(nm_core *nm, sk_peer from, uint64_t job, uint64_t resv,
                    const char *user, uint8_t prio, uint32_t n, uint32_t cpu,
                    uint32_t mem, sk_time now)
{
    sk_msg m = {.m_type = SK_MSG_ENQUEUE_RESERVATION};
    m.m_enqueue.er_job = job;
    m.m_enqueue.er_resv = resv;
    m.m_enqueue.er_sched = SCHED_ID;
    m.m_enqueue.er_user = user;
    m.m_enqueue.er_priority = prio;
    m.m_enqueue.er_count = n;
    m.m_enqueue.er_res.r_cpu_milli = cpu;
    m.m_enqueue.er_res.r_mem_mb = mem;
    m.m_enqueue.er_task = SK_TASK_ANY;
    deliver(nm, from, &m, now);
}

static void enq(nm_core *nm, uint64_t job, uint64_t resv, const char *user,
                uint8_t prio, uint32_t n, sk_time now)
{
    enq_res(nm, SCHED, job, resv, user, prio, n, 100, 10, now);
}

static void reply(nm_core *nm, sk_peer from, uint64_t job, uint64_t resv,
                  bool has, uint32_t task, const char *fw, sk_time now)
{
    static const uint8_t spec[] = "echo hi";
    sk_msg m = {.m_type = SK_MSG_TASK_REPLY};
    m.m_task_reply.tr_job = job;
    m.m_task_reply.tr_resv = resv;
    m.m_task_reply.tr_has_task = has;
    m.m_task_reply.tr_framework = has ? fw : "";
    if (has) {
        m.m_task_reply.tr_task = task;
        m.m_task_reply.tr_spec.b_data = spec;
        m.m_task_reply.tr_spec.b_len = sizeof spec;
    }
    deliver(nm, from, &m, now);
}

/* An executor reports the end of task of job: it names the job by the
 * node-local id it was launched under (that of SCHED's or SCHED2's job,
 * or job itself when the core holds no such job). */
static void finish(nm_core *nm, sk_peer exec, uint64_t job, uint32_t task,
                   sk_task_status status, sk_time now)
{
    uint64_t local = nm_job_local(nm, SCHED, job);
    if (local == 0)
        local = nm_job_local(nm, SCHED2, job);
    sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
    m.m_task_finished.tf_job = local != 0 ? local : job;
    m.m_task_finished.tf_task = task;
    m.m_task_finished.tf_node = "";
    m.m_task_finished.tf_status = (uint8_t)status;
    m.m_task_finished.tf_output.b_data = (const uint8_t *)"done";
    m.m_task_finished.tf_output.b_len = 4;
    deliver(nm, exec, &m, now);
}

static void cancel(nm_core *nm, sk_peer from, uint64_t job)
{
    sk_msg m = {.m_type = SK_MSG_CANCEL_RESERVATIONS};
    m.m_cancel_resv.cr_job = job;
    deliver(nm, from, &m, 0);
}

static void reserve(nm_core *nm, uint64_t resv, uint64_t job, uint32_t task,
                    uint32_t sched_id, uint32_t cpu, const char *fw,
                    sk_time now)
{
    static const uint8_t spec[] = "long-service";
    sk_msg m = {.m_type = SK_MSG_RESERVE};
    m.m_reserve.rv_resv = resv;
    m.m_reserve.rv_job = job;
    m.m_reserve.rv_task = task;
    m.m_reserve.rv_sched = sched_id;
    m.m_reserve.rv_user = "svc";
    m.m_reserve.rv_res.r_cpu_milli = cpu;
    m.m_reserve.rv_res.r_mem_mb = 10;
    m.m_reserve.rv_spec.b_data = spec;
    m.m_reserve.rv_spec.b_len = sizeof spec;
    m.m_reserve.rv_framework = fw;
    deliver(nm, FLOWD, &m, now);
}

static void release(nm_core *nm, uint64_t resv, uint64_t job, uint32_t task,
                    bool kill)
{
    sk_msg m = {.m_type = SK_MSG_RELEASE};
    m.m_release.rl_resv = resv;
    m.m_release.rl_job = job;
    m.m_release.rl_task = task;
    m.m_release.rl_kill = kill;
    deliver(nm, FLOWD, &m, 0);
}

static nm_slot_info slots(const nm_core *nm)
{
    nm_slot_info si;
    nm_slots(nm, &si);
    return si;
}

static uint32_t user_queued(const nm_core *nm, const char *user)
{
    nm_user_info ui;
    return nm_get_user(nm, user, &ui) == 0 ? ui.ui_queued : 0;
}

/* The reservation id of the only GET_TASK in the outbox, or 0. */
static uint64_t only_get_task(nm_core *nm)
{
    if (count(nm, SK_MSG_GET_TASK) != 1)
        return 0;
    return nth(nm, SK_MSG_GET_TASK, 0, NULL)->m_get_task.gt_resv;
}

/* ---- configuration ---------------------------------------------------- */

static void test_config(void)
{
    nm_config cfg;
    nm_config_init(&cfg, 6);
    nm_weights w = {0};
    tap_ok(cfg.nc_slots == 6 && cfg.nc_cpu_milli == 6000 &&
               cfg.nc_long_share == 0.75,
           "defaults follow the core count");
    sk_config_key keys[NM_CONFIG_NKEYS];
    size_t n = nm_config_keys(&cfg, &w, keys);
    char path[] = "/tmp/test_nm_core_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL)
        tap_bail_out("cannot create a temporary file");
    fputs("[nodemon]\nslots = 3\nlong_share = 0.5\nheartbeat_ms = 250\n"
          "[weights]\nalice = 3\nbob = 1\n",
          f);
    fclose(f);
    char err[256] = "";
    int rc = sk_config_load(keys, n, path, err, sizeof err);
    tap_ok(rc == 0 && cfg.nc_slots == 3 && cfg.nc_long_share == 0.5 &&
               cfg.nc_heartbeat_ms == 250,
           "[nodemon] loads: %s", err);
    tap_ok(nm_weight_of(w.nw_users, w.nw_count, "alice") == 3 &&
               nm_weight_of(w.nw_users, w.nw_count, "bob") == 1 &&
               nm_weight_of(w.nw_users, w.nw_count, "carol") == 1,
           "[weights] loads, unknown users weigh 1");
    rc = sk_config_apply(keys, n, "t", "weights", "eve", "0", err, sizeof err);
    tap_ok(rc == SK_ECONFIG && strstr(err, "eve") != NULL,
           "a zero weight is refused: %s", err);
    unlink(path);
    nm_core *nm;
    w.nw_count = NM_MAX_WEIGHTS + 1;
    tap_is_int(nm_new(&cfg, &w, 1, &nm), SK_ECONFIG,
               "too many weights refused");
    cfg.nc_slots = 0;
    tap_is_int(nm_new(&cfg, NULL, 1, &nm), SK_ECONFIG,
               "invalid config refused");
}

/* ---- fair queueing and priorities ------------------------------------- */

static void test_wfq_shares(void)
{
    nm_config cfg = base_cfg(1);
    nm_weights w = {0};
    nm_weights_set(&w, "u1", 1);
    nm_weights_set(&w, "u2", 2);
    nm_weights_set(&w, "u3", 3);
    nm_core *nm = make_weighted(&cfg, &w);
    cast(nm);
    /* Occupy the slot so that all three are queued before any decision. */
    enq(nm, 99, 99, "u0", 0, 1, 0);
    enq(nm, 1, 1, "u1", 0, 100000, 0);
    enq(nm, 2, 2, "u2", 0, 100000, 0);
    enq(nm, 3, 3, "u3", 0, 100000, 0);
    reply(nm, SCHED, 99, 99, true, 0, "", 0);
    finish(nm, NM_PEER_COMMAND, 99, 0, SK_TASK_OK, 1);
    uint64_t got[5] = {0};
    const int decisions = 6000;
    int bad = 0;
    /* The reservation whose GET_TASK holds the slot. */
    uint64_t r = only_get_task(nm);
    for (int i = 0; i < decisions; i++) {
        if (r < 1 || r > 3) {
            bad++;
            break;
        }
        got[r]++;
        reply(nm, SCHED, r, r, true, (uint32_t)i, "", 2 + (sk_time)i);
        finish(nm, NM_PEER_COMMAND, r, (uint32_t)i, SK_TASK_OK, 3 + (sk_time)i);
        r = only_get_task(nm);
    }
    tap_is_int(bad, 0, "one GET_TASK per freed slot, always");
    for (int u = 1; u <= 3; u++) {
        double share = (double)got[u] / decisions;
        double want = u / 6.0;
        tap_ok(fabs(share - want) <= 0.05 * want,
               "user of weight %d gets %.4f of %d decisions (want %.4f)", u,
               share, decisions, want);
    }
    /* A user arriving late starts at the current virtual time: it gets its
     * share from now on, not a burst for the time it was away. */
    enq(nm, 4, 4, "late", 0, 100000, 100000);
    for (int i = 0; i < 700 && r >= 1 && r <= 4; i++) {
        got[r]++;
        reply(nm, SCHED, r, r, true, 50000 + (uint32_t)i, "", 100001);
        finish(nm, NM_PEER_COMMAND, r, 50000 + (uint32_t)i, SK_TASK_OK, 100002);
        r = only_get_task(nm);
    }
    uint64_t late = got[4];
    /* weights 1+2+3+1: the newcomer deserves 1/7 of 700, 100 */
    tap_ok(late >= 98 && late <= 102,
           "a late user gets its share, not hoarded credit (%llu of 700)",
           (unsigned long long)late);
    nm_free(nm);
}

static void test_priority(void)
{
    nm_config cfg = base_cfg(1);
    nm_core *nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "a", 0, 1, 0); /* takes the slot */
    enq(nm, 2, 2, "a", 5, 1, 0);
    enq(nm, 3, 3, "b", 7, 1, 0);
    enq(nm, 4, 4, "c", 2, 1, 0);
    enq(nm, 5, 5, "b", 0, 1, 0);
    nm_user_info ui;
    nm_get_user(nm, "b", &ui);
    tap_ok(ui.ui_queued == 2 && ui.ui_queued_at[0] == 1 &&
               ui.ui_queued_at[7] == 1,
           "user b is queued at levels 0 and 7");
    reply(nm, SCHED, 1, 1, true, 0, "", 0);
    uint64_t order[4];
    uint64_t running = 1;
    for (int i = 0; i < 4; i++) {
        finish(nm, NM_PEER_COMMAND, running, 0, SK_TASK_OK, 1);
        order[i] = only_get_task(nm);
        reply(nm, SCHED, order[i], order[i], true, 0, "", 1);
        running = order[i];
    }
    tap_ok(order[0] == 5 && order[1] == 4 && order[2] == 2 && order[3] == 3,
           "strict priority: levels 0, 2, 5, 7 in order (got %llu %llu %llu "
           "%llu)",
           (unsigned long long)order[0], (unsigned long long)order[1],
           (unsigned long long)order[2], (unsigned long long)order[3]);
    nm_free(nm);
}

/* ---- resources -------------------------------------------------------- */

static void test_resources(void)
{
    nm_config cfg = base_cfg(4);
    cfg.nc_cpu_milli = 2000;
    cfg.nc_mem_mb = 1000;
    nm_core *nm = make(&cfg);
    cast(nm);
    enq_res(nm, SCHED, 1, 1, "big", 0, 2, 1500, 100, 0);
    tap_is_int((int64_t)count(nm, SK_MSG_GET_TASK), 1,
               "only one 1500m task fits in 2000m");
    enq_res(nm, SCHED, 2, 2, "small", 0, 1, 500, 100, 0);
    tap_is_int((int64_t)only_get_task(nm), 2,
               "a 500m reservation of another user fits beside it");
    nm_slot_info si = slots(nm);
    tap_ok(si.si_used == 2 && si.si_used_res.r_cpu_milli == 2000,
           "held slots hold their resources (%u slots, %um)", si.si_used,
           si.si_used_res.r_cpu_milli);
    enq_res(nm, SCHED, 3, 3, "huge", 0, 1, 2500, 100, 0);
    tap_ok(nm_get_stats(nm)->ns_unfit == 1 && user_queued(nm, "huge") == 0,
           "a request larger than the node is dropped and counted");
    reply(nm, SCHED, 1, 1, true, 0, "", 1);
    tap_is_int((int64_t)count(nm, SK_MSG_GET_TASK), 0,
               "no GET_TASK while the second 1500m cannot fit");
    reply(nm, SCHED, 2, 2, true, 0, "", 1);
    finish(nm, NM_PEER_COMMAND, 2, 0, SK_TASK_OK, 2);
    tap_is_int((int64_t)count(nm, SK_MSG_GET_TASK), 0,
               "500m free is still not enough for 1500m");
    finish(nm, NM_PEER_COMMAND, 1, 0, SK_TASK_OK, 3);
    tap_is_int((int64_t)only_get_task(nm), 1,
               "the big reservation is served once its resources are free");
    nm_free(nm);
}

/* ---- cancellation, GET_TASK and counts -------------------------------- */

static void test_cancel(void)
{
    nm_config cfg = base_cfg(1);
    nm_core *nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "busy", 0, 1, 0); /* takes the slot */
    enq(nm, 7, 10, "a", 0, 3, 0);
    enq(nm, 7, 11, "b", 4, 1, 0);
    enq(nm, 7, 12, "a", 6, 2, 0);
    enq(nm, 8, 13, "a", 0, 1, 0);
    tap_ok(nm_job_queued(nm, SCHED, 7) == 3 && slots(nm).si_queued == 4,
           "job 7 has three queued reservations, four in all");
    cancel(nm, SCHED, 7);
    nm_user_info ua, ub;
    nm_get_user(nm, "a", &ua);
    nm_get_user(nm, "b", &ub);
    tap_ok(nm_job_queued(nm, SCHED, 7) == 0 && slots(nm).si_queued == 1 &&
               ua.ui_queued == 1 && ua.ui_queued_at[0] == 1 &&
               ub.ui_queued == 0,
           "cancel empties job 7 from every queue, job 8 stays");
    tap_ok(nm_get_stats(nm)->ns_cancelled == 3, "three reservations cancelled");
    cancel(nm, SCHED, 7);
    tap_ok(nm_get_stats(nm)->ns_cancel_unknown == 1,
           "cancelling again is counted as unknown");
    reply(nm, SCHED, 1, 1, true, 0, "", 0);
    finish(nm, NM_PEER_COMMAND, 1, 0, SK_TASK_OK, 1);
    tap_is_int((int64_t)only_get_task(nm), 13,
               "after the cancel, job 8 gets the slot");
    nm_free(nm);
}

static void test_nothing_left(void)
{
    nm_config cfg = base_cfg(1);
    nm_core *nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "a", 0, 5, 0);
    enq(nm, 2, 2, "b", 0, 1, 0);
    tap_is_int((int64_t)only_get_task(nm), 0, "nothing when the slot is taken");
    reply(nm, SCHED, 1, 1, false, 0, "", 1);
    tap_is_int((int64_t)only_get_task(nm), 2,
               "\"nothing left\" moves on to the next reservation at once");
    tap_ok(user_queued(nm, "a") == 0 && slots(nm).si_fetching == 1,
           "the rest of the exhausted reservation is dropped");
    reply(nm, SCHED, 2, 2, false, 0, "", 2);
    nm_slot_info si = slots(nm);
    tap_ok(si.si_used == 0 && si.si_queued == 0 &&
               nm_get_stats(nm)->ns_replies_empty == 2,
           "the slot is released when nothing is left");
    nm_free(nm);
}

static void test_count_k(void)
{
    nm_config cfg = base_cfg(8);
    nm_core *nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "a", 0, 3, 0);
    tap_is_int((int64_t)count(nm, SK_MSG_GET_TASK), 3,
               "er_count 3 on 8 free slots: three GET_TASKs at once");
    tap_ok(slots(nm).si_queued == 0 && slots(nm).si_fetching == 3,
           "the reservation leaves the queue after three");
    for (uint32_t t = 0; t < 3; t++)
        reply(nm, SCHED, 1, 1, true, t, "", 1);
    reply(nm, SCHED, 1, 1, true, 9, "", 1);
    tap_ok(nm_get_stats(nm)->ns_stale_replies == 1 && slots(nm).si_running == 3,
           "a fourth reply for it is stale");
    nm_free(nm);

    cfg = base_cfg(1);
    nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "a", 0, 3, 0);
    int asks = 0;
    for (uint32_t t = 0; t < 5; t++) {
        if (only_get_task(nm) != 1)
            break;
        asks++;
        reply(nm, SCHED, 1, 1, true, t, "", 1);
        finish(nm, NM_PEER_COMMAND, 1, t, SK_TASK_OK, 2);
    }
    tap_is_int(asks, 3, "on one slot, k = 3 yields exactly 3 GET_TASKs");
    nm_free(nm);
}

static void test_queue_bound(void)
{
    nm_config cfg = base_cfg(1);
    cfg.nc_max_queued = 3;
    nm_core *nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "a", 0, 1, 0); /* served at once: not queued */
    for (uint64_t r = 2; r <= 6; r++)
        enq(nm, r, r, "a", 0, 1, 0);
    tap_ok(slots(nm).si_queued == 3 && nm_get_stats(nm)->ns_queue_full == 2,
           "over max_queued the newest reservations are dropped and counted");
    reply(nm, SCHED, 1, 1, true, 0, "", 0);
    finish(nm, NM_PEER_COMMAND, 1, 0, SK_TASK_OK, 1);
    tap_is_int((int64_t)only_get_task(nm), 2, "accepted ones are still served");
    enq(nm, 7, 7, "a", 0, 1, 0);
    tap_ok(slots(nm).si_queued == 3, "room is made as reservations leave");
    nm_free(nm);
}

/* Over max_users users referenced, a reservation of one more user is
 * dropped and counted; a user nothing holds any more makes room. */
static void test_user_bound(void)
{
    nm_config cfg = base_cfg(1);
    cfg.nc_max_users = 2;
    nm_core *nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "a", 0, 1, 0); /* served at once: a holds the slot */
    enq(nm, 2, 2, "b", 0, 1, 0);
    enq(nm, 3, 3, "c", 0, 1, 0);
    tap_ok(nm_get_stats(nm)->ns_users_full == 1 && slots(nm).si_queued == 1 &&
               user_queued(nm, "b") == 1 && user_queued(nm, "c") == 0,
           "a third user over max_users 2: its reservation is dropped and "
           "counted");
    reply(nm, SCHED, 1, 1, true, 0, "", 1);
    finish(nm, NM_PEER_COMMAND, 1, 0, SK_TASK_OK, 2);
    tap_is_int((int64_t)only_get_task(nm), 2, "b's reservation is served");
    enq(nm, 3, 3, "c", 0, 1, 3);
    tap_ok(nm_get_stats(nm)->ns_users_full == 1 && user_queued(nm, "c") == 1,
           "with a's task done, c takes a's place");
    nm_free(nm);
}

/* ---- executors -------------------------------------------------------- */

static void test_get_task_timeout(void)
{
    nm_config cfg = base_cfg(1);
    cfg.nc_get_task_timeout_ms = 100;
    nm_core *nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "a", 0, 2, 0);
    enq(nm, 2, 2, "b", 0, 1, 10);
    tap_ok(nm_next_deadline(nm) == 100000,
           "a GET_TASK sets a deadline get_task_timeout_ms later");
    drain(nm);
    nm_on_timer(nm, 99999);
    tap_ok(nm_outbox(nm)->ob_len == 0 && slots(nm).si_fetching == 1,
           "nothing happens before it");
    drain(nm);
    nm_on_timer(nm, 100000);
    tap_ok(nm_get_stats(nm)->ns_get_task_timeouts == 1 &&
               only_get_task(nm) == 2 && slots(nm).si_fetching == 1,
           "an unanswered GET_TASK gives its slot to the next reservation");
    tap_ok(user_queued(nm, "a") == 1,
           "the timed-out reservation keeps its place for its second slot");
    reply(nm, SCHED, 1, 1, true, 0, "", 100001);
    sk_peer to;
    const sk_msg *f = nth(nm, SK_MSG_TASK_FINISHED, 0, &to);
    tap_ok(f != NULL && to == SCHED && count(nm, SK_MSG_LAUNCH_TASK) == 0 &&
               f->m_task_finished.tf_status == SK_TASK_FAILED &&
               nm_get_stats(nm)->ns_stale_replies == 1,
           "a task arriving too late is refused as FAILED, not lost");
    reply(nm, SCHED, 2, 2, true, 0, "", 100002);
    tap_ok(count(nm, SK_MSG_LAUNCH_TASK) == 1 && slots(nm).si_running == 1 &&
               nm_next_deadline(nm) == SK_TIME_NEVER,
           "the answered one launches; no deadline is left");
    nm_free(nm);
}

static void test_executors(void)
{
    nm_config cfg = base_cfg(4);
    nm_core *nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "a", 0, 3, 0);
    sk_peer to;
    reply(nm, SCHED, 1, 1, true, 0, "spark", 5);
    const sk_msg *l = nth(nm, SK_MSG_LAUNCH_TASK, 0, &to);
    const sk_msg *s = nth(nm, SK_MSG_TASK_STARTED, 0, NULL);
    tap_ok(l != NULL && to == EXEC && l->m_launch.lt_task == 0 &&
               strcmp(l->m_launch.lt_user, "a") == 0 &&
               l->m_launch.lt_spec.b_len == 8 && s != NULL &&
               s->m_task_started.st_launch_us == 5 &&
               strcmp(s->m_task_started.st_node, "n1") == 0,
           "framework spark goes to its executor, TASK_STARTED to the "
           "scheduler");
    reply(nm, SCHED, 1, 1, true, 1, "", 5);
    l = nth(nm, SK_MSG_LAUNCH_TASK, 0, &to);
    tap_ok(l != NULL && to == NM_PEER_COMMAND,
           "framework \"\" goes to the command executor");
    reply(nm, SCHED, 1, 1, true, 2, "hadoop", 5);
    const sk_msg *f = nth(nm, SK_MSG_TASK_FINISHED, 0, &to);
    tap_ok(f != NULL && to == SCHED && count(nm, SK_MSG_LAUNCH_TASK) == 0 &&
               f->m_task_finished.tf_status == SK_TASK_FAILED &&
               f->m_task_finished.tf_task == 2 &&
               memmem(f->m_task_finished.tf_output.b_data,
                      f->m_task_finished.tf_output.b_len, "hadoop", 6) != NULL,
           "no executor for hadoop: FAILED at once with the reason");
    tap_ok(slots(nm).si_used == 2 && nm_get_stats(nm)->ns_no_executor == 1,
           "the failed task's slot is free again");
    finish(nm, EXEC, 1, 1, SK_TASK_OK, 6);
    tap_ok(nm_get_stats(nm)->ns_stale_finished == 1 && slots(nm).si_used == 2,
           "TASK_FINISHED from an executor not running the task is stale");
    finish(nm, EXEC, 1, 0, SK_TASK_OK, 6);
    f = nth(nm, SK_MSG_TASK_FINISHED, 0, &to);
    tap_ok(f != NULL && to == SCHED &&
               f->m_task_finished.tf_status == SK_TASK_OK &&
               strcmp(f->m_task_finished.tf_node, "n1") == 0 &&
               f->m_task_finished.tf_output.b_len == 4,
           "TASK_FINISHED is forwarded to the scheduler");

    /* KILL_TASK passes through to the executor running the attempt. */
    sk_msg k = {.m_type = SK_MSG_KILL_TASK};
    k.m_kill_task.kt_job = 1;
    k.m_kill_task.kt_task = 1;
    deliver(nm, SCHED, &k, 7);
    const sk_msg *km = nth(nm, SK_MSG_KILL_TASK, 0, &to);
    tap_ok(km != NULL && to == NM_PEER_COMMAND && km->m_kill_task.kt_task == 1,
           "KILL_TASK goes to the executor running the task");
    k.m_kill_task.kt_task = 42;
    deliver(nm, SCHED, &k, 7);
    tap_ok(count(nm, SK_MSG_KILL_TASK) == 0 &&
               nm_get_stats(nm)->ns_kill_unknown == 1,
           "KILL_TASK for no running task is counted");

    /* Executor down: its tasks are lost. */
    enq(nm, 2, 2, "b", 0, 1, 8);
    reply(nm, SCHED, 2, 2, true, 0, "spark", 8);
    tap_is_int(slots(nm).si_running, 2, "two tasks run");
    drain(nm);
    nm_peer_down(nm, EXEC, 9);
    f = nth(nm, SK_MSG_TASK_FINISHED, 0, &to);
    tap_ok(count(nm, SK_MSG_TASK_FINISHED) == 1 && to == SCHED &&
               f->m_task_finished.tf_status == SK_TASK_LOST &&
               f->m_task_finished.tf_job == 2,
           "executor down: its task is reported LOST");
    tap_ok(slots(nm).si_running == 1 && nm_get_stats(nm)->ns_lost == 1,
           "only the command executor's task still runs");
    reply(nm, SCHED, 1, 1, true, 5, "spark", 10);
    tap_ok(count(nm, SK_MSG_LAUNCH_TASK) == 0,
           "after the executor left, its framework has no executor");
    nm_free(nm);
}

/* A framework whose executor left (killed, stalled past the timeout, or
 * restarting) is away until one registers again: the tasks the node
 * fetched for it go back LOST, to run elsewhere, and the job's other
 * reservations here are dropped, so that the node does not fail (or
 * take the attempts of) every task of the framework it can fetch. */
static void test_executor_away(void)
{
    nm_config cfg = base_cfg(2);
    nm_core *nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "a", 0, 6, 0);
    reply(nm, SCHED, 1, 1, true, 0, "spark", 1);
    reply(nm, SCHED, 1, 1, true, 1, "spark", 1);
    tap_ok(slots(nm).si_running == 2 && user_queued(nm, "a") == 1,
           "two tasks of spark run, the reservation waits for more slots");
    enq(nm, 2, 2, "b", 0, 1, 2);
    drain(nm);
    nm_peer_down(nm, EXEC, 3);
    tap_ok(count(nm, SK_MSG_TASK_FINISHED) == 2 &&
               nm_get_stats(nm)->ns_lost == 2,
           "the executor leaves: its two tasks are LOST");
    tap_ok(count(nm, SK_MSG_GET_TASK) == 2 && slots(nm).si_fetching == 2,
           "the freed slots ask for tasks again");
    /* Which reservation each GET_TASK serves follows the fair queue;
     * answer job 1's with its next task. */
    reply(nm, SCHED, 1, 1, true, 2, "spark", 4);
    sk_peer to;
    const sk_msg *f = nth(nm, SK_MSG_TASK_FINISHED, 0, &to);
    tap_ok(f != NULL && to == SCHED && count(nm, SK_MSG_LAUNCH_TASK) == 0 &&
               f->m_task_finished.tf_status == SK_TASK_LOST &&
               f->m_task_finished.tf_task == 2 &&
               memmem(f->m_task_finished.tf_output.b_data,
                      f->m_task_finished.tf_output.b_len, "is away",
                      7) != NULL &&
               nm_get_stats(nm)->ns_executor_away == 1 &&
               nm_get_stats(nm)->ns_no_executor == 0,
           "a task of spark now goes back LOST, not FAILED, with the reason");
    tap_ok(nm_job_queued(nm, SCHED, 1) == 0 && user_queued(nm, "a") == 0,
           "and the job's reservations here are dropped");
    tap_ok(count(nm, SK_MSG_GET_TASK) == 0 || only_get_task(nm) == 2,
           "the freed slot asks for another job's task, not spark's");
    reply(nm, SCHED, 2, 2, true, 0, "", 5);
    tap_ok(nth(nm, SK_MSG_LAUNCH_TASK, 0, &to) != NULL && to == NM_PEER_COMMAND,
           "other frameworks run as before");

    /* A retry of job 1 probing here again is dropped: this idle node
     * would take it and give it back, attempt after attempt. */
    enq(nm, 1, 9, "a", 0, 1, 5);
    tap_ok(nm_get_stats(nm)->ns_resv_away == 1 &&
               nm_job_queued(nm, SCHED, 1) == 0,
           "a new reservation of a job given back is dropped");
    /* A new executor of spark registers: its tasks launch again. */
    up(nm, EXEC + 1, SK_ROLE_EXECUTOR, 0, "spark", 6);
    enq(nm, 1, 10, "a", 0, 1, 6);
    tap_ok(nm_get_stats(nm)->ns_resv_away == 1 &&
               nm_job_queued(nm, SCHED, 1) + slots(nm).si_fetching >= 1,
           "with spark back, the job's reservations are taken again");
    reply(nm, SCHED, 1, 10, false, 0, "", 6); /* nothing left: slot back */
    enq(nm, 3, 3, "a", 0, 1, 6);
    reply(nm, SCHED, 3, 3, true, 0, "spark", 7);
    tap_ok(nth(nm, SK_MSG_LAUNCH_TASK, 0, &to) != NULL && to == EXEC + 1,
           "an executor of the framework back: its tasks launch");
    /* An older executor leaving while a newer one serves: not away. */
    up(nm, EXEC + 2, SK_ROLE_EXECUTOR, 0, "spark", 8);
    nm_peer_down(nm, EXEC + 1, 9);
    drain(nm);
    nm_peer_down(nm, NM_PEER_COMMAND, 9);
    enq(nm, 4, 4, "a", 0, 1, 10);
    reply(nm, SCHED, 4, 4, true, 0, "spark", 10);
    tap_ok(nth(nm, SK_MSG_LAUNCH_TASK, 0, &to) != NULL && to == EXEC + 2,
           "an older executor leaving leaves the framework to the newer one");
    /* A framework never registered here still fails at once. */
    enq(nm, 5, 5, "a", 0, 1, 11);
    reply(nm, SCHED, 5, 5, true, 0, "hadoop", 11);
    f = nth(nm, SK_MSG_TASK_FINISHED, 0, NULL);
    tap_ok(f != NULL && f->m_task_finished.tf_status == SK_TASK_FAILED &&
               nm_get_stats(nm)->ns_no_executor == 1,
           "a framework never seen here: FAILED at once, as before");
    nm_free(nm);
}

/* Two schedulers number their jobs alike: the same job id, task and
 * attempt from both run side by side, under distinct node-local ids, and
 * each end reaches its own scheduler under that scheduler's id. */
static void test_two_schedulers(void)
{
    nm_config cfg = base_cfg(4);
    nm_core *nm = make(&cfg);
    cast(nm);
    up(nm, SCHED2, SK_ROLE_SCHEDULER, SCHED2_ID, "", 0);
    enq(nm, 1, 1, "a", 0, 1, 1);
    sk_msg m = {.m_type = SK_MSG_ENQUEUE_RESERVATION};
    m.m_enqueue =
        (sk_enqueue){1, 1, SCHED2_ID, "b", 0, 1, {100, 10}, SK_TASK_ANY};
    deliver(nm, SCHED2, &m, 1);
    tap_is_int(count(nm, SK_MSG_GET_TASK), 1, "the second scheduler is asked");
    reply(nm, SCHED, 1, 1, true, 0, "spark", 2);
    const sk_msg *l = nth(nm, SK_MSG_LAUNCH_TASK, 0, NULL);
    uint64_t first = l != NULL ? l->m_launch.lt_job : 0;
    reply(nm, SCHED2, 1, 1, true, 0, "spark", 2);
    l = nth(nm, SK_MSG_LAUNCH_TASK, 0, NULL);
    uint64_t second = l != NULL ? l->m_launch.lt_job : 0;
    tap_ok(first != 0 && second != 0 && first != second &&
               slots(nm).si_running == 2 &&
               nm_get_stats(nm)->ns_task_collisions == 0,
           "job 1 task 0 of both schedulers runs, as local jobs %llu and "
           "%llu",
           (unsigned long long)first, (unsigned long long)second);
    tap_ok(nm_job_local(nm, SCHED, 1) == first &&
               nm_job_local(nm, SCHED2, 1) == second,
           "nm_job_local names them");
    sk_msg f = {.m_type = SK_MSG_TASK_FINISHED};
    f.m_task_finished = (sk_task_finished){
        .tf_job = second, .tf_node = "", .tf_status = SK_TASK_OK};
    deliver(nm, EXEC, &f, 3);
    sk_peer to;
    const sk_msg *out = nth(nm, SK_MSG_TASK_FINISHED, 0, &to);
    tap_ok(out != NULL && to == SCHED2 && out->m_task_finished.tf_job == 1 &&
               slots(nm).si_running == 1,
           "the second scheduler's task ends at the second scheduler, as job "
           "1");
    f.m_task_finished.tf_job = first;
    deliver(nm, EXEC, &f, 4);
    out = nth(nm, SK_MSG_TASK_FINISHED, 0, &to);
    tap_ok(out != NULL && to == SCHED && out->m_task_finished.tf_job == 1 &&
               slots(nm).si_running == 0,
           "the first scheduler's at the first");
    nm_free(nm);
}

static void test_scheduler_down(void)
{
    nm_config cfg = base_cfg(2);
    nm_core *nm = make(&cfg);
    cast(nm);
    up(nm, SCHED2, SK_ROLE_SCHEDULER, SCHED2_ID, "", 0);
    enq_res(nm, SCHED2, 1, 1, "a", 0, 1, 100, 10, 0);
    enq_res(nm, SCHED2, 2, 2, "a", 0, 1, 100, 10, 0);
    reply(nm, SCHED2, 1, 1, true, 0, "spark", 1); /* runs; 2 is fetching */
    enq_res(nm, SCHED2, 3, 3, "a", 0, 1, 100, 10, 1);
    enq_res(nm, SCHED, 4, 4, "b", 0, 1, 100, 10, 1);
    nm_slot_info si = slots(nm);
    tap_ok(si.si_running == 1 && si.si_fetching == 1 && si.si_queued == 2,
           "one running, one fetching, two queued");
    drain(nm);
    nm_peer_down(nm, SCHED2, 2);
    si = slots(nm);
    tap_ok(user_queued(nm, "a") == 0 && si.si_running == 1,
           "scheduler down: its reservations are gone, its task is an "
           "orphan (grace 0: killed, so it runs until its executor says)");
    tap_is_int((int64_t)only_get_task(nm), 4,
               "the slot it held for a GET_TASK goes to the next reservation");
    finish(nm, EXEC, 1, 0, SK_TASK_OK, 3);
    tap_ok(nm_outbox(nm)->ob_len == 0 &&
               nm_get_stats(nm)->ns_results_dropped == 1 &&
               slots(nm).si_running == 0,
           "its task's result is dropped with a count, the slot freed");
    reply(nm, SCHED2, 2, 2, true, 0, "", 3);
    tap_ok(nm_get_stats(nm)->ns_unexpected == 1 && slots(nm).si_running == 0,
           "a reply from the departed scheduler is unexpected");
    nm_free(nm);
}

/* A scheduler registering with an incarnation. */
static void up_sched(nm_core *nm, sk_peer peer, uint64_t incarnation,
                     sk_time now)
{
    sk_hello h = {0};
    h.he_role = SK_ROLE_SCHEDULER;
    h.he_id = SCHED_ID;
    h.he_name = "s";
    h.he_incarnation = incarnation;
    drain(nm);
    nm_peer_up(nm, peer, &h, now);
}

/* The executor reports the end of a task it knows as (local, task). */
static void finish_local(nm_core *nm, uint64_t local, uint32_t task,
                         sk_task_status status, sk_time now)
{
    sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
    m.m_task_finished.tf_job = local;
    m.m_task_finished.tf_task = task;
    m.m_task_finished.tf_node = "";
    m.m_task_finished.tf_status = (uint8_t)status;
    deliver(nm, EXEC, &m, now);
}

/* The scheduler kills attempt 0 of task of job. */
static void kill_task(nm_core *nm, sk_peer from, uint64_t job, uint32_t task)
{
    sk_msg k = {.m_type = SK_MSG_KILL_TASK};
    k.m_kill_task.kt_job = job;
    k.m_kill_task.kt_task = task;
    deliver(nm, from, &k, 0);
}

/* The KILL_TASK messages to EXEC in the outbox, as a bit set of tasks. */
static unsigned kills_to_exec(nm_core *nm)
{
    unsigned set = 0;
    sk_peer to;
    const sk_msg *k;
    for (size_t i = 0; (k = nth(nm, SK_MSG_KILL_TASK, i, &to)) != NULL; i++)
        if (to == EXEC && k->m_kill_task.kt_task < 32)
            set |= 1u << k->m_kill_task.kt_task;
    return set;
}

/* Orphans (docs/FAULTS.md): the tasks of a scheduler whose session ended
 * run on for orphan_grace_ms, come back under it when it registers again
 * with the same incarnation (so that it can fence them), are killed when
 * another incarnation registers, and when their grace ends. */
static void test_orphans(void)
{
    const sk_time grace = 1000 * 1000;
    nm_config cfg = base_cfg(4);
    cfg.nc_orphan_grace_ms = 1000;
    nm_core *nm = make(&cfg);
    up_sched(nm, SCHED, 5, 0);
    up(nm, EXEC, SK_ROLE_EXECUTOR, 0, "spark", 0);
    enq_res(nm, SCHED, 1, 1, "a", 0, 3, 100, 10, 0);
    reply(nm, SCHED, 1, 1, true, 0, "spark", 1);
    uint64_t local = nm_job_local(nm, SCHED, 1);
    reply(nm, SCHED, 1, 1, true, 1, "spark", 2);
    reply(nm, SCHED, 1, 1, true, 2, "spark", 3);
    drain(nm);
    nm_peer_down(nm, SCHED, 10);
    const nm_stats *st = nm_get_stats(nm);
    tap_ok(count(nm, SK_MSG_KILL_TASK) == 0 && slots(nm).si_running == 3 &&
               st->ns_orphaned == 3 && nm_next_deadline(nm) == 10 + grace,
           "scheduler down: its 3 tasks run on as orphans, killed at the "
           "end of the grace");
    finish_local(nm, local, 2, SK_TASK_OK, 20);
    tap_ok(nm_outbox(nm)->ob_len == 0 && st->ns_results_dropped == 1 &&
               slots(nm).si_running == 2,
           "an orphan's result has nobody to go to: dropped, counted");

    /* A new session is a new peer to the core. */
    up_sched(nm, SCHED2, 5, 500 * 1000);
    const sk_msg *m0 = nth(nm, SK_MSG_TASK_STARTED, 0, NULL);
    const sk_msg *m1 = nth(nm, SK_MSG_TASK_STARTED, 1, NULL);
    sk_peer to;
    tap_ok(nm_outbox(nm)->ob_len == 2 && m1 != NULL &&
               nth(nm, SK_MSG_TASK_STARTED, 0, &to) != NULL && to == SCHED2 &&
               m0->m_task_started.st_job == 1 &&
               m0->m_task_started.st_task == 0 &&
               m0->m_task_started.st_launch_us == 1 &&
               m1->m_task_started.st_task == 1 && st->ns_orphans_reclaimed == 2,
           "its session back (same incarnation): the 2 running orphans are "
           "re-announced (TASK_STARTED, launch time kept), nothing else");
    tap_ok(nm_next_deadline(nm) == SK_TIME_NEVER,
           "reclaimed, they have no grace to run out");
    kill_task(nm, SCHED2, 1, 0);
    tap_ok(kills_to_exec(nm) == 1u, "the scheduler fences attempt 0 of "
                                    "task 0: the kill reaches the executor");
    finish_local(nm, local, 0, SK_TASK_KILLED, 501 * 1000);
    const sk_msg *f = nth(nm, SK_MSG_TASK_FINISHED, 0, &to);
    tap_ok(f != NULL && to == SCHED2 && f->m_task_finished.tf_job == 1 &&
               f->m_task_finished.tf_status == SK_TASK_KILLED &&
               slots(nm).si_running == 1,
           "its end goes to the scheduler again, the slot is free");

    drain(nm);
    nm_peer_down(nm, SCHED2, 600 * 1000);
    up_sched(nm, SCHED, 6, 700 * 1000);
    tap_ok(kills_to_exec(nm) == 2u && count(nm, SK_MSG_TASK_STARTED) == 0 &&
               st->ns_orphans_killed == 1,
           "a restarted scheduler (another incarnation): task 1, orphaned "
           "again, is killed, not re-announced");
    finish_local(nm, local, 1, SK_TASK_KILLED, 701 * 1000);
    tap_ok(slots(nm).si_running == 0 && st->ns_results_dropped == 2,
           "its end is dropped; nothing runs");

    enq_res(nm, SCHED, 2, 2, "a", 0, 1, 100, 10, 800 * 1000);
    reply(nm, SCHED, 2, 2, true, 0, "spark", 800 * 1000);
    drain(nm);
    nm_peer_down(nm, SCHED, 900 * 1000);
    nm_on_timer(nm, 900 * 1000 + grace - 1);
    bool early = count(nm, SK_MSG_KILL_TASK) == 0;
    nm_on_timer(nm, 900 * 1000 + grace);
    tap_ok(early && kills_to_exec(nm) == 1u && st->ns_orphans_killed == 2 &&
               nm_next_deadline(nm) == SK_TIME_NEVER,
           "an orphan nobody reclaims is killed when its grace ends, not "
           "before");
    nm_free(nm);

    cfg.nc_orphan_grace_ms = 0;
    nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "a", 0, 1, 0);
    reply(nm, SCHED, 1, 1, true, 0, "spark", 1);
    drain(nm);
    nm_peer_down(nm, SCHED, 2);
    tap_ok(kills_to_exec(nm) == 1u && nm_get_stats(nm)->ns_orphans_killed == 1,
           "orphan_grace_ms 0: a scheduler's tasks are killed when it leaves");
    nm_free(nm);
}

/* A task for job with the frontend's name for it (key, ref). */
static void keyed_reply(nm_core *nm, sk_peer from, uint64_t job, uint32_t task,
                        uint64_t key, uint32_t ref, sk_time now)
{
    static const uint8_t spec[] = "echo hi";
    sk_msg m = {.m_type = SK_MSG_TASK_REPLY};
    sk_task_reply *tr = &m.m_task_reply;
    tr->tr_job = job;
    tr->tr_resv = job;
    tr->tr_has_task = true;
    tr->tr_framework = "spark";
    tr->tr_task = task;
    tr->tr_spec = (sk_bytes){spec, sizeof spec};
    tr->tr_key = key;
    tr->tr_ref = ref;
    deliver(nm, from, &m, now);
}

/* The i-th TASK_OUTCOME of the outbox if it went to peer, else NULL. */
static const sk_task_outcome *outcome_to(nm_core *nm, size_t i, sk_peer peer)
{
    sk_peer to;
    const sk_msg *m = nth(nm, SK_MSG_TASK_OUTCOME, i, &to);
    return m != NULL && to == peer ? &m->m_task_outcome : NULL;
}

/* Outcomes (nm_outcome.c, docs/FAULTS.md "Outcomes offered"): a keyed
 * task's outcome is kept; when its scheduler's session ends it is
 * offered to the other schedulers, an orphan's as it ends, and to the
 * same scheduler coming back; outcome_keep_ms and max_outcomes bound
 * what is kept. */
static void test_outcomes(void)
{
    nm_config cfg = base_cfg(4);
    cfg.nc_orphan_grace_ms = 1000;
    cfg.nc_outcome_keep_ms = 1000;
    nm_core *nm = make(&cfg);
    const nm_stats *st = nm_get_stats(nm);
    up_sched(nm, SCHED, 5, 0);
    up(nm, SCHED2, SK_ROLE_SCHEDULER, SCHED2_ID, "", 0);
    up(nm, EXEC, SK_ROLE_EXECUTOR, 0, "spark", 0);
    enq_res(nm, SCHED, 1, 1, "alice", 0, 4, 100, 10, 0);
    keyed_reply(nm, SCHED, 1, 0, 0xfeed, 10, 1);
    uint64_t local = nm_job_local(nm, SCHED, 1);
    keyed_reply(nm, SCHED, 1, 1, 0xfeed, 11, 2);
    reply(nm, SCHED, 1, 1, true, 2, "spark", 3);
    keyed_reply(nm, SCHED, 1, 3, 0xfeed, 13, 4);
    drain(nm);
    finish_local(nm, local, 0, SK_TASK_OK, 10);
    tap_ok(count(nm, SK_MSG_TASK_FINISHED) == 1 &&
               count(nm, SK_MSG_TASK_OUTCOME) == 0 && st->ns_outcomes_kept == 1,
           "a keyed outcome goes to its scheduler and is kept, not offered");
    finish_local(nm, local, 2, SK_TASK_OK, 11);
    kill_task(nm, SCHED, 1, 3);
    finish_local(nm, local, 3, SK_TASK_KILLED, 12);
    tap_ok(st->ns_outcomes_kept == 1,
           "an outcome without a key, or of a killed attempt, is not kept");

    drain(nm);
    nm_peer_down(nm, SCHED, 30);
    const sk_task_outcome *o = outcome_to(nm, 0, SCHED2);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 1 && o != NULL &&
               o->to_key == 0xfeed && o->to_ref == 10 &&
               strcmp(o->to_user, "alice") == 0 && o->to_status == SK_TASK_OK &&
               o->to_launch_us == 1 && o->to_end_us == 0,
           "its scheduler's session ends: the kept outcome is offered to the "
           "other scheduler, under key, ref and user");
    drain(nm);
    finish_local(nm, local, 1, SK_TASK_FAILED, 40);
    o = outcome_to(nm, 0, SCHED2);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 1 && o != NULL &&
               o->to_ref == 11 && o->to_status == SK_TASK_FAILED &&
               st->ns_results_dropped == 1,
           "an orphan's outcome is offered as it ends");
    up_sched(nm, SCHED, 5, 50);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 2 &&
               outcome_to(nm, 0, SCHED) != NULL &&
               outcome_to(nm, 1, SCHED) != NULL && st->ns_outcomes_offered == 4,
           "the same scheduler back is offered its own");
    drain(nm);
    nm_peer_down(nm, SCHED, 10 + 1000 * 1000 + 1);
    o = outcome_to(nm, 0, SCHED2);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 1 && o != NULL && o->to_ref == 11,
           "past outcome_keep_ms an outcome is no longer offered");
    up(nm, 12, SK_ROLE_SCHEDULER, 9, "", 30 + 1000 * 1000);
    o = outcome_to(nm, 0, 12);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 1 && o != NULL && o->to_ref == 11,
           "a scheduler registering is offered those of schedulers not here");
    nm_free(nm);

    cfg.nc_max_outcomes = 1;
    nm = make(&cfg);
    st = nm_get_stats(nm);
    up_sched(nm, SCHED, 5, 0);
    up(nm, EXEC, SK_ROLE_EXECUTOR, 0, "spark", 0);
    enq_res(nm, SCHED, 1, 1, "alice", 0, 2, 100, 10, 0);
    keyed_reply(nm, SCHED, 1, 0, 0xbeef, 0, 1);
    keyed_reply(nm, SCHED, 1, 1, 0xbeef, 1, 2);
    local = nm_job_local(nm, SCHED, 1);
    finish_local(nm, local, 0, SK_TASK_OK, 10);
    finish_local(nm, local, 1, SK_TASK_OK, 11);
    up(nm, SCHED2, SK_ROLE_SCHEDULER, SCHED2_ID, "", 12);
    drain(nm);
    nm_peer_down(nm, SCHED, 13);
    o = outcome_to(nm, 0, SCHED2);
    tap_ok(st->ns_outcomes_full == 1 && count(nm, SK_MSG_TASK_OUTCOME) == 1 &&
               o != NULL && o->to_ref == 1,
           "over max_outcomes the oldest is dropped and counted");
    nm_free(nm);
}

/* A node monitor cut off from every scheduler (a partition of its host)
 * for longer than outcome_keep_ms: its outcomes do not age while no
 * scheduler is connected, and are offered when one is back. */
static void test_outcomes_alone(void)
{
    nm_config cfg = base_cfg(4);
    cfg.nc_outcome_keep_ms = 5000;
    nm_core *nm = make(&cfg);
    up_sched(nm, SCHED, 5, 0);
    up(nm, SCHED2, SK_ROLE_SCHEDULER, SCHED2_ID, "", 0);
    up(nm, EXEC, SK_ROLE_EXECUTOR, 0, "spark", 0);
    enq_res(nm, SCHED, 1, 1, "alice", 0, 2, 100, 10, 0);
    keyed_reply(nm, SCHED, 1, 0, 0xcafe, 7, 1);
    uint64_t local = nm_job_local(nm, SCHED, 1);
    finish_local(nm, local, 0, SK_TASK_OK, 100 * 1000);
    drain(nm);
    /* The cut: the sessions end 3 s later (the timeout; 3.1 s of the 5 s
     * keep used), the link is back 10 s after that, a scheduler
     * registers. */
    nm_peer_down(nm, SCHED, 3100 * 1000);
    nm_peer_down(nm, SCHED2, 3200 * 1000);
    drain(nm);
    up_sched(nm, SCHED, 5, 13200 * 1000);
    const sk_task_outcome *o = outcome_to(nm, 0, SCHED);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 1 && o != NULL &&
               o->to_key == 0xcafe && o->to_ref == 7,
           "cut off from every scheduler for 10 s (keep 5 s): the outcome is "
           "still offered when a scheduler is back");
    up(nm, SCHED2, SK_ROLE_SCHEDULER, SCHED2_ID, "", 13300 * 1000);
    drain(nm);
    nm_peer_down(nm, SCHED, 14500 * 1000);
    o = outcome_to(nm, 0, SCHED2);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 1 && o != NULL && o->to_ref == 7,
           "connected again it ages: 4.4 s counted, still offered");
    drain(nm);
    up_sched(nm, SCHED, 5, 14600 * 1000);
    drain(nm);
    nm_peer_down(nm, SCHED, 15800 * 1000);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 0,
           "5.7 s counted while connected: no longer offered");
    nm_free(nm);
}

/* The ends a previous node monitor process left in the command
 * executor's journal (nm_outcome_recovered): kept and offered like the
 * core's own to the schedulers that register; and nm_task_origin, which
 * the journal's records are written from. */
static void test_outcome_recovered(void)
{
    nm_config cfg = base_cfg(4);
    cfg.nc_outcome_keep_ms = 1000;
    nm_core *nm = make(&cfg);
    const nm_stats *st = nm_get_stats(nm);
    up_sched(nm, SCHED, 5, 0);
    up(nm, EXEC, SK_ROLE_EXECUTOR, 0, "spark", 0);
    enq_res(nm, SCHED, 1, 1, "alice", 0, 2, 100, 10, 0);
    keyed_reply(nm, SCHED, 1, 0, 0xd00d, 4, 1);
    uint64_t local = nm_job_local(nm, SCHED, 1);
    nm_origin o;
    tap_ok(nm_task_origin(nm, local, 0, 0, &o) == 0 && o.or_key == 0xd00d &&
               o.or_ref == 4 && o.or_sched == SCHED_ID && o.or_sched_inc == 5 &&
               strcmp(o.or_user, "alice") == 0,
           "a running task's origin: key, ref, its scheduler and user");
    tap_is_int(nm_task_origin(nm, local, 9, 0, &o), -1,
               "no origin for a task not running");
    nm_free(nm);

    nm = make(&cfg);
    st = nm_get_stats(nm);
    nm_origin done = {0xd00d, 4, SCHED_ID, 5, "alice"};
    nm_origin failed = {0xd00d, 5, SCHED_ID, 5, "alice"};
    nm_origin unkeyed = {0, 6, SCHED_ID, 5, "alice"};
    nm_outcome_recovered(nm, &done, 0, 100, 200, 1000);
    nm_outcome_recovered(nm, &failed, 3, 100, 300, 1000);
    nm_outcome_recovered(nm, &unkeyed, 0, 100, 300, 1000);
    tap_ok(st->ns_outcomes_kept == 2 && count(nm, SK_MSG_TASK_OUTCOME) == 0,
           "two keyed ends read back are kept (not the unkeyed), offered to "
           "no one yet");
    up(nm, SCHED2, SK_ROLE_SCHEDULER, SCHED2_ID, "", 2000);
    const sk_task_outcome *a = outcome_to(nm, 0, SCHED2);
    const sk_task_outcome *b = outcome_to(nm, 1, SCHED2);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 2 && a != NULL && b != NULL &&
               a->to_key == 0xd00d && a->to_ref == 4 &&
               a->to_status == SK_TASK_OK && a->to_exit == 0 &&
               a->to_launch_us == 100 && a->to_end_us == 200 &&
               strcmp(a->to_user, "alice") == 0 && b->to_ref == 5 &&
               b->to_status == SK_TASK_FAILED && b->to_exit == 3,
           "a scheduler that registers is offered them (its scheduler is "
           "not here): exit 0 OK, exit 3 FAILED");
    up_sched(nm, SCHED, 5, 3000);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 2 &&
               outcome_to(nm, 0, SCHED) != NULL,
           "and their own scheduler too when it registers");
    nm_free(nm);
}

/* A long task flowd placed with a key (RESERVE's rv_key, rv_ref,
 * protocol 4): its outcome is kept and offered as a short task's. */
static void test_long_outcome(void)
{
    nm_config cfg = base_cfg(4);
    cfg.nc_outcome_keep_ms = 1000;
    nm_core *nm = make(&cfg);
    up_sched(nm, SCHED, 5, 0);
    up(nm, SCHED2, SK_ROLE_SCHEDULER, SCHED2_ID, "", 0);
    up(nm, EXEC, SK_ROLE_EXECUTOR, 0, "spark", 0);
    up(nm, FLOWD, SK_ROLE_FLOWD, 0, "", 0);
    static const uint8_t spec[] = "long-service";
    sk_msg m = {.m_type = SK_MSG_RESERVE};
    m.m_reserve = (sk_reserve){.rv_resv = 100,
                               .rv_job = 50,
                               .rv_task = 2,
                               .rv_sched = SCHED_ID,
                               .rv_user = "svc",
                               .rv_res = {500, 10},
                               .rv_spec = {spec, sizeof spec},
                               .rv_framework = "spark",
                               .rv_key = 0xcafe,
                               .rv_ref = 17};
    deliver(nm, FLOWD, &m, 1);
    uint64_t local = nm_job_local(nm, SCHED, 50);
    finish_local(nm, local, 2, SK_TASK_OK, 10);
    const nm_stats *st = nm_get_stats(nm);
    tap_is_int((int64_t)st->ns_outcomes_kept, 1,
               "a keyed long task's outcome is kept");
    drain(nm);
    nm_peer_down(nm, SCHED, 20);
    const sk_task_outcome *o = outcome_to(nm, 0, SCHED2);
    tap_ok(o != NULL && o->to_key == 0xcafe && o->to_ref == 17 &&
               strcmp(o->to_user, "svc") == 0 && o->to_status == SK_TASK_OK,
           "and offered to the other scheduler under its key and ref");
    nm_free(nm);
}

/* Executors of one framework replacing each other; the command executor
 * going away. */
static void test_executor_turnover(void)
{
    nm_config cfg = base_cfg(4);
    nm_core *nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "a", 0, 3, 0);
    reply(nm, SCHED, 1, 1, true, 0, "spark", 1);
    up(nm, EXEC + 1, SK_ROLE_EXECUTOR, 0, "spark", 2);
    reply(nm, SCHED, 1, 1, true, 1, "spark", 3);
    sk_peer to;
    tap_ok(nth(nm, SK_MSG_LAUNCH_TASK, 0, &to) != NULL && to == EXEC + 1,
           "a newer executor of a framework takes its new tasks");
    reply(nm, SCHED, 1, 1, true, 2, "", 3);
    drain(nm);
    nm_peer_down(nm, EXEC, 4);
    const sk_msg *f = nth(nm, SK_MSG_TASK_FINISHED, 0, NULL);
    tap_ok(count(nm, SK_MSG_TASK_FINISHED) == 1 &&
               f->m_task_finished.tf_task == 0 && slots(nm).si_running == 2,
           "the older one leaving loses only its own task");
    drain(nm);
    nm_peer_down(nm, NM_PEER_COMMAND, 5);
    f = nth(nm, SK_MSG_TASK_FINISHED, 0, NULL);
    tap_ok(count(nm, SK_MSG_TASK_FINISHED) == 1 &&
               f->m_task_finished.tf_task == 2 &&
               f->m_task_finished.tf_status == SK_TASK_LOST &&
               slots(nm).si_running == 1,
           "the command executor going down loses its tasks");
    enq(nm, 2, 2, "a", 0, 1, 6);
    reply(nm, SCHED, 2, 2, true, 0, "", 6);
    tap_ok(nth(nm, SK_MSG_LAUNCH_TASK, 0, &to) != NULL && to == NM_PEER_COMMAND,
           "and stays registered for new tasks");
    nm_free(nm);
}

/* An executor of framework spark, named name, process incarnation inc. */
static void up_exec_of(nm_core *nm, sk_peer peer, const char *name,
                       uint64_t inc, const char *fw, sk_time now)
{
    sk_hello h = {0};
    h.he_role = SK_ROLE_EXECUTOR;
    h.he_name = name;
    h.he_incarnation = inc;
    h.he_framework = fw;
    drain(nm);
    nm_peer_up(nm, peer, &h, now);
}

static void up_exec(nm_core *nm, sk_peer peer, const char *name, uint64_t inc,
                    sk_time now)
{
    up_exec_of(nm, peer, name, inc, "spark", now);
}

/* The executor peer reports the end of (local, task), attempt 0. */
static void finish_from(nm_core *nm, sk_peer peer, uint64_t local,
                        uint32_t task, sk_task_status status, sk_time now)
{
    sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
    m.m_task_finished.tf_job = local;
    m.m_task_finished.tf_task = task;
    m.m_task_finished.tf_node = "";
    m.m_task_finished.tf_status = (uint8_t)status;
    m.m_task_finished.tf_end_us = (uint64_t)now;
    deliver(nm, peer, &m, now);
}

/* Late outcomes (nm_outcome.c, docs/FAULTS.md "Executors"): the keyed
 * tasks an executor's session loses are reported LOST and remembered;
 * an executor of the same framework (the same process back, or a new one
 * that read its journal) tells how those that ran to their end ended,
 * and the outcome is offered to the task's scheduler, which takes it in
 * place of the retry. Another framework's executor, a killed attempt, a
 * second report or one past outcome_keep_ms offers nothing; before the
 * session's end, a report from a new executor of the same framework
 * ends the task as its own executor's would. */
static void test_executor_late(void)
{
    nm_config cfg = base_cfg(4);
    cfg.nc_outcome_keep_ms = 1000;
    nm_core *nm = make(&cfg);
    const nm_stats *st = nm_get_stats(nm);
    up(nm, SCHED, SK_ROLE_SCHEDULER, SCHED_ID, "", 0);
    up_exec(nm, EXEC, "ex1", 7, 0);
    enq_res(nm, SCHED, 1, 1, "alice", 0, 4, 100, 10, 0);
    for (uint32_t i = 0; i < 4; i++)
        keyed_reply(nm, SCHED, 1, i, 42, 10 + i, 1);
    uint64_t local = nm_job_local(nm, SCHED, 1);
    tap_ok(slots(nm).si_running == 4 && local != 0, "four keyed tasks run");
    drain(nm);
    nm_peer_down(nm, EXEC, 3000000);
    tap_ok(count(nm, SK_MSG_TASK_FINISHED) == 4 &&
               count(nm, SK_MSG_TASK_OUTCOME) == 0 && st->ns_lost == 4,
           "the executor's session ends: its four tasks are LOST");

    up_exec(nm, EXEC + 1, "ex1", 7, 3500000);
    finish_from(nm, EXEC + 1, local, 0, SK_TASK_OK, 3600000);
    const sk_task_outcome *o = outcome_to(nm, 0, SCHED);
    tap_ok(o != NULL && count(nm, SK_MSG_TASK_OUTCOME) == 1 &&
               count(nm, SK_MSG_TASK_FINISHED) == 0 && o->to_key == 42 &&
               o->to_ref == 10 && o->to_status == SK_TASK_OK &&
               strcmp(o->to_user, "alice") == 0 && st->ns_outcomes_late == 1 &&
               st->ns_stale_finished == 0,
           "the same executor back: a lost task's end is offered to its "
           "scheduler under key, ref and user");
    finish_from(nm, EXEC + 1, local, 1, SK_TASK_FAILED, 3600000);
    o = outcome_to(nm, 0, SCHED);
    tap_ok(o != NULL && o->to_ref == 11 && o->to_status == SK_TASK_FAILED,
           "a FAILED end too");
    finish_from(nm, EXEC + 1, local, 2, SK_TASK_KILLED, 3600000);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 0 && st->ns_outcomes_late == 2 &&
               st->ns_stale_finished == 0,
           "a killed one is not an outcome to offer");
    finish_from(nm, EXEC + 1, local, 0, SK_TASK_OK, 3700000);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 0 && st->ns_stale_finished == 1,
           "a second report of the same end is stale");
    finish_from(nm, EXEC + 1, local, 3, SK_TASK_OK, 4100000);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 0 && st->ns_stale_finished == 2,
           "past outcome_keep_ms the lost task is forgotten");

    /* A new process of the framework, another framework's executor. */
    enq_res(nm, SCHED, 2, 2, "alice", 0, 2, 100, 10, 5000000);
    keyed_reply(nm, SCHED, 2, 0, 43, 0, 5000000);
    keyed_reply(nm, SCHED, 2, 1, 43, 1, 5000000);
    uint64_t local2 = nm_job_local(nm, SCHED, 2);
    drain(nm);
    up_exec_of(nm, EXEC + 3, "other", 9, "flink", 5050000);
    up_exec(nm, EXEC + 2, "ex2", 8, 5060000);
    finish_from(nm, EXEC + 3, local2, 1, SK_TASK_OK, 5070000);
    tap_ok(count(nm, SK_MSG_TASK_FINISHED) == 0 && st->ns_stale_finished == 3,
           "another framework's executor cannot end a running task");
    finish_from(nm, EXEC + 2, local2, 1, SK_TASK_OK, 5080000);
    tap_ok(count(nm, SK_MSG_TASK_FINISHED) == 1 && slots(nm).si_running == 1 &&
               st->ns_stale_finished == 3,
           "a new executor of the same framework ends a task the old one "
           "still runs (its end, read from a journal)");
    drain(nm);
    nm_peer_down(nm, EXEC + 1, 5100000);
    finish_from(nm, EXEC + 3, local2, 0, SK_TASK_OK, 5200000);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 0 && st->ns_stale_finished == 4 &&
               st->ns_outcomes_late == 2,
           "another framework's executor offers nothing for a lost task");
    finish_from(nm, EXEC + 2, local2, 0, SK_TASK_OK, 5300000);
    tap_ok(count(nm, SK_MSG_TASK_OUTCOME) == 1 && st->ns_outcomes_late == 3,
           "another process of the same framework offers its end");
    nm_free(nm);
}

/* ---- long tasks (flow path) ------------------------------------------- */

static void test_reserve(void)
{
    nm_config cfg = base_cfg(4);
    nm_core *nm = make(&cfg);
    cast(nm);
    up(nm, FLOWD, SK_ROLE_FLOWD, 0, "", 0);
    enq(nm, 1, 1, "a", 0, 4, 0);
    for (uint32_t t = 0; t < 4; t++)
        reply(nm, SCHED, 1, 1, true, t, "", 1);
    enq(nm, 2, 2, "b", 0, 2, 1);
    tap_ok(slots(nm).si_running == 4 && slots(nm).si_queued == 1,
           "four short tasks run, one reservation waits");
    reserve(nm, 100, 50, 0, SCHED_ID, 500, "spark", 2);
    sk_peer to;
    const sk_msg *ack = nth(nm, SK_MSG_RESERVE_ACK, 0, &to);
    tap_ok(ack != NULL && to == FLOWD && ack->m_reserve_ack.ra_resv == 100 &&
               ack->m_reserve_ack.ra_node_id == 3,
           "RESERVE is acknowledged");
    finish(nm, NM_PEER_COMMAND, 1, 0, SK_TASK_OK, 3);
    const sk_msg *l = nth(nm, SK_MSG_LAUNCH_TASK, 0, &to);
    tap_ok(l != NULL && to == EXEC && count(nm, SK_MSG_GET_TASK) == 0 &&
               l->m_launch.lt_job == nm_job_local(nm, SCHED, 50) &&
               memcmp(l->m_launch.lt_spec.b_data, "long-service", 12) == 0,
           "the freed slot starts the long task, not a short one");
    const sk_msg *st = nth(nm, SK_MSG_TASK_STARTED, 0, &to);
    tap_ok(st != NULL && to == SCHED && st->m_task_started.st_job == 50,
           "its scheduler hears TASK_STARTED");
    nm_slot_info si = slots(nm);
    tap_ok(si.si_reserved == 1 && si.si_long_pending == 0 && si.si_running == 4,
           "one reserved slot, running");

    /* A pending long reservation keeps its slot away from short tasks. */
    reserve(nm, 101, 51, 0, SCHED_ID, 500, "", 4);
    finish(nm, NM_PEER_COMMAND, 1, 1, SK_TASK_OK, 5);
    tap_ok(count(nm, SK_MSG_LAUNCH_TASK) == 1 &&
               count(nm, SK_MSG_GET_TASK) == 0,
           "the second long task takes the next free slot");
    reserve(nm, 102, 52, 0, SCHED_ID, 500, "", 6);
    tap_ok(slots(nm).si_long_pending == 1, "a third long task waits");
    finish(nm, NM_PEER_COMMAND, 1, 2, SK_TASK_OK, 7);
    tap_ok(count(nm, SK_MSG_LAUNCH_TASK) == 1 &&
               count(nm, SK_MSG_GET_TASK) == 0 && slots(nm).si_queued == 1,
           "and starts before the queued short reservation");

    /* long_share 0.75 of 4 slots: three long reservations at most. */
    reserve(nm, 103, 53, 0, SCHED_ID, 500, "", 8);
    const sk_msg *rj = nth(nm, SK_MSG_RESERVE_REJECT, 0, &to);
    tap_ok(rj != NULL && to == FLOWD && rj->m_reserve_ack.ra_resv == 103 &&
               strstr(rj->m_reserve_ack.ra_reason, "long_share") != NULL,
           "a fourth is rejected by long_share: %s",
           rj ? rj->m_reserve_ack.ra_reason : "(none)");
    finish(nm, NM_PEER_COMMAND, 1, 3, SK_TASK_OK, 9);
    tap_is_int((int64_t)only_get_task(nm), 2,
               "the slot long tasks may not take goes to short work");

    /* RELEASE with kill stops the running long task. */
    release(nm, 100, 50, 0, true);
    const sk_msg *k = nth(nm, SK_MSG_KILL_TASK, 0, &to);
    tap_ok(k != NULL && to == EXEC &&
               k->m_kill_task.kt_job == nm_job_local(nm, SCHED, 50) &&
               slots(nm).si_reserved == 2,
           "RELEASE with kill sends KILL_TASK and frees the reservation");
    finish(nm, EXEC, 50, 0, SK_TASK_KILLED, 10);
    const sk_msg *f = nth(nm, SK_MSG_TASK_FINISHED, 0, &to);
    tap_ok(f != NULL && to == SCHED &&
               f->m_task_finished.tf_status == SK_TASK_KILLED &&
               slots(nm).si_running == 2,
           "the killed task's end reaches its scheduler, the slot frees");
    release(nm, 100, 50, 0, false);
    tap_ok(nm_get_stats(nm)->ns_release_unknown == 1,
           "releasing it again is counted as unknown");
    nm_free(nm);
}

/* The long cap (sk_long_cap): floor(long_share x slots), at least one
 * when long_share > 0; a one-slot node holds one long task, and a node
 * with long_share 0 none. */
static void test_long_cap_one_slot(void)
{
    tap_ok(sk_long_cap(0.75, 4) == 3 && sk_long_cap(0.75, 2) == 1 &&
               sk_long_cap(0.75, 1) == 1 && sk_long_cap(0.3, 16) == 4 &&
               sk_long_cap(1.0, 1) == 1 && sk_long_cap(0.0, 1) == 0 &&
               sk_long_cap(0.0, 16) == 0,
           "sk_long_cap: floor(share x slots), at least 1 when share > 0");
    nm_config cfg = base_cfg(1);
    nm_core *nm = make(&cfg);
    cast(nm);
    up(nm, FLOWD, SK_ROLE_FLOWD, 0, "", 0);
    reserve(nm, 1, 1, 0, SCHED_ID, 100, "", 1);
    tap_ok(count(nm, SK_MSG_RESERVE_ACK) == 1 && slots(nm).si_running == 1,
           "one slot, long_share 0.75: a long task is accepted and runs");
    reserve(nm, 2, 2, 0, SCHED_ID, 100, "", 2);
    const sk_msg *rj = nth(nm, SK_MSG_RESERVE_REJECT, 0, NULL);
    tap_ok(rj != NULL && strstr(rj->m_reserve_ack.ra_reason, "long_share"),
           "... a second is rejected by long_share");
    nm_free(nm);

    cfg = base_cfg(1);
    cfg.nc_long_share = 0;
    nm = make(&cfg);
    cast(nm);
    up(nm, FLOWD, SK_ROLE_FLOWD, 0, "", 0);
    reserve(nm, 1, 1, 0, SCHED_ID, 100, "", 1);
    rj = nth(nm, SK_MSG_RESERVE_REJECT, 0, NULL);
    tap_ok(rj != NULL && strstr(rj->m_reserve_ack.ra_reason, "long_share") &&
               count(nm, SK_MSG_RESERVE_ACK) == 0,
           "long_share 0: no long task, even on one slot");
    nm_free(nm);
}

static void test_reserve_rejects(void)
{
    nm_config cfg = base_cfg(2);
    cfg.nc_cpu_milli = 1000;
    nm_core *nm = make(&cfg);
    cast(nm);
    up(nm, FLOWD, SK_ROLE_FLOWD, 0, "", 0);
    reserve(nm, 1, 1, 0, SCHED_ID, 2000, "", 1);
    const sk_msg *rj = nth(nm, SK_MSG_RESERVE_REJECT, 0, NULL);
    tap_ok(rj != NULL && strstr(rj->m_reserve_ack.ra_reason, "exceeds"),
           "a request the node can never fit is rejected");
    reserve(nm, 2, 1, 0, 999, 100, "", 1);
    rj = nth(nm, SK_MSG_RESERVE_REJECT, 0, NULL);
    tap_ok(rj != NULL && strstr(rj->m_reserve_ack.ra_reason, "scheduler"),
           "a reservation for an unknown scheduler is rejected");
    reserve(nm, 3, 1, 0, SCHED_ID, 100, "", 1);
    tap_ok(count(nm, SK_MSG_RESERVE_ACK) == 1 && slots(nm).si_running == 1,
           "a fitting one is accepted and starts at once");
    reserve(nm, 3, 1, 0, SCHED_ID, 100, "", 1);
    rj = nth(nm, SK_MSG_RESERVE_REJECT, 0, NULL);
    tap_ok(rj != NULL && strstr(rj->m_reserve_ack.ra_reason, "duplicate"),
           "a duplicate reservation id is rejected");
    reserve(nm, 4, 2, 0, SCHED_ID, 100, "", 1);
    tap_ok(count(nm, SK_MSG_RESERVE_REJECT) == 1,
           "long_share 0.75 of 2 slots allows one long task");
    tap_ok(nm_get_stats(nm)->ns_reserve_rejects == 4, "four rejects counted");
    nm_free(nm);

    /* RELEASE of a pending reservation: it never starts. */
    cfg = base_cfg(4);
    nm = make(&cfg);
    cast(nm);
    up(nm, FLOWD, SK_ROLE_FLOWD, 0, "", 0);
    enq(nm, 1, 1, "a", 0, 4, 0);
    reserve(nm, 7, 70, 0, SCHED_ID, 100, "", 1);
    tap_ok(slots(nm).si_long_pending == 1, "a long reservation is pending");
    release(nm, 7, 70, 0, false);
    tap_ok(slots(nm).si_long_pending == 0 && slots(nm).si_reserved == 0,
           "RELEASE drops it");
    reply(nm, SCHED, 1, 1, true, 0, "", 2);
    finish(nm, NM_PEER_COMMAND, 1, 0, SK_TASK_OK, 3);
    tap_ok(count(nm, SK_MSG_LAUNCH_TASK) == 0,
           "a released reservation never launches");
    /* KILL_TASK of a job: its running long task gets KILL_TASK, its
     * pending one ends at once. (Three slots still wait for replies.) */
    reserve(nm, 8, 80, 0, SCHED_ID, 100, "", 4);
    reserve(nm, 9, 80, 1, SCHED_ID, 100, "", 4);
    tap_ok(slots(nm).si_running == 1 && slots(nm).si_long_pending == 1,
           "one long task of job 80 runs, one waits");
    sk_msg k = {.m_type = SK_MSG_KILL_TASK};
    k.m_kill_task.kt_job = 80;
    k.m_kill_task.kt_task = SK_TASK_ANY;
    deliver(nm, SCHED, &k, 5);
    const sk_msg *f = nth(nm, SK_MSG_TASK_FINISHED, 0, NULL);
    tap_ok(count(nm, SK_MSG_KILL_TASK) == 1 &&
               count(nm, SK_MSG_TASK_FINISHED) == 1 &&
               f->m_task_finished.tf_status == SK_TASK_KILLED &&
               f->m_task_finished.tf_task == 1 && slots(nm).si_reserved == 1,
           "KILL_TASK of a job: running one killed, pending one KILLED");
    /* A scheduler leaving takes its pending long reservations along. */
    up(nm, SCHED2, SK_ROLE_SCHEDULER, SCHED2_ID, "", 3);
    reserve(nm, 6, 60, 0, SCHED2_ID, 100, "", 3);
    tap_ok(slots(nm).si_long_pending == 1, "a reservation for SCHED2 waits");
    drain(nm);
    nm_peer_down(nm, SCHED2, 3);
    sk_peer to;
    rj = nth(nm, SK_MSG_RESERVE_REJECT, 0, &to);
    tap_ok(rj != NULL && to == FLOWD && rj->m_reserve_ack.ra_resv == 6 &&
               slots(nm).si_long_pending == 0 && slots(nm).si_reserved == 1,
           "its scheduler leaving rejects it to flowd");
    nm_free(nm);
}

/* flowd comes back: a new incarnation's re-planning replaces what the
 * last one reserved and did not start; the same one's does not. */
static void test_flowd_restart(void)
{
    nm_config cfg = base_cfg(4);
    nm_core *nm = make(&cfg);
    cast(nm);
    sk_hello h = {.he_role = SK_ROLE_FLOWD, .he_incarnation = 5};
    nm_peer_up(nm, FLOWD, &h, 0);
    enq(nm, 1, 1, "a", 0, 4, 0);
    reserve(nm, 7, 70, 0, SCHED_ID, 100, "", 1);
    /* The driver's part: the outbox drained before each call (what a
     * heartbeat points to lives until the next call). */
    drain(nm);
    nm_peer_down(nm, FLOWD, 2);
    drain(nm);
    nm_peer_up(nm, FLOWD, &h, 3);
    tap_ok(slots(nm).si_long_pending == 1,
           "the same flowd back: its pending reservation stays");
    drain(nm);
    nm_peer_down(nm, FLOWD, 4);
    h.he_incarnation = 6;
    drain(nm);
    nm_peer_up(nm, FLOWD, &h, 5);
    tap_ok(slots(nm).si_long_pending == 0 && slots(nm).si_reserved == 0 &&
               nm_get_stats(nm)->ns_long_dropped == 1,
           "a restarted flowd: the pending reservation is dropped");
    reply(nm, SCHED, 1, 1, true, 0, "", 6);
    finish(nm, NM_PEER_COMMAND, 1, 0, SK_TASK_OK, 7);
    tap_ok(count(nm, SK_MSG_LAUNCH_TASK) == 0, "and never launches");
    /* The new flowd adopted a running task without learning its
     * reservation id: it releases it by job and task. */
    reserve(nm, 9, 90, 2, SCHED_ID, 100, "", 8);
    tap_ok(slots(nm).si_running >= 1, "a long task of job 90 runs");
    drain(nm);
    release(nm, 0, 90, 3, true);
    tap_ok(count(nm, SK_MSG_KILL_TASK) == 0 &&
               nm_get_stats(nm)->ns_release_unknown == 1,
           "a RELEASE naming another task of the job matches nothing");
    release(nm, 0, 90, 2, true);
    tap_ok(count(nm, SK_MSG_KILL_TASK) == 1,
           "RELEASE by job and task (no reservation id) kills it");
    nm_free(nm);
}

/* ---- heartbeats and status -------------------------------------------- */

static void test_heartbeat(void)
{
    nm_config cfg = base_cfg(4);
    cfg.nc_heartbeat_ms = 500;
    nm_core *nm = make(&cfg);
    cast(nm);
    tap_ok(nm_next_deadline(nm) == SK_TIME_NEVER, "no flowd, no deadline");
    up(nm, FLOWD, SK_ROLE_FLOWD, 0, "", 1000);
    sk_peer to;
    const sk_msg *hb = nth(nm, SK_MSG_HEARTBEAT, 0, &to);
    tap_ok(hb != NULL && to == FLOWD && hb->m_heartbeat.hb_seq == 0 &&
               hb->m_heartbeat.hb_slots_total == 4,
           "flowd gets a heartbeat when it registers");
    tap_ok(nm_next_deadline(nm) == 1000 + 500000, "next one in 500 ms");
    enq(nm, 1, 1, "a", 0, 1, 2000);
    reply(nm, SCHED, 1, 1, true, 0, "spark", 2000);
    reserve(nm, 9, 9, 0, SCHED_ID, 100, "", 2000);
    enq(nm, 2, 2, "a", 0, 1, 2000);
    enq(nm, 3, 3, "b", 3, 1, 2000);
    enq(nm, 4, 4, "b", 3, 1, 2000);
    drain(nm);
    nm_on_timer(nm, 400000);
    tap_is_int((int64_t)count(nm, SK_MSG_HEARTBEAT), 0,
               "nothing before the deadline");
    drain(nm);
    nm_on_timer(nm, 501000);
    hb = nth(nm, SK_MSG_HEARTBEAT, 0, &to);
    const sk_heartbeat *h = hb ? &hb->m_heartbeat : NULL;
    tap_ok(h != NULL && to == FLOWD && h->hb_seq == 1 &&
               h->hb_time_us == 501000 && h->hb_node_id == 3 &&
               strcmp(h->hb_node, "n1") == 0,
           "a heartbeat at the deadline, numbered and stamped");
    tap_ok(h != NULL && h->hb_slots_used == 4 && h->hb_slots_reserved == 1 &&
               h->hb_used.r_cpu_milli == 400,
           "it tells the slots used and reserved and the resources used");
    tap_ok(h != NULL && h->hb_nrunning == 2 && h->hb_running[0].ru_job == 1 &&
               !h->hb_running[0].ru_long && h->hb_running[1].ru_job == 9 &&
               h->hb_running[1].ru_long,
           "and the running tasks, long ones marked");
    tap_ok(h != NULL && h->hb_queue[0] == 0 && h->hb_queue[3] == 1,
           "and the queue length per priority");
    tap_ok(h != NULL && !h->hb_users_sent && h->hb_nusers == 0,
           "no users summary 500 ms after the last (one per 5 s at most)");
    tap_ok(nm_next_deadline(nm) == 1001000, "the next one is due 500 ms later");
    drain(nm);
    nm_peer_down(nm, FLOWD, 600000);
    tap_ok(nm_next_deadline(nm) == 2000 + 10000000,
           "flowd gone: the next deadline is the GET_TASK timeout");
    nm_free(nm);
}

/* The users summary: at flowd's registration, then at most every 5 s;
 * what it says is what nm_get_user says (the status table's numbers),
 * slot time with the running task's time so far. */
static void test_heartbeat_users(void)
{
    nm_config cfg = base_cfg(4);
    nm_core *nm = make(&cfg);
    cast(nm);
    up(nm, FLOWD, SK_ROLE_FLOWD, 0, "", 1000);
    const sk_msg *hb = nth(nm, SK_MSG_HEARTBEAT, 0, NULL);
    tap_ok(hb != NULL && hb->m_heartbeat.hb_users_sent &&
               hb->m_heartbeat.hb_nusers == 0 &&
               hb->m_heartbeat.hb_users_total == 0,
           "flowd registers: the first heartbeat has a summary, empty");
    enq(nm, 1, 1, "a", 0, 1, 2000);
    reply(nm, SCHED, 1, 1, true, 0, "spark", 2000);
    enq(nm, 2, 2, "a", 0, 1, 2000);
    enq(nm, 3, 3, "b", 3, 1, 2000);
    drain(nm);
    nm_on_timer(nm, 4001000);
    hb = nth(nm, SK_MSG_HEARTBEAT, 0, NULL);
    tap_ok(hb != NULL && !hb->m_heartbeat.hb_users_sent,
           "4 s later: a heartbeat without one");
    drain(nm);
    nm_on_timer(nm, 5001000);
    hb = nth(nm, SK_MSG_HEARTBEAT, 0, NULL);
    const sk_heartbeat *h = hb ? &hb->m_heartbeat : NULL;
    bool same = h != NULL && h->hb_users_sent && h->hb_nusers == 2 &&
                h->hb_users_total == 2;
    uint64_t a_slot_ms = UINT64_MAX;
    for (uint32_t i = 0; same && i < h->hb_nusers; i++) {
        const sk_usage *u = &h->hb_users[i];
        nm_user_info ui;
        same = nm_get_user(nm, u->us_user, &ui) == 0 &&
               ui.ui_weight == u->us_weight && ui.ui_queued == u->us_queued &&
               ui.ui_running == u->us_running;
        if (strcmp(u->us_user, "a") == 0)
            a_slot_ms = u->us_slot_ms;
    }
    tap_ok(same && a_slot_ms == (5001000 - 2000 + 500) / 1000,
           "5 s after the last: users a and b, weight, queued and running as "
           "the node counts them, a's slot time %" PRIu64 " ms so far",
           a_slot_ms);
    drain(nm);
    nm_peer_down(nm, FLOWD, 5100000);
    up(nm, FLOWD, SK_ROLE_FLOWD, 0, "", 5200000);
    hb = nth(nm, SK_MSG_HEARTBEAT, 0, NULL);
    tap_ok(hb != NULL && hb->m_heartbeat.hb_users_sent &&
               hb->m_heartbeat.hb_nusers == 2,
           "flowd registers again: a summary at once, 0.2 s after the last");
    nm_free(nm);
}

/* More users than a heartbeat carries: the most active go, the rest are
 * counted. */
static void test_heartbeat_users_cut(void)
{
    nm_config cfg = base_cfg(1);
    nm_core *nm = make(&cfg);
    cast(nm);
    up(nm, FLOWD, SK_ROLE_FLOWD, 0, "", 0);
    char name[SK_MAX_HB_USERS + 6][8];
    for (unsigned i = 0; i < SK_MAX_HB_USERS + 6; i++) {
        snprintf(name[i], sizeof name[i], "u%02u", i);
        enq(nm, 10 + i, 10 + i, name[i], 0, 1, 1000);
    }
    /* u69 queues a second reservation: the most active. */
    enq(nm, 100, 100, name[SK_MAX_HB_USERS + 5], 0, 1, 1000);
    drain(nm);
    nm_on_timer(nm, 6000000); /* past the first summary's 5 s */
    const sk_msg *hb = nth(nm, SK_MSG_HEARTBEAT, 0, NULL);
    const sk_heartbeat *h = hb ? &hb->m_heartbeat : NULL;
    tap_ok(h != NULL && h->hb_nusers == SK_MAX_HB_USERS &&
               h->hb_users_total == SK_MAX_HB_USERS + 6 &&
               nm_get_stats(nm)->ns_hb_users_cut == 6,
           "70 users: 64 in the heartbeat, 6 left out and counted");
    tap_ok(h != NULL && strcmp(h->hb_users[0].us_user, "u69") == 0 &&
               h->hb_users[0].us_queued == 2 &&
               strcmp(h->hb_users[1].us_user, "u01") == 0,
           "the most active first (u00's reservation is fetching, not "
           "queued or running: first %s, then %s)",
           h ? h->hb_users[0].us_user : "-", h ? h->hb_users[1].us_user : "-");
    nm_free(nm);
}

/* More users than a heartbeat carries, 200: page 0 the most active (at
 * flowd's registration), then every user by name, 64 a heartbeat, then
 * the 5 s pause before page 0 again. */
static void test_heartbeat_users_pages(void)
{
    nm_config cfg = base_cfg(1);
    nm_core *nm = make(&cfg);
    cast(nm);
    enum { N = 200 };
    static char name[N][8];
    for (unsigned i = 0; i < N; i++) {
        snprintf(name[i], sizeof name[i], "u%03u", (i * 7) % N);
        enq(nm, 10 + i, 10 + i, name[i], 0, 1, 1000);
    }
    drain(nm);
    sk_time now = 2000;
    up(nm, FLOWD, SK_ROLE_FLOWD, 0, "", now);
    const sk_msg *hb = nth(nm, SK_MSG_HEARTBEAT, 0, NULL);
    const sk_heartbeat *h = hb ? &hb->m_heartbeat : NULL;
    tap_ok(h != NULL && h->hb_users_sent && h->hb_users_page == 0 &&
               h->hb_nusers == SK_MAX_HB_USERS && h->hb_users_total == N,
           "200 users: page 0 lists 64 of 200");
    bool seen[N] = {false};
    char last[8] = "";
    unsigned listed = 0, pages = 0;
    bool in_turn = true;
    for (uint32_t p = 1; p <= 5; p++) {
        drain(nm);
        now += (sk_time)cfg.nc_heartbeat_ms * 1000;
        nm_on_timer(nm, now);
        hb = nth(nm, SK_MSG_HEARTBEAT, 0, NULL);
        h = hb ? &hb->m_heartbeat : NULL;
        if (h == NULL || !h->hb_users_sent)
            break;
        pages++;
        in_turn = in_turn && h->hb_users_page == p && h->hb_users_total == N;
        for (uint32_t i = 0; i < h->hb_nusers; i++) {
            const char *u = h->hb_users[i].us_user;
            unsigned k = (unsigned)atoi(u + 1);
            in_turn = in_turn && strcmp(u, last) > 0 && k < N && !seen[k];
            if (k < N)
                seen[k] = true;
            snprintf(last, sizeof last, "%s", u);
            listed++;
        }
    }
    tap_ok(pages == 4 && listed == N && in_turn,
           "then pages 1..4, 64 a heartbeat, every user once in name order "
           "(%u pages, %u users)",
           pages, listed);
    tap_ok(h != NULL && !h->hb_users_sent,
           "the heartbeat after the last page carries none");
    sk_time end = now - (sk_time)cfg.nc_heartbeat_ms * 1000;
    bool quiet = true;
    while (now + (sk_time)cfg.nc_heartbeat_ms * 1000 < end + 5000000) {
        drain(nm);
        now += (sk_time)cfg.nc_heartbeat_ms * 1000;
        nm_on_timer(nm, now);
        hb = nth(nm, SK_MSG_HEARTBEAT, 0, NULL);
        quiet = quiet && hb != NULL && !hb->m_heartbeat.hb_users_sent;
    }
    drain(nm);
    now += (sk_time)cfg.nc_heartbeat_ms * 1000;
    nm_on_timer(nm, now);
    hb = nth(nm, SK_MSG_HEARTBEAT, 0, NULL);
    h = hb ? &hb->m_heartbeat : NULL;
    tap_ok(quiet && h != NULL && h->hb_users_sent && h->hb_users_page == 0 &&
               h->hb_nusers == SK_MAX_HB_USERS,
           "5 s after the last page: page 0 again");
    nm_free(nm);
}

static const char *kv(const sk_status_reply *r, const char *key)
{
    for (uint32_t i = 0; i < r->sr_nkv; i++)
        if (strcmp(r->sr_kv[i].kv_key, key) == 0)
            return r->sr_kv[i].kv_value;
    return "";
}

static void test_status(void)
{
    nm_config cfg = base_cfg(1);
    nm_weights w = {0};
    nm_weights_set(&w, "alice", 3);
    nm_core *nm = make_weighted(&cfg, &w);
    cast(nm);
    enq(nm, 1, 1, "alice", 0, 1, 0);
    enq(nm, 2, 2, "bob", 0, 1, 0);
    reply(nm, SCHED, 1, 1, true, 0, "", 1000000);
    finish(nm, NM_PEER_COMMAND, 1, 0, SK_TASK_OK, 3500000);
    nm_user_info ui;
    nm_get_user(nm, "alice", &ui);
    tap_is_int((int64_t)ui.ui_slot_us, 2500000,
               "alice used 2.5 s of slot time");
    reply(nm, SCHED, 2, 2, true, 0, "", 3600000); /* bob's task runs */
    sk_msg q = {.m_type = SK_MSG_STATUS_REQUEST};
    q.m_status_request.sq_request = 77;
    q.m_status_request.sq_table = true;
    deliver(nm, TOOL, &q, 4000000);
    sk_peer to;
    const sk_msg *m = nth(nm, SK_MSG_STATUS_REPLY, 0, &to);
    const sk_status_reply *r = m ? &m->m_status_reply : NULL;
    tap_ok(r != NULL && to == TOOL && r->sr_request == 77 &&
               r->sr_role == SK_ROLE_NODEMON && strcmp(r->sr_name, "n1") == 0,
           "STATUS_REQUEST from anyone is answered");
    tap_ok(r != NULL && strcmp(kv(r, "slots_total"), "1") == 0 &&
               strcmp(kv(r, "slots_used"), "1") == 0 &&
               strcmp(kv(r, "launched"), "2") == 0 &&
               strcmp(kv(r, "finished"), "1") == 0,
           "key/values tell slots and counters");
    int alice = -1, bob = -1;
    for (uint32_t i = 0; r != NULL && i < r->sr_nrows; i++) {
        if (strcmp(r->sr_rows[i].sw_cells[0], "alice") == 0)
            alice = (int)i;
        if (strcmp(r->sr_rows[i].sw_cells[0], "bob") == 0)
            bob = (int)i;
    }
    tap_ok(r != NULL && r->sr_ncolumns == 5 && r->sr_nrows == 2 && alice >= 0 &&
               strcmp(r->sr_rows[alice].sw_cells[1], "3") == 0 &&
               strcmp(r->sr_rows[alice].sw_cells[4], "2.500") == 0,
           "the table has a row per user with weight and slot time");
    tap_ok(bob >= 0 && strcmp(r->sr_rows[bob].sw_cells[3], "1") == 0 &&
               strcmp(r->sr_rows[bob].sw_cells[4], "0.400") == 0,
           "slot time counts a running task's time so far");
    nm_free(nm);
}

/* ---- hostile and stale input ------------------------------------------ */

static void test_stale(void)
{
    nm_config cfg = base_cfg(1);
    nm_core *nm = make(&cfg);
    cast(nm);
    enq(nm, 1, 1, "a", 0, 1, 0);
    enq(nm, 2, 2, "a", 0, 1, 0);
    nm_slot_info before = slots(nm);
    reply(nm, SCHED, 1, 99, true, 0, "", 1);
    reply(nm, SCHED, 2, 2, true, 0, "", 1); /* queued, never asked */
    reply(nm, SCHED, 5, 1, true, 0, "", 1); /* wrong job */
    tap_ok(nm_get_stats(nm)->ns_stale_replies == 3,
           "replies to no GET_TASK are counted");
    finish(nm, NM_PEER_COMMAND, 1, 0, SK_TASK_OK, 1);
    tap_ok(nm_get_stats(nm)->ns_stale_finished == 1,
           "TASK_FINISHED for no running task is counted");
    enq_res(nm, 55, 3, 3, "a", 0, 1, 1, 1, 1);
    enq(nm, 1, 1, "a", 0, 1, 1);
    tap_ok(nm_get_stats(nm)->ns_unexpected == 1 &&
               nm_get_stats(nm)->ns_duplicate == 1,
           "an unregistered peer and a duplicate reservation id are counted");
    reserve(nm, 1, 1, 0, SCHED_ID, 1, "", 1); /* flowd not registered */
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    deliver(nm, SCHED, &m, 1);
    m.m_type = SK_MSG_TASK_FINISHED;
    deliver(nm, SCHED, &m, 1); /* a scheduler is not an executor */
    tap_ok(nm_get_stats(nm)->ns_unexpected == 4,
           "messages of the wrong type or role are counted");
    enq(nm, 3, 3, "a", SK_PRIORITIES, 1, 1);
    enq(nm, 3, 3, "a", 0, 0, 1);
    tap_ok(nm_get_stats(nm)->ns_unexpected == 6,
           "out-of-range priority and count are counted");
    nm_slot_info after = slots(nm);
    tap_ok(memcmp(&before, &after, sizeof before) == 0 &&
               nm_outbox(nm)->ob_len == 0,
           "none of it changed the state or sent anything");
    up(nm, SCHED, SK_ROLE_SCHEDULER, 1, "", 1);
    up(nm, 60, SK_ROLE_EXECUTOR, 0, "", 1);
    up(nm, NM_PEER_COMMAND, SK_ROLE_SCHEDULER, 0, "", 1);
    tap_ok(nm_get_stats(nm)->ns_bad_hello == 3,
           "duplicate, framework-less executor and reserved-id HELLOs refused");
    nm_free(nm);
}

/* Many jobs come and go: nothing stays behind. */
static void test_no_growth(void)
{
    nm_config cfg = base_cfg(4);
    cfg.nc_max_users = 8;
    nm_core *nm = make(&cfg);
    cast(nm);
    int served = 0;
    for (uint64_t j = 1; j <= 2000; j++) {
        char user[16];
        snprintf(user, sizeof user, "u%u", (unsigned)(j % 50));
        enq(nm, j, j, user, (uint8_t)(j % SK_PRIORITIES), 2, j);
        sk_outbox *ob = nm_outbox(nm);
        uint64_t asks[8];
        size_t n = 0;
        for (size_t i = 0; i < ob->ob_len && n < 8; i++)
            if (ob->ob_msgs[i].o_msg.m_type == SK_MSG_GET_TASK)
                asks[n++] = ob->ob_msgs[i].o_msg.m_get_task.gt_job;
        for (size_t i = 0; i < n; i++) {
            reply(nm, SCHED, asks[i], asks[i], true, 0, "", j);
            if (count(nm, SK_MSG_LAUNCH_TASK) == 1) {
                finish(nm, NM_PEER_COMMAND, asks[i], 0, SK_TASK_OK, j);
                served++;
            }
            cancel(nm, SCHED, asks[i]);
        }
    }
    sk_msg q = {.m_type = SK_MSG_STATUS_REQUEST};
    deliver(nm, TOOL, &q, 5000);
    const sk_status_reply *r =
        &nth(nm, SK_MSG_STATUS_REPLY, 0, NULL)->m_status_reply;
    tap_ok(served > 1000 && slots(nm).si_used == 0 &&
               strcmp(kv(r, "jobs"), "0") == 0 &&
               strcmp(kv(r, "users"), "8") == 0,
           "after %d tasks: no job kept, users bounded by max_users (%s)",
           served, kv(r, "users"));
    nm_free(nm);
}

/* Two cores given one outbox put their messages there, in call order;
 * NULL gives a core its own back. */
static void test_shared_outbox(void)
{
    nm_config cfg = base_cfg(1);
    nm_core *a = make(&cfg), *b = make(&cfg);
    sk_outbox shared = {0};
    nm_share_outbox(a, &shared);
    nm_share_outbox(b, &shared);
    cast(a);
    cast(b);
    enq(a, 1, 1, "ann", 0, 1, 0);
    /* Not enq: its drain would empty the shared outbox. */
    sk_msg m = {.m_type = SK_MSG_ENQUEUE_RESERVATION};
    m.m_enqueue = (sk_enqueue){.er_job = 2,
                               .er_resv = 2,
                               .er_sched = SCHED_ID,
                               .er_user = "bob",
                               .er_count = 1,
                               .er_res = {100, 10},
                               .er_task = SK_TASK_ANY};
    nm_on_message(b, SCHED, &m, 0);
    bool both = shared.ob_len == 2 &&
                shared.ob_msgs[0].o_msg.m_get_task.gt_job == 1 &&
                shared.ob_msgs[1].o_msg.m_get_task.gt_job == 2;
    tap_ok(nm_outbox(a) == &shared && nm_outbox(b) == &shared && both,
           "cores sharing an outbox put their messages in it, in order");
    sk_outbox_clear(&shared);
    nm_share_outbox(b, NULL);
    reply(b, SCHED, 2, 2, true, 0, "", 1);
    tap_ok(nm_outbox(b) != &shared && shared.ob_len == 0 &&
               count(b, SK_MSG_LAUNCH_TASK) == 1,
           "unshared, a core uses its own outbox again");
    nm_free(a);
    nm_free(b);
    sk_outbox_free(&shared);
}

static void quiet(void *arg, sk_log_level level, const char *line)
{
    (void)arg;
    (void)level;
    (void)line;
}

int main(void)
{
    tap_timeout(30);
    tap_plan_lazy();
    sk_log_set_sink(quiet, NULL);
    test_config();
    test_wfq_shares();
    test_priority();
    test_resources();
    test_cancel();
    test_nothing_left();
    test_count_k();
    test_queue_bound();
    test_user_bound();
    test_get_task_timeout();
    test_executors();
    test_executor_turnover();
    test_executor_away();
    test_executor_late();
    test_two_schedulers();
    test_scheduler_down();
    test_orphans();
    test_outcomes();
    test_outcomes_alone();
    test_outcome_recovered();
    test_long_outcome();
    test_reserve();
    test_reserve_rejects();
    test_long_cap_one_slot();
    test_flowd_restart();
    test_heartbeat();
    test_heartbeat_users();
    test_heartbeat_users_cut();
    test_heartbeat_users_pages();
    test_status();
    test_stale();
    test_no_growth();
    test_shared_outbox();
    tap_is_int(encode_failures, 0, "every message sent encodes");
    sk_buf_free(&encbuf);
    tap_done();
    return tap_exit_status();
}
