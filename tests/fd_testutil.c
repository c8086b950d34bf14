/*
 * fd_testutil.c - helpers of the flow node core's tests (fd_testutil.h).
 */
#include "fd_testutil.h"
#include "skylark.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sk_buf encbuf = SK_BUF_INIT;
static int encode_failures;

fd_core *fdt_core(const fd_config *cfg, sk_time now)
{
    fd_core *c;
    char err[200] = "";
    if (fd_core_new(cfg, 1, now, &c, err, sizeof err) != 0)
        tap_bail_out("fd_core_new: %s", err);
    return c;
}

void fdt_node(fd_core *c, sk_time now, sk_peer peer, const char *name,
              uint32_t slots, const char *rack, double share)
{
    fdt_drain(c);
    char sl[64];
    const char *labels[2] = {"ssd", sl};
    uint32_t n = 1;
    if (share >= 0) {
        snprintf(sl, sizeof sl, "long_share=%g", share);
        labels[n++] = sl;
    }
    const char *addr = "tcp://127.0.0.1:1";
    sk_msg m = {.m_type = SK_MSG_HELLO};
    m.m_hello = (sk_hello){.he_role = SK_ROLE_NODEMON,
                           .he_id = peer,
                           .he_incarnation = 1,
                           .he_name = name,
                           .he_addrs = &addr,
                           .he_naddrs = 1,
                           .he_slots = slots,
                           .he_res = {slots * 1000u, slots * 1024u},
                           .he_labels = labels,
                           .he_nlabels = n,
                           .he_framework = "",
                           .he_rack = rack != NULL ? rack : ""};
    fd_core_on_msg(c, now, peer, &m);
}

void fdt_sched(fd_core *c, sk_time now, sk_peer peer, uint32_t id)
{
    fdt_drain(c);
    sk_msg m = {.m_type = SK_MSG_HELLO};
    m.m_hello = (sk_hello){.he_role = SK_ROLE_SCHEDULER,
                           .he_id = id,
                           .he_name = "sched",
                           .he_framework = ""};
    fd_core_on_msg(c, now, peer, &m);
}

void fdt_submit(fd_core *c, sk_time now, sk_peer sched, uint64_t job,
                uint32_t ntasks, bool is_long, const char **prefs,
                uint32_t npref)
{
    fdt_submit_ex(c, now, sched, job, ntasks, is_long, prefs, npref, NULL, 0,
                  (sk_resources){500, 256});
}

void fdt_submit_ex(fd_core *c, sk_time now, sk_peer sched, uint64_t job,
                   uint32_t ntasks, bool is_long, const char **prefs,
                   uint32_t npref, const char **labels, uint32_t nlabels,
                   sk_resources res)
{
    fdt_submit_racks(c, now, sched, job, ntasks, is_long, prefs, npref, NULL, 0,
                     labels, nlabels, res);
}

void fdt_submit_racks(fd_core *c, sk_time now, sk_peer sched, uint64_t job,
                      uint32_t ntasks, bool is_long, const char **prefs,
                      uint32_t npref, const char **racks, uint32_t nracks,
                      const char **labels, uint32_t nlabels, sk_resources res)
{
    fdt_drain(c);
    sk_task_spec *ts = calloc(ntasks, sizeof *ts);
    char(*specs)[48] = calloc(ntasks, sizeof *specs);
    if (ts == NULL || specs == NULL)
        tap_bail_out("out of memory");
    for (uint32_t i = 0; i < ntasks; i++) {
        snprintf(specs[i], sizeof specs[i], "task-%llu-%u",
                 (unsigned long long)job, i);
        ts[i].ts_spec.b_data = (const uint8_t *)specs[i];
        ts[i].ts_spec.b_len = (uint32_t)strlen(specs[i]) + 1;
        ts[i].ts_preferred = prefs;
        ts[i].ts_npreferred = npref;
        ts[i].ts_racks = racks;
        ts[i].ts_nracks = nracks;
    }
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job = (sk_submit_job){.sj_job = job,
                                     .sj_user = "alice",
                                     .sj_priority = 2,
                                     .sj_labels = labels,
                                     .sj_nlabels = nlabels,
                                     .sj_res = res,
                                     .sj_long = is_long,
                                     .sj_framework = "",
                                     .sj_tasks = ts,
                                     .sj_ntasks = ntasks};
    fd_core_on_msg(c, now, sched, &m);
    free(ts);
    free(specs);
}

