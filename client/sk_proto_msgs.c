/*
 * sk_proto_msgs.c - the messages of the wire protocol: one schema per
 * message body (the order of its fields on the wire, their ranges and
 * limits, and the cross-field checks), the envelope [version, type,
 * fields...], the generic encoder and decoder that dispatch on the type,
 * and the encode/decode pair of each message type.
 */
#include "sk_constraint.h"
#include "sk_proto_schema.h"
#include "skylark.h"

#include <stddef.h>
#include <string.h>

#define NELEM(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

#define F_BOOL(T, m)                                                           \
    {                                                                          \
        .f_kind = SK_K_BOOL, .f_off = offsetof(T, m)                           \
    }
#define F_U8(T, m, lo, hi)                                                     \
    {                                                                          \
        .f_kind = SK_K_U8, .f_off = offsetof(T, m), .f_min = lo, .f_max = hi   \
    }
#define F_U32(T, m, lo, hi)                                                    \
    {                                                                          \
        .f_kind = SK_K_U32, .f_off = offsetof(T, m), .f_min = lo, .f_max = hi  \
    }
#define F_U32ANY(T, m) F_U32(T, m, 0, UINT32_MAX)
#define F_U64(T, m)                                                            \
    {                                                                          \
        .f_kind = SK_K_U64, .f_off = offsetof(T, m), .f_max = UINT64_MAX       \
    }
#define F_I32(T, m)                                                            \
    {                                                                          \
        .f_kind = SK_K_I32, .f_off = offsetof(T, m)                            \
    }
#define F_F64(T, m, hi)                                                        \
    {                                                                          \
        .f_kind = SK_K_F64, .f_off = offsetof(T, m), .f_dmax = hi              \
    }
#define F_STR(T, m, max)                                                       \
    {                                                                          \
        .f_kind = SK_K_STR, .f_off = offsetof(T, m), .f_max = max              \
    }
#define F_BYTES(T, m, max)                                                     \
    {                                                                          \
        .f_kind = SK_K_BYTES, .f_off = offsetof(T, m), .f_max = max            \
    }
#define F_STRS(T, m, cnt, maxn, maxlen)                                        \
    {                                                                          \
        .f_kind = SK_K_STRS, .f_off = offsetof(T, m),                          \
        .f_cnt_off = offsetof(T, cnt), .f_max = maxn, .f_len = maxlen          \
    }
#define F_ARRAY(T, m, cnt, lo, hi, sub)                                        \
    {                                                                          \
        .f_kind = SK_K_ARRAY, .f_off = offsetof(T, m),                         \
        .f_cnt_off = offsetof(T, cnt), .f_min = lo, .f_max = hi, .f_sub = &sub \
    }
#define F_STRUCT(T, m, sub)                                                    \
    {                                                                          \
        .f_kind = SK_K_STRUCT, .f_off = offsetof(T, m), .f_sub = &sub          \
    }
#define F_FIXU32(T, m, n)                                                      \
    {                                                                          \
        .f_kind = SK_K_FIXU32, .f_off = offsetof(T, m), .f_max = n             \
    }
#define F_RES(T, m)     F_STRUCT(T, m, res_schema)
#define F_TASK(T, m)    F_U32(T, m, 0, SK_MAX_TASKS - 1)
#define F_ATTEMPT(T, m) F_U32(T, m, 0, SK_MAX_ATTEMPTS - 1)
#define F_PRIO(T, m)    F_U8(T, m, 0, SK_PRIORITIES - 1)
#define F_ROLE(T, m)    F_U8(T, m, 1, SK_ROLE_MAX)

#define SCHEMA(name, T, check)                                                 \
    static const sk_schema name##_schema = {                                   \
        name##_fields, NELEM(name##_fields), sizeof(T), check}

static const sk_field res_fields[] = {
    F_U32ANY(sk_resources, r_cpu_milli),
    F_U32ANY(sk_resources, r_mem_mb),
};
SCHEMA(res, sk_resources, NULL);

