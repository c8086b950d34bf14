/*
 * core_fuzz_nm.c - the node monitor core driven by a fuzz script (see
 * core_fuzz.h).
 *
 * Peers 1 and 2 are schedulers (ids 1 and 2), 3 and 4 executors of the
 * framework "fw", 5 is flowd, and the built-in command executor is
 * NM_PEER_COMMAND; any of them may send any message. The driver remembers
 * the GET_TASKs and launches the core sent, so that TASK_REPLY and
 * TASK_FINISHED often answer real ones, and checks after every input that
 * the core never uses more slots than the node has, nor runs more tasks
 * than slots.
 */
#include "core_fuzz.h"
#include "core_fuzz_script.h"
#include "nm_core.h"

#include <stdbool.h>
#include <string.h>

#define SCHEDS     2
#define EXECUTORS  2
#define FLOWD      5
#define SLOTS      3
#define MEMORY     16
#define MAX_INPUTS 4096

typedef struct seen_get {
    sk_peer sg_sched;
    uint64_t sg_job, sg_resv;
} seen_get;
typedef struct seen_launch {
    sk_peer sl_exec;
    uint64_t sl_job;
    uint32_t sl_task, sl_attempt;
} seen_launch;

typedef struct driver {
    nm_core *d_core;
    sk_time d_now;
    seen_get d_get[MEMORY];
    seen_launch d_launch[MEMORY];
    uint32_t d_nget, d_nlaunch;
    cf_stats *d_stats;
} driver;

static const char *const users[] = {"ann", "bob", "cy"};
static const char *const frameworks[] = {"", "fw", "none"};

static void after_input(driver *d)
{
    sk_outbox *ob = nm_outbox(d->d_core);
    cf_check_encodes(ob);
    for (size_t i = 0; i < ob->ob_len; i++) {
        const sk_out *o = &ob->ob_msgs[i];
        const sk_msg *m = &o->o_msg;
        if (m->m_type == SK_MSG_GET_TASK)
            d->d_get[d->d_nget++ % MEMORY] = (seen_get){
                o->o_peer, m->m_get_task.gt_job, m->m_get_task.gt_resv};
        else if (m->m_type == SK_MSG_LAUNCH_TASK) {
            d->d_launch[d->d_nlaunch++ % MEMORY] =
                (seen_launch){o->o_peer, m->m_launch.lt_job,
                              m->m_launch.lt_task, m->m_launch.lt_attempt};
            d->d_stats->cs_launched++;
        } else if (m->m_type == SK_MSG_TASK_FINISHED && o->o_peer <= SCHEDS) {
            d->d_stats->cs_done++;
        }
    }
    sk_outbox_clear(ob);
    nm_slot_info si;
    nm_slots(d->d_core, &si);
    if (si.si_used > si.si_total || si.si_running > si.si_total ||
        si.si_fetching > si.si_used || si.si_total != SLOTS)
        cf_fail("slots overcommitted", si.si_used, si.si_running);
}

static void deliver(driver *d, sk_peer from, const sk_msg *m)
{
    sk_msg in;
    if (cf_wire(m, &in) != 0)
        return;
    if (in.m_type == SK_MSG_HELLO)
        nm_peer_up(d->d_core, from, &in.m_hello, d->d_now);
    else
        nm_on_message(d->d_core, from, &in, d->d_now);
    sk_msg_free(&in);
}

static void hello(driver *d, cf_script *s, sk_peer p)
{
    sk_msg m = {.m_type = SK_MSG_HELLO};
    sk_hello *h = &m.m_hello;
    h->he_name = "peer";
    if (p <= SCHEDS) {
        h->he_role = SK_ROLE_SCHEDULER;
        h->he_id = cf_below(s, 8) != 0 ? p : 1; /* sometimes a clash */
    } else if (p <= SCHEDS + EXECUTORS) {
        h->he_role = SK_ROLE_EXECUTOR;
        h->he_framework = cf_pick(s, frameworks);
    } else {
        h->he_role = SK_ROLE_FLOWD;
    }
    deliver(d, p, &m);
}

static void enqueue(driver *d, cf_script *s, sk_peer from)
{
    static const uint32_t cpus[] = {0, 500, 1000, 2500, 9000};
    sk_msg m = {.m_type = SK_MSG_ENQUEUE_RESERVATION};
    sk_enqueue *e = &m.m_enqueue;
    e->er_job = cf_below(s, 6);
    e->er_resv = cf_below(s, 12);
    e->er_sched = 1 + cf_below(s, SCHEDS + 1);
    e->er_user = cf_pick(s, users);
    e->er_priority = (uint8_t)cf_below(s, 3);
    e->er_count = 1 + cf_below(s, 4);
    e->er_res = (sk_resources){cf_pick(s, cpus), 256u * cf_below(s, 3)};
    e->er_task = cf_below(s, 4) == 0 ? cf_below(s, 4) : SK_TASK_ANY;
    deliver(d, from, &m);
}