void fdt_heartbeat(fd_core *c, sk_time now, sk_peer peer, uint64_t seq,
                   uint32_t total, uint32_t used, uint32_t reserved,
                   uint32_t queue, const fdt_run *run, uint32_t nrun)
{
    fdt_heartbeat_res(c, now, peer, seq, total, used, reserved, queue, run,
                      nrun, (sk_resources){0, 0});
}

void fdt_heartbeat_res(fd_core *c, sk_time now, sk_peer peer, uint64_t seq,
                       uint32_t total, uint32_t used, uint32_t reserved,
                       uint32_t queue, const fdt_run *run, uint32_t nrun,
                       sk_resources used_res)
{
    fdt_drain(c);
    sk_running *ru = calloc(nrun + 1, sizeof *ru);
    if (ru == NULL)
        tap_bail_out("out of memory");
    for (uint32_t i = 0; i < nrun; i++) {
        ru[i].ru_job = run[i].job;
        ru[i].ru_task = run[i].task;
        ru[i].ru_attempt = run[i].attempt;
        ru[i].ru_launch_us = now;
        ru[i].ru_long = true;
        ru[i].ru_res = (sk_resources){500, 256};
    }
    sk_msg m = {.m_type = SK_MSG_HEARTBEAT};
    m.m_heartbeat = (sk_heartbeat){.hb_node_id = peer,
                                   .hb_node = "n",
                                   .hb_seq = seq,
                                   .hb_time_us = now,
                                   .hb_slots_total = total,
                                   .hb_slots_used = used,
                                   .hb_slots_reserved = reserved,
                                   .hb_used = used_res,
                                   .hb_running = ru,
                                   .hb_nrunning = nrun};
    m.m_heartbeat.hb_queue[0] = queue;
    fd_core_on_msg(c, now, peer, &m);
    free(ru);
}

void fdt_answer(fd_core *c, sk_time now, sk_peer peer, const sk_reserve *rv,
                bool ack)
{
    fdt_drain(c);
    sk_msg m = {.m_type = ack ? SK_MSG_RESERVE_ACK : SK_MSG_RESERVE_REJECT};
    m.m_reserve_ack = (sk_reserve_ack){.ra_resv = rv->rv_resv,
                                       .ra_job = rv->rv_job,
                                       .ra_task = rv->rv_task,
                                       .ra_node_id = peer,
                                       .ra_reason = ack ? "" : "test says no"};
    fd_core_on_msg(c, now, peer, &m);
}

int fdt_solve(fd_round *r, fc_solve_stats *st)
{
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = r->rd_algorithm;
    opt.so_incremental = r->rd_incremental;
    return fc_solve(r->rd_graph, &opt, st);
}

int fdt_round(fd_core *c, sk_time now, int *solve_rc)
{
    fdt_drain(c);
    fd_round *r;
    int rc = fd_round_begin(c, now, &r);
    if (rc != 0)
        return rc;
    fc_solve_stats st;
    int src = fdt_solve(r, &st);
    if (solve_rc != NULL)
        *solve_rc = src;
    if (fd_round_end(c, now, r, src, &st) != 0)
        tap_diag("fd_round_end failed");
    return 0;
}

size_t fdt_count(fd_core *c, sk_msg_type type, sk_peer peer)
{
    sk_outbox *ob = fd_core_outbox(c);
    size_t n = 0;
    for (size_t i = 0; i < ob->ob_len; i++)
        n += ob->ob_msgs[i].o_msg.m_type == type &&
             (peer == UINT32_MAX || ob->ob_msgs[i].o_peer == peer);
    return n;
}

const sk_msg *fdt_nth(fd_core *c, sk_msg_type type, size_t i, sk_peer *to)
{
    sk_outbox *ob = fd_core_outbox(c);
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

int fdt_drain(fd_core *c)
{
    sk_outbox *ob = fd_core_outbox(c);
    int bad = 0;
    for (size_t i = 0; i < ob->ob_len; i++) {
        int rc = sk_msg_encode(&encbuf, &ob->ob_msgs[i].o_msg);
        if (rc != 0) {
            bad++;
            if (encode_failures++ < 5)
                tap_diag("cannot encode %s: %s",
                         sk_msg_type_name(ob->ob_msgs[i].o_msg.m_type),
                         sk_strerror(rc));
        }
    }
    sk_outbox_clear(ob);
    return bad;
}

int fdt_encode_failures(void)
{
    return encode_failures;
}