static const sk_field hello_fields[] = {
    F_ROLE(sk_hello, he_role),
    F_U32ANY(sk_hello, he_id),
    F_U64(sk_hello, he_incarnation),
    F_STR(sk_hello, he_name, SK_MAX_NAME_LEN),
    F_STRS(sk_hello, he_addrs, he_naddrs, SK_MAX_ADDRS, SK_MAX_ADDR_LEN),
    F_U32(sk_hello, he_slots, 0, SK_MAX_SLOTS),
    F_RES(sk_hello, he_res),
    F_STRS(sk_hello, he_labels, he_nlabels, SK_MAX_LABELS, SK_MAX_LABEL_LEN),
    F_STR(sk_hello, he_framework, SK_MAX_NAME_LEN),
    F_STR(sk_hello, he_rack, SK_MAX_NAME_LEN),
};
SCHEMA(hello, sk_hello, NULL);

static const sk_field task_spec_fields[] = {
    F_BYTES(sk_task_spec, ts_spec, SK_MAX_SPEC_BYTES),
    F_STRS(sk_task_spec, ts_preferred, ts_npreferred, SK_MAX_PREFERRED,
           SK_MAX_NAME_LEN),
    F_STRS(sk_task_spec, ts_racks, ts_nracks, SK_MAX_PREFERRED,
           SK_MAX_NAME_LEN),
    F_U32(sk_task_spec, ts_attempt, 0, SK_MAX_ATTEMPTS - 1),
    F_BOOL(sk_task_spec, ts_done),
    F_STRS(sk_task_spec, ts_tags, ts_ntags, SK_MAX_TAGS, SK_MAX_TAG_LEN),
    F_TASK(sk_task_spec, ts_ref),
};

/* Tags are names of the constraint language, not any string. */
static bool task_spec_check(const void *body)
{
    const sk_task_spec *t = body;
    for (uint32_t i = 0; i < t->ts_ntags; i++)
        if (!sk_tag_valid(t->ts_tags[i]))
            return false;
    return true;
}
SCHEMA(task_spec, sk_task_spec, task_spec_check);

static const sk_field constraint_fields[] = {
    F_STR(sk_constraint, cn_source, SK_MAX_TAG_LEN),
    F_U32(sk_constraint, cn_count, 0, SK_MAX_TASKS),
    F_U8(sk_constraint, cn_group, 0, SK_GROUP_MAX),
    F_STR(sk_constraint, cn_label, SK_MAX_TAG_LEN),
    F_STR(sk_constraint, cn_target, SK_MAX_TAG_LEN),
    F_BOOL(sk_constraint, cn_all),
    F_U32(sk_constraint, cn_min, 0, SK_MAX_TASKS),
    F_U32ANY(sk_constraint, cn_max),
    F_U32(sk_constraint, cn_weight, 0, SK_MAX_WEIGHT),
};

static bool constraint_check(const void *body)
{
    return sk_constraint_valid(body);
}
SCHEMA(constraint, sk_constraint, constraint_check);

/* Below 1 a job would probe fewer nodes than it has tasks. A task's ref
 * names it under the job's key: increasing, so that refs are distinct
 * and found by bisection; without a key there is nothing to name. */
static bool submit_job_check(const void *body)
{
    const sk_submit_job *m = body;
    if (m->sj_probe_ratio != 0.0 && m->sj_probe_ratio < 1.0)
        return false;
    for (uint32_t i = 0; m->sj_tasks != NULL && i < m->sj_ntasks; i++) {
        uint32_t ref = m->sj_tasks[i].ts_ref;
        if (m->sj_key == 0 ? ref != 0
                           : i > 0 && ref <= m->sj_tasks[i - 1].ts_ref)
            return false;
    }
    return true;
}

static const sk_field submit_job_fields[] = {
    F_U64(sk_submit_job, sj_job),
    F_STR(sk_submit_job, sj_user, SK_MAX_NAME_LEN),
    F_PRIO(sk_submit_job, sj_priority),
    F_F64(sk_submit_job, sj_probe_ratio, SK_MAX_PROBE_RATIO),
    F_STRS(sk_submit_job, sj_labels, sj_nlabels, SK_MAX_LABELS,
           SK_MAX_LABEL_LEN),
    F_RES(sk_submit_job, sj_res),
    F_BOOL(sk_submit_job, sj_long),
    F_U64(sk_submit_job, sj_est_task_us),
    F_U32(sk_submit_job, sj_max_attempts, 0, SK_MAX_ATTEMPTS),
    F_STR(sk_submit_job, sj_framework, SK_MAX_NAME_LEN),
    F_ARRAY(sk_submit_job, sj_tasks, sj_ntasks, 1, SK_MAX_TASKS,
            task_spec_schema),
    F_U8(sk_submit_job, sj_placement, 0, SK_PLACE_MAX),
    F_ARRAY(sk_submit_job, sj_constraints, sj_nconstraints, 0,
            SK_MAX_CONSTRAINTS, constraint_schema),
    F_U64(sk_submit_job, sj_key),
};
SCHEMA(submit_job, sk_submit_job, submit_job_check);