static void task_reply(driver *d, cf_script *s, sk_peer from)
{
    sk_msg m = {.m_type = SK_MSG_TASK_REPLY};
    sk_task_reply *r = &m.m_task_reply;
    if (d->d_nget > 0 && cf_below(s, 8) != 0) {
        const seen_get *g = &d->d_get[cf_below(s, MEMORY) % d->d_nget % MEMORY];
        from = g->sg_sched;
        r->tr_job = g->sg_job;
        r->tr_resv = g->sg_resv;
    } else {
        r->tr_job = cf_below(s, 6);
        r->tr_resv = cf_below(s, 12);
    }
    r->tr_framework = "";
    if (cf_below(s, 4) != 0) {
        r->tr_has_task = true;
        r->tr_task = cf_below(s, 8);
        r->tr_attempt = cf_below(s, 2);
        r->tr_spec = (sk_bytes){(const uint8_t *)"true", 4};
        r->tr_framework = cf_pick(s, frameworks);
    }
    deliver(d, from, &m);
}

static void finished(driver *d, cf_script *s, sk_peer from)
{
    seen_launch l = {from, cf_below(s, 6), cf_below(s, 8), cf_below(s, 2)};
    if (d->d_nlaunch > 0 && cf_below(s, 8) != 0)
        l = d->d_launch[cf_below(s, MEMORY) % d->d_nlaunch % MEMORY];
    sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
    sk_task_finished *tf = &m.m_task_finished;
    tf->tf_job = l.sl_job;
    tf->tf_task = l.sl_task;
    tf->tf_attempt = l.sl_attempt;
    tf->tf_node = "n";
    tf->tf_status = (uint8_t)(SK_TASK_OK + cf_below(s, SK_TASK_STATUS_MAX));
    tf->tf_launch_us = d->d_now;
    tf->tf_end_us = d->d_now;
    deliver(d, l.sl_exec, &m);
}

static void reserve(driver *d, cf_script *s, sk_peer from)
{
    sk_msg m = {.m_type = SK_MSG_RESERVE};
    sk_reserve *r = &m.m_reserve;
    r->rv_resv = cf_below(s, 6);
    r->rv_job = 100 + cf_below(s, 3);
    r->rv_task = cf_below(s, 3);
    r->rv_sched = 1 + cf_below(s, SCHEDS + 1);
    r->rv_user = cf_pick(s, users);
    r->rv_res = (sk_resources){1000u * cf_below(s, 4), 0};
    r->rv_spec = (sk_bytes){(const uint8_t *)"sleep 1", 7};
    r->rv_framework = cf_pick(s, frameworks);
    deliver(d, from, &m);
}

static void step(driver *d, cf_script *s)
{
    sk_peer p = 1 + cf_below(s, FLOWD);
    uint32_t op = cf_below(s, 16);
    sk_msg m;
    memset(&m, 0, sizeof m);
    switch (op) {
    case 0:
        hello(d, s, p);
        break;
    case 1:
        nm_peer_down(d->d_core, cf_below(s, 8) ? p : NM_PEER_COMMAND, d->d_now);
        break;
    case 2:
    case 3:
    case 4:
        enqueue(d, s, cf_below(s, 8) ? 1 + cf_below(s, SCHEDS) : p);
        break;
    case 5:
    case 6:
    case 7:
        task_reply(d, s, p);
        break;
    case 8:
        m.m_type = SK_MSG_CANCEL_RESERVATIONS;
        m.m_cancel_resv.cr_job = cf_below(s, 6);
        deliver(d, 1 + cf_below(s, SCHEDS), &m);
        break;
    case 9:
        m.m_type = SK_MSG_KILL_TASK;
        m.m_kill_task = (sk_kill_task){
            cf_below(s, 6), cf_below(s, 2) ? SK_TASK_ANY : cf_below(s, 8),
            cf_below(s, 2)};
        deliver(d, 1 + cf_below(s, SCHEDS), &m);
        break;
    case 10:
    case 11:
        finished(d, s, cf_below(s, 4) ? p : NM_PEER_COMMAND);
        break;
    case 12:
        reserve(d, s, cf_below(s, 4) ? FLOWD : p);
        break;
    case 13:
        m.m_type = SK_MSG_RELEASE;
        m.m_release = (sk_release){cf_below(s, 6), 100 + cf_below(s, 3),
                                   cf_below(s, 3), cf_below(s, 2)};
        deliver(d, FLOWD, &m);
        break;
    case 14:
        m.m_type = SK_MSG_STATUS_REQUEST;
        m.m_status_request = (sk_status_request){.sq_request = cf_byte(s),
                                                 .sq_table = cf_below(s, 2)};
        deliver(d, p, &m);
        break;
    default:
        d->d_now += (sk_time)cf_byte(s) << 14; /* up to about 4 s */
        nm_on_timer(d->d_core, d->d_now);
        break;
    }
    after_input(d);
}

void cf_nm_run(const uint8_t *data, size_t size, cf_stats *st)
{
    nm_config cfg;
    nm_config_init(&cfg, SLOTS);
    cfg.nc_node_id = 9;
    cfg.nc_max_queued = 24;
    cfg.nc_max_users = 2;
    cfg.nc_max_peers = 6;
    cfg.nc_get_task_timeout_ms = 2000;
    nm_weights weights = {0};
    nm_weights_set(&weights, "ann", 3);
    driver d;
    memset(&d, 0, sizeof d);
    d.d_now = 1000000;
    d.d_stats = st;
    if (nm_new(&cfg, &weights, 42, &d.d_core) != 0)
        cf_fail("cannot create a node monitor core", 0, 0);
    cf_script s = {data, size};
    for (size_t n = 0; s.cs_left > 0 && n < MAX_INPUTS; n++) {
        step(&d, &s);
        st->cs_inputs++;
    }
    nm_free(d.d_core);
}