static const sk_field job_ack_fields[] = {
    F_U64(sk_job_ack, ja_job),
    F_STR(sk_job_ack, ja_reason, SK_MAX_REASON_LEN),
};
SCHEMA(job_ack, sk_job_ack, NULL);

static bool enqueue_check(const void *body)
{
    const sk_enqueue *m = body;
    return m->er_task < SK_MAX_TASKS || m->er_task == SK_TASK_ANY;
}

static const sk_field enqueue_fields[] = {
    F_U64(sk_enqueue, er_job),
    F_U64(sk_enqueue, er_resv),
    F_U32ANY(sk_enqueue, er_sched),
    F_STR(sk_enqueue, er_user, SK_MAX_NAME_LEN),
    F_PRIO(sk_enqueue, er_priority),
    F_U32(sk_enqueue, er_count, 1, SK_MAX_TASKS),
    F_RES(sk_enqueue, er_res),
    F_U32ANY(sk_enqueue, er_task),
};
SCHEMA(enqueue, sk_enqueue, enqueue_check);

static const sk_field get_task_fields[] = {
    F_U64(sk_get_task, gt_job),
    F_U64(sk_get_task, gt_resv),
    F_U32ANY(sk_get_task, gt_node_id),
    F_STR(sk_get_task, gt_node, SK_MAX_NAME_LEN),
};
SCHEMA(get_task, sk_get_task, NULL);

/* "Nothing left" carries no task: one reading of a reply, not two. */
static bool task_reply_check(const void *body)
{
    const sk_task_reply *m = body;
    return m->tr_has_task ||
           (m->tr_task == 0 && m->tr_attempt == 0 && m->tr_spec.b_len == 0 &&
            (m->tr_framework == NULL || m->tr_framework[0] == '\0') &&
            m->tr_key == 0 && m->tr_ref == 0);
}

static const sk_field task_reply_fields[] = {
    F_U64(sk_task_reply, tr_job),
    F_U64(sk_task_reply, tr_resv),
    F_BOOL(sk_task_reply, tr_has_task),
    F_TASK(sk_task_reply, tr_task),
    F_ATTEMPT(sk_task_reply, tr_attempt),
    F_BYTES(sk_task_reply, tr_spec, SK_MAX_SPEC_BYTES),
    F_STR(sk_task_reply, tr_framework, SK_MAX_NAME_LEN),
    F_U64(sk_task_reply, tr_key),
    F_TASK(sk_task_reply, tr_ref),
};
SCHEMA(task_reply, sk_task_reply, task_reply_check);

static const sk_field cancel_resv_fields[] = {
    F_U64(sk_cancel_resv, cr_job),
};
SCHEMA(cancel_resv, sk_cancel_resv, NULL);

static const sk_field launch_fields[] = {
    F_U64(sk_launch, lt_job),
    F_TASK(sk_launch, lt_task),
    F_ATTEMPT(sk_launch, lt_attempt),
    F_STR(sk_launch, lt_user, SK_MAX_NAME_LEN),
    F_RES(sk_launch, lt_res),
    F_BYTES(sk_launch, lt_spec, SK_MAX_SPEC_BYTES),
    F_STR(sk_launch, lt_framework, SK_MAX_NAME_LEN),
};
SCHEMA(launch, sk_launch, NULL);

static const sk_field task_started_fields[] = {
    F_U64(sk_task_started, st_job),
    F_TASK(sk_task_started, st_task),
    F_ATTEMPT(sk_task_started, st_attempt),
    F_STR(sk_task_started, st_node, SK_MAX_NAME_LEN),
    F_U64(sk_task_started, st_launch_us),
};
SCHEMA(task_started, sk_task_started, NULL);

static const sk_field task_finished_fields[] = {
    F_U64(sk_task_finished, tf_job),
    F_TASK(sk_task_finished, tf_task),
    F_ATTEMPT(sk_task_finished, tf_attempt),
    F_STR(sk_task_finished, tf_node, SK_MAX_NAME_LEN),
    F_U8(sk_task_finished, tf_status, 1, SK_TASK_STATUS_MAX),
    F_I32(sk_task_finished, tf_exit),
    F_BYTES(sk_task_finished, tf_output, SK_MAX_OUTPUT_BYTES),
    F_U64(sk_task_finished, tf_launch_us),
    F_U64(sk_task_finished, tf_end_us),
};
SCHEMA(task_finished, sk_task_finished, NULL);

/* An offered outcome names its task, and only a task that ran to its
 * end has one worth offering. */
static bool task_outcome_check(const void *body)
{
    const sk_task_outcome *m = body;
    return m->to_key != 0;
}

static const sk_field task_outcome_fields[] = {
    F_U64(sk_task_outcome, to_key),
    F_TASK(sk_task_outcome, to_ref),
    F_STR(sk_task_outcome, to_user, SK_MAX_NAME_LEN),
    F_STR(sk_task_outcome, to_node, SK_MAX_NAME_LEN),
    F_U8(sk_task_outcome, to_status, SK_TASK_OK, SK_TASK_FAILED),
    F_I32(sk_task_outcome, to_exit),
    F_BYTES(sk_task_outcome, to_output, SK_MAX_OUTPUT_BYTES),
    F_U64(sk_task_outcome, to_launch_us),
    F_U64(sk_task_outcome, to_end_us),
};
SCHEMA(task_outcome, sk_task_outcome, task_outcome_check);

static const sk_field cancel_job_fields[] = {
    F_U64(sk_cancel_job, cj_job),
    F_STR(sk_cancel_job, cj_reason, SK_MAX_REASON_LEN),
};
SCHEMA(cancel_job, sk_cancel_job, NULL);

/* Every task ends exactly once, so the outcomes account for all tasks. */
static bool job_done_check(const void *body)
{
    const sk_job_done *m = body;
    uint64_t sum = (uint64_t)m->jd_ok + m->jd_failed + m->jd_killed +
                   m->jd_lost + m->jd_cancelled;
    return sum == m->jd_tasks;
}

static const sk_field job_done_fields[] = {
    F_U64(sk_job_done, jd_job),
    F_U32(sk_job_done, jd_tasks, 0, SK_MAX_TASKS),
    F_U32(sk_job_done, jd_ok, 0, SK_MAX_TASKS),
    F_U32(sk_job_done, jd_failed, 0, SK_MAX_TASKS),
    F_U32(sk_job_done, jd_killed, 0, SK_MAX_TASKS),
    F_U32(sk_job_done, jd_lost, 0, SK_MAX_TASKS),
    F_U32(sk_job_done, jd_cancelled, 0, SK_MAX_TASKS),
    F_U64(sk_job_done, jd_end_us),
};
SCHEMA(job_done, sk_job_done, job_done_check);

static bool kill_task_check(const void *body)
{
    const sk_kill_task *m = body;
    return m->kt_task < SK_MAX_TASKS || m->kt_task == SK_TASK_ANY;
}

static const sk_field kill_task_fields[] = {
    F_U64(sk_kill_task, kt_job),
    F_U32ANY(sk_kill_task, kt_task),
    F_ATTEMPT(sk_kill_task, kt_attempt),
};
SCHEMA(kill_task, sk_kill_task, kill_task_check);

/* Without a key there is no name to give: every ref is 0. */
static bool reserve_check(const void *body)
{
    const sk_reserve *m = body;
    return m->rv_key != 0 || m->rv_ref == 0;
}

static const sk_field reserve_fields[] = {
    F_U64(sk_reserve, rv_resv),
    F_U64(sk_reserve, rv_job),
    F_TASK(sk_reserve, rv_task),
    F_ATTEMPT(sk_reserve, rv_attempt),
    F_U32ANY(sk_reserve, rv_sched),
    F_STR(sk_reserve, rv_user, SK_MAX_NAME_LEN),
    F_PRIO(sk_reserve, rv_priority),
    F_RES(sk_reserve, rv_res),
    F_BYTES(sk_reserve, rv_spec, SK_MAX_SPEC_BYTES),
    F_STR(sk_reserve, rv_framework, SK_MAX_NAME_LEN),
    F_U64(sk_reserve, rv_key),
    F_TASK(sk_reserve, rv_ref),
};
SCHEMA(reserve, sk_reserve, reserve_check);

static const sk_field reserve_ack_fields[] = {
    F_U64(sk_reserve_ack, ra_resv),
    F_U64(sk_reserve_ack, ra_job),
    F_TASK(sk_reserve_ack, ra_task),
    F_U32ANY(sk_reserve_ack, ra_node_id),
    F_STR(sk_reserve_ack, ra_reason, SK_MAX_REASON_LEN),
};
SCHEMA(reserve_ack, sk_reserve_ack, NULL);

static const sk_field release_fields[] = {
    F_U64(sk_release, rl_resv),
    F_U64(sk_release, rl_job),
    F_TASK(sk_release, rl_task),
    F_BOOL(sk_release, rl_kill),
};
SCHEMA(release, sk_release, NULL);

static const sk_field running_fields[] = {
    F_U64(sk_running, ru_job),         F_TASK(sk_running, ru_task),
    F_ATTEMPT(sk_running, ru_attempt), F_U64(sk_running, ru_launch_us),
    F_BOOL(sk_running, ru_long),       F_RES(sk_running, ru_res),
};
SCHEMA(running, sk_running, NULL);

static bool heartbeat_check(const void *body)
{
    const sk_heartbeat *m = body;
    return m->hb_slots_used <= m->hb_slots_total &&
           m->hb_slots_reserved <= m->hb_slots_total &&
           m->hb_nusers <= m->hb_users_total &&
           (m->hb_users_sent || (m->hb_nusers == 0 && m->hb_users_total == 0 &&
                                 m->hb_users_page == 0));
}

static const sk_field usage_fields[] = {
    F_STR(sk_usage, us_user, SK_MAX_NAME_LEN),
    F_U32(sk_usage, us_weight, 1, SK_MAX_USER_WEIGHT),
    F_U32ANY(sk_usage, us_queued),
    F_U32(sk_usage, us_running, 0, SK_MAX_SLOTS),
    F_U64(sk_usage, us_slot_ms),
};
SCHEMA(usage, sk_usage, NULL);

static const sk_field heartbeat_fields[] = {
    F_U32ANY(sk_heartbeat, hb_node_id),
    F_STR(sk_heartbeat, hb_node, SK_MAX_NAME_LEN),
    F_U64(sk_heartbeat, hb_seq),
    F_U64(sk_heartbeat, hb_time_us),
    F_U32(sk_heartbeat, hb_slots_total, 0, SK_MAX_SLOTS),
    F_U32(sk_heartbeat, hb_slots_used, 0, SK_MAX_SLOTS),
    F_U32(sk_heartbeat, hb_slots_reserved, 0, SK_MAX_SLOTS),
    F_RES(sk_heartbeat, hb_used),
    F_FIXU32(sk_heartbeat, hb_queue, SK_PRIORITIES),
    F_ARRAY(sk_heartbeat, hb_running, hb_nrunning, 0, SK_MAX_SLOTS,
            running_schema),
    F_ARRAY(sk_heartbeat, hb_users, hb_nusers, 0, SK_MAX_HB_USERS,
            usage_schema),
    F_U32ANY(sk_heartbeat, hb_users_total),
    F_BOOL(sk_heartbeat, hb_users_sent),
    F_U32(sk_heartbeat, hb_users_page, 0, SK_MAX_HB_USER_PAGES),
};
SCHEMA(heartbeat, sk_heartbeat, heartbeat_check);

static const sk_field member_fields[] = {
    F_U32ANY(sk_member, me_id),
    F_STR(sk_member, me_name, SK_MAX_NAME_LEN),
    F_STR(sk_member, me_addr, SK_MAX_ADDR_LEN),
    F_U8(sk_member, me_state, 1, SK_NODE_STATE_MAX),
    F_U32(sk_member, me_slots, 0, SK_MAX_SLOTS),
    F_RES(sk_member, me_res),
    F_STRS(sk_member, me_labels, me_nlabels, SK_MAX_LABELS, SK_MAX_LABEL_LEN),
};
SCHEMA(member, sk_member, NULL);

static const sk_field membership_fields[] = {
    F_U64(sk_membership, mb_epoch),
    F_BOOL(sk_membership, mb_full),
    F_ARRAY(sk_membership, mb_nodes, mb_nnodes, 0, SK_MAX_NODES, member_schema),
};
SCHEMA(membership, sk_membership, NULL);

static const sk_field status_request_fields[] = {
    F_U64(sk_status_request, sq_request),
    F_BOOL(sk_status_request, sq_table),
    F_STR(sk_status_request, sq_query, SK_MAX_STATUS_LEN),
};
SCHEMA(status_request, sk_status_request, NULL);

static const sk_field status_kv_fields[] = {
    F_STR(sk_status_kv, kv_key, SK_MAX_STATUS_LEN),
    F_STR(sk_status_kv, kv_value, SK_MAX_STATUS_LEN),
};
SCHEMA(status_kv, sk_status_kv, NULL);

static const sk_field status_row_fields[] = {
    F_STRS(sk_status_row, sw_cells, sw_ncells, SK_MAX_STATUS_COLS,
           SK_MAX_STATUS_LEN),
};
SCHEMA(status_row, sk_status_row, NULL);

/* A table prints only if every row fills exactly the columns. */
static bool status_reply_check(const void *body)
{
    const sk_status_reply *m = body;
    if (m->sr_rows == NULL)
        return m->sr_nrows == 0;
    for (uint32_t i = 0; i < m->sr_nrows; i++)
        if (m->sr_rows[i].sw_ncells != m->sr_ncolumns)
            return false;
    return true;
}

static const sk_field status_reply_fields[] = {
    F_U64(sk_status_reply, sr_request),
    F_ROLE(sk_status_reply, sr_role),
    F_STR(sk_status_reply, sr_name, SK_MAX_NAME_LEN),
    F_U64(sk_status_reply, sr_time_us),
    F_ARRAY(sk_status_reply, sr_kv, sr_nkv, 0, SK_MAX_STATUS_KV,
            status_kv_schema),
    F_STRS(sk_status_reply, sr_columns, sr_ncolumns, SK_MAX_STATUS_COLS,
           SK_MAX_STATUS_LEN),
    F_ARRAY(sk_status_reply, sr_rows, sr_nrows, 0, SK_MAX_STATUS_ROWS,
            status_row_schema),
};
SCHEMA(status_reply, sk_status_reply, status_reply_check);

/* The message types: name and body schema, indexed by sk_msg_type. */
static const struct msg_desc {
    const char *md_name;
    const sk_schema *md_schema;
} msg_types[SK_MSG_TYPE_END] = {
    [SK_MSG_HELLO] = {"HELLO", &hello_schema},
    [SK_MSG_SUBMIT_JOB] = {"SUBMIT_JOB", &submit_job_schema},
    [SK_MSG_JOB_ACCEPTED] = {"JOB_ACCEPTED", &job_ack_schema},
    [SK_MSG_JOB_REJECTED] = {"JOB_REJECTED", &job_ack_schema},
    [SK_MSG_ENQUEUE_RESERVATION] = {"ENQUEUE_RESERVATION", &enqueue_schema},
    [SK_MSG_GET_TASK] = {"GET_TASK", &get_task_schema},
    [SK_MSG_TASK_REPLY] = {"TASK_REPLY", &task_reply_schema},
    [SK_MSG_CANCEL_RESERVATIONS] = {"CANCEL_RESERVATIONS", &cancel_resv_schema},
    [SK_MSG_LAUNCH_TASK] = {"LAUNCH_TASK", &launch_schema},
    [SK_MSG_TASK_STARTED] = {"TASK_STARTED", &task_started_schema},
    [SK_MSG_TASK_FINISHED] = {"TASK_FINISHED", &task_finished_schema},
    [SK_MSG_CANCEL_JOB] = {"CANCEL_JOB", &cancel_job_schema},
    [SK_MSG_JOB_DONE] = {"JOB_DONE", &job_done_schema},
    [SK_MSG_KILL_TASK] = {"KILL_TASK", &kill_task_schema},
    [SK_MSG_RESERVE] = {"RESERVE", &reserve_schema},
    [SK_MSG_RESERVE_ACK] = {"RESERVE_ACK", &reserve_ack_schema},
    [SK_MSG_RESERVE_REJECT] = {"RESERVE_REJECT", &reserve_ack_schema},
    [SK_MSG_RELEASE] = {"RELEASE", &release_schema},
    [SK_MSG_HEARTBEAT] = {"HEARTBEAT", &heartbeat_schema},
    [SK_MSG_MEMBERSHIP] = {"MEMBERSHIP", &membership_schema},
    [SK_MSG_STATUS_REQUEST] = {"STATUS_REQUEST", &status_request_schema},
    [SK_MSG_STATUS_REPLY] = {"STATUS_REPLY", &status_reply_schema},
    [SK_MSG_TASK_OUTCOME] = {"TASK_OUTCOME", &task_outcome_schema},
};

static const struct msg_desc *find_type(uint64_t type)
{
    if (type >= SK_MSG_TYPE_END || msg_types[type].md_schema == NULL)
        return NULL;
    return &msg_types[type];
}

const char *sk_msg_type_name(int type)
{
    const struct msg_desc *d = type >= 0 ? find_type((uint64_t)type) : NULL;
    return d != NULL ? d->md_name : "UNKNOWN";
}

/* The packer's sink: append to the buffer and remember why it failed. */
typedef struct writer {
    sk_buf *w_buf;
    int w_err;
} writer;

static int write_cb(void *data, const char *bytes, size_t len)
{
    writer *w = data;
    int rc = sk_buf_append(w->w_buf, bytes, len);
    if (rc != 0) {
        w->w_err = rc;
        return -1;
    }
    return 0;
}

static int encode_as(sk_buf *buf, int type, const void *body)
{
    const struct msg_desc *d = type >= 0 ? find_type((uint64_t)type) : NULL;
    if (d == NULL)
        return SK_EUNKNOWN;
    buf->b_len = 0;
    writer w = {buf, 0};
    msgpack_packer pk;
    msgpack_packer_init(&pk, &w, write_cb);
    if (msgpack_pack_array(&pk, 2 + d->md_schema->s_nfields) != 0 ||
        msgpack_pack_uint32(&pk, SK_PROTOCOL_VERSION) != 0 ||
        msgpack_pack_uint32(&pk, (uint32_t)type) != 0)
        return w.w_err != 0 ? w.w_err : SK_ENOMEM;
    return sk_schema_encode(&pk, &w.w_err, d->md_schema, body);
}

int sk_msg_encode(sk_buf *buf, const sk_msg *msg)
{
    return encode_as(buf, (int)msg->m_type, &msg->m_hello);
}

/* Reads the envelope's header: array, version, type. */
static int read_envelope(const uint8_t *p, size_t len, uint32_t *count,
                         uint64_t *type, size_t *used)
{
    size_t n, at;
    uint64_t version;
    if (len > SK_MAX_MSG_BYTES)
        return SK_ELIMIT;
    /* data may be NULL when len is 0: read nothing from it. */
    if (len == 0)
        return SK_EPROTO;
    if (sk_mp_read_array(p, len, count, &n) != 0 || *count < 2)
        return SK_EPROTO;
    at = n;
    if (sk_mp_read_uint(p + at, len - at, UINT64_MAX, &version, &n) != 0)
        return SK_EPROTO;
    if (version != SK_PROTOCOL_VERSION)
        return SK_EVERSION;
    at += n;
    if (sk_mp_read_uint(p + at, len - at, UINT64_MAX, type, &n) != 0)
        return SK_EPROTO;
    if (find_type(*type) == NULL)
        return SK_EUNKNOWN;
    *used = at + n;
    return 0;
}

int sk_msg_peek_type(const void *data, size_t len, sk_msg_type *type)
{
    uint32_t count;
    uint64_t t;
    size_t used;
    int rc = read_envelope(data, len, &count, &t, &used);
    if (rc == 0)
        *type = (sk_msg_type)t;
    return rc;
}

/* Decodes a whole message; expect is the only type accepted, or 0 for
 * any. */
static int decode_as(const void *data, size_t len, int expect, sk_msg *out)
{
    const uint8_t *p = data;
    uint32_t count;
    uint64_t type;
    size_t at, used;
    memset(out, 0, sizeof *out);
    int rc = read_envelope(p, len, &count, &type, &at);
    if (rc != 0)
        return rc;
    const sk_schema *s = msg_types[type].md_schema;
    if ((expect != 0 && type != (uint64_t)expect) || count != 2 + s->s_nfields)
        return SK_EPROTO;
    rc = sk_schema_decode(p + at, len - at, s, &out->m_hello, &out->m_arena,
                          &used);
    if (rc == 0 && used != len - at)
        rc = SK_EPROTO;
    if (rc != 0) {
        sk_msg_free(out);
        return rc;
    }
    out->m_type = (sk_msg_type)type;
    return 0;
}

int sk_msg_decode(const void *data, size_t len, sk_msg *out)
{
    return decode_as(data, len, 0, out);
}

void sk_msg_free(sk_msg *msg)
{
    sk_arena_free(msg->m_arena);
    memset(msg, 0, sizeof *msg);
}

#define CODEC(name, TYPE, ctype)                                               \
    int sk_##name##_encode(sk_buf *buf, const ctype *m)                        \
    {                                                                          \
        return encode_as(buf, TYPE, m);                                        \
    }                                                                          \
    int sk_##name##_decode(const void *data, size_t len, sk_msg *out)          \
    {                                                                          \
        return decode_as(data, len, TYPE, out);                                \
    }

CODEC(hello, SK_MSG_HELLO, sk_hello)
CODEC(submit_job, SK_MSG_SUBMIT_JOB, sk_submit_job)
CODEC(job_accepted, SK_MSG_JOB_ACCEPTED, sk_job_ack)
CODEC(job_rejected, SK_MSG_JOB_REJECTED, sk_job_ack)
CODEC(enqueue, SK_MSG_ENQUEUE_RESERVATION, sk_enqueue)
CODEC(get_task, SK_MSG_GET_TASK, sk_get_task)
CODEC(task_reply, SK_MSG_TASK_REPLY, sk_task_reply)
CODEC(cancel_resv, SK_MSG_CANCEL_RESERVATIONS, sk_cancel_resv)
CODEC(launch, SK_MSG_LAUNCH_TASK, sk_launch)
CODEC(task_started, SK_MSG_TASK_STARTED, sk_task_started)
CODEC(task_finished, SK_MSG_TASK_FINISHED, sk_task_finished)
CODEC(cancel_job, SK_MSG_CANCEL_JOB, sk_cancel_job)
CODEC(job_done, SK_MSG_JOB_DONE, sk_job_done)
CODEC(kill_task, SK_MSG_KILL_TASK, sk_kill_task)
CODEC(reserve, SK_MSG_RESERVE, sk_reserve)
CODEC(reserve_ack, SK_MSG_RESERVE_ACK, sk_reserve_ack)
CODEC(reserve_reject, SK_MSG_RESERVE_REJECT, sk_reserve_ack)
CODEC(release, SK_MSG_RELEASE, sk_release)
CODEC(heartbeat, SK_MSG_HEARTBEAT, sk_heartbeat)
CODEC(membership, SK_MSG_MEMBERSHIP, sk_membership)
CODEC(status_request, SK_MSG_STATUS_REQUEST, sk_status_request)
CODEC(status_reply, SK_MSG_STATUS_REPLY, sk_status_reply)
CODEC(task_outcome, SK_MSG_TASK_OUTCOME, sk_task_outcome)

bool sk_rack_valid(const char *name)
{
    size_t n = name != NULL ? strnlen(name, SK_MAX_NAME_LEN + 1) : 0;
    if (n == 0 || n > SK_MAX_NAME_LEN)
        return false;
    for (size_t i = 0; i < n; i++)
        if (name[i] < 0x21 || name[i] > 0x7e)
            return false;
    return true;
}
