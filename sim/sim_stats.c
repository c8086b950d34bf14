/*
 * sim_stats.c - histograms, counters and CSV records of a simulation (see
 * sim_stats.h).
 */
#include "sim_stats.h"

#include "sk_log.h"
#include "skylark.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BUF_BYTES 512

int sim_hist_init(sim_hist *h)
{
    memset(h, 0, sizeof *h);
    h->h_count = calloc(SIM_HIST_BUCKETS, sizeof *h->h_count);
    return h->h_count == NULL ? SK_ENOMEM : 0;
}

void sim_hist_fini(sim_hist *h)
{
    free(h->h_count);
    memset(h, 0, sizeof *h);
}

static uint32_t bucket_of(uint64_t v)
{
    if (v < SIM_HIST_SUB)
        return (uint32_t)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= SUB_BITS */
    unsigned shift = e - SIM_HIST_SUB_BITS;
    uint32_t sub = (uint32_t)(v >> shift) - SIM_HIST_SUB;
    return SIM_HIST_SUB + (shift * SIM_HIST_SUB) + sub;
}

void sim_hist_bucket_range(uint32_t i, uint64_t *lo, uint64_t *hi)
{
    if (i < SIM_HIST_SUB) {
        *lo = *hi = i;
        return;
    }
    unsigned shift = (i - SIM_HIST_SUB) / SIM_HIST_SUB;
    uint64_t sub = (i - SIM_HIST_SUB) % SIM_HIST_SUB;
    *lo = (SIM_HIST_SUB + sub) << shift;
    *hi = *lo + ((1ull << shift) - 1);
}

void sim_hist_add(sim_hist *h, uint64_t v)
{
    h->h_count[bucket_of(v)]++;
    h->h_n++;
    h->h_sum += v;
    if (v > h->h_max)
        h->h_max = v;
}

double sim_hist_quantile(const sim_hist *h, double q)
{
    if (h->h_n == 0)
        return 0;
    uint64_t rank = (uint64_t)ceil(q * (double)h->h_n);
    if (rank < 1)
        rank = 1;
    if (rank > h->h_n)
        rank = h->h_n;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < SIM_HIST_BUCKETS; i++) {
        seen += h->h_count[i];
        if (seen >= rank) {
            uint64_t lo, hi;
            sim_hist_bucket_range(i, &lo, &hi);
            if (hi > h->h_max)
                hi = h->h_max;
            return ((double)lo + (double)hi) / 2;
        }
    }
    return (double)h->h_max;
}

double sim_hist_mean(const sim_hist *h)
{
    return h->h_n ? (double)h->h_sum / (double)h->h_n : 0;
}

const char *sim_msg_kind_name(int kind)
{
    switch (kind) {
    case SIM_MSG_PROBE:
        return "PROBE";
    case SIM_MSG_PROBE_REPLY:
        return "PROBE_REPLY";
    case SIM_MSG_PLACE:
        return "PLACE_TASK";
    case SIM_MSG_DONE:
        return "TASK_DONE";
    default:
        return sk_msg_type_name(kind);
    }
}

int sim_stats_init(sim_stats *st, uint64_t slots, FILE *jobs_out,
                   FILE *tasks_out, const sim_names *names)
{
    memset(st, 0, sizeof *st);
    st->st_slots = slots;
    st->st_jobs_out = jobs_out;
    st->st_tasks_out = tasks_out;
    st->st_names = names;
    st->st_buf = malloc(BUF_BYTES);
    if (st->st_buf == NULL || sim_hist_init(&st->st_resp) != 0 ||
        sim_hist_init(&st->st_wait) != 0 ||
        sim_hist_init(&st->st_long_wait) != 0 ||
        sim_hist_init(&st->st_long_resp) != 0) {
        sim_stats_fini(st);
        return SK_ENOMEM;
    }
    if (jobs_out != NULL)
        fputs("job,job_id,user,priority,class,tasks,arrival_us,"
              "first_start_us,end_us,response_us,ok,failed,killed,lost,"
              "cancelled,outcome,measured,queued\n",
              jobs_out);
    if (tasks_out != NULL)
        fputs("job,task,attempt,node,submit_us,start_us,end_us,wait_us,"
              "status,queued,cut\n",
              tasks_out);
    return 0;
}

void sim_stats_fini(sim_stats *st)
{
    sim_hist_fini(&st->st_resp);
    sim_hist_fini(&st->st_wait);
    sim_hist_fini(&st->st_long_wait);
    sim_hist_fini(&st->st_long_resp);
    free(st->st_buf);
    st->st_buf = NULL;
}

/* integral_at returns the busy slot time up to t, no earlier than the last
 * change. */
static uint64_t integral_at(const sim_stats *st, sk_time t)
{
    SK_ASSERT(t >= st->st_busy_at);
    return st->st_busy_integral + st->st_busy * (t - st->st_busy_at);
}

/* integrate moves the busy slot time to now, taking the window's ends that
 * fall before it on the way. */
static void integrate(sim_stats *st, sk_time now)
{
    if (st->st_start_due && st->st_win_start <= now) {
        st->st_int_start = integral_at(st, st->st_win_start);
        st->st_start_due = false;
    }
    if (st->st_end_due && st->st_win_end <= now) {
        st->st_int_end = integral_at(st, st->st_win_end);
        st->st_end_due = false;
    }
    st->st_busy_integral = integral_at(st, now);
    st->st_busy_at = now;
}

void sim_stats_busy(sim_stats *st, sk_time now, int delta)
{
    integrate(st, now);
    st->st_busy = (uint64_t)((int64_t)st->st_busy + delta);
    if (st->st_busy > st->st_busy_peak)
        st->st_busy_peak = st->st_busy;
}

void sim_stats_arrival(sim_stats *st, sim_job *j, sk_time now)
{
    j->j_first_start = SK_TIME_NEVER;
    st->st_arrived++;
    st->st_tasks_submitted += j->j_ntasks;
    if (j->j_long_measured) {
        st->st_long_arrived++;
        st->st_long_tasks += j->j_ntasks;
    }
    if (!j->j_measured)
        return;
    st->st_measured_arrived++;
    if (!st->st_win_open) {
        st->st_win_open = true;
        st->st_win_start = now;
        st->st_start_due = true;
    }
    st->st_win_end = now;
    st->st_end_due = true;
}

double sim_stats_utilisation(const sim_stats *st)
{
    if (st->st_win_end <= st->st_win_start || st->st_slots == 0)
        return 0;
    return (double)(st->st_int_end - st->st_int_start) /
           ((double)st->st_slots * (double)(st->st_win_end - st->st_win_start));
}

uint64_t sim_stats_messages(const sim_stats *st)
{
    uint64_t n = 0;
    for (int k = 0; k < SIM_MSG_KINDS; k++)
        n += st->st_net[k];
    return n;
}

/* Records are written by hand: printf would cost more than the
 * simulation of the task when every task is recorded. */
static char *put_u64(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static const char *status_name(uint8_t status)
{
    static const char *names[] = {"none",   "ok",   "failed",
                                  "killed", "lost", "cancelled"};
    return status <= SK_TASK_STATUS_MAX ? names[status] : "?";
}

void sim_stats_task(sim_stats *st, sim_job *j, uint32_t task, uint32_t attempt,
                    const char *node, sk_time start, sk_time end,
                    uint8_t status, bool queued)
{
    if (status <= SK_TASK_STATUS_MAX) {
        st->st_tasks_final[status]++;
        j->j_count[status]++;
    }
    j->j_ndone++;
    bool started = node != NULL;
    if (started) {
        if (start < j->j_first_start)
            j->j_first_start = start;
        if (end > j->j_last_end)
            j->j_last_end = end;
    }
    if (queued)
        j->j_queued = true;
    if (j->j_cut != NULL && j->j_cut[task] && status == SK_TASK_OK)
        st->st_tasks_cut++;
    uint64_t wait = started && start > j->j_arrival ? start - j->j_arrival : 0;
    if (j->j_measured && started) {
        st->st_measured_tasks++;
        st->st_measured_tasks_zero += !queued;
        sim_hist_add(&st->st_wait, wait);
    }
    if (st->st_tasks_out == NULL)
        return;
    char *p = st->st_buf;
    p = put_u64(p, j->j_seq);
    *p++ = ',';
    p = put_u64(p, task);
    *p++ = ',';
    p = put_u64(p, attempt);
    *p++ = ',';
    if (started && strlen(node) < 300)
        p = put_str(p, node);
    *p++ = ',';
    p = put_u64(p, j->j_arrival);
    *p++ = ',';
    p = put_u64(p, start);
    *p++ = ',';
    p = put_u64(p, end);
    *p++ = ',';
    p = put_u64(p, wait);
    *p++ = ',';
    p = put_str(p, status_name(status));
    *p++ = ',';
    *p++ = queued ? '1' : '0';
    *p++ = ',';
    *p++ = j->j_cut != NULL && j->j_cut[task] ? '1' : '0';
    *p++ = '\n';
    fwrite(st->st_buf, 1, (size_t)(p - st->st_buf), st->st_tasks_out);
}

void sim_stats_placed(sim_stats *st, const sim_job *j, sk_time start)
{
    if (j->j_long_measured)
        sim_hist_add(&st->st_long_wait,
                     start > j->j_arrival ? start - j->j_arrival : 0);
}

void sim_stats_job(sim_stats *st, sim_job *j, sim_job_outcome outcome,
                   sk_time now)
{
    uint64_t resp = now - j->j_arrival;
    switch (outcome) {
    case SIM_JOB_DONE:
        st->st_done++;
        if (j->j_measured) {
            st->st_measured_done++;
            st->st_measured_zero += !j->j_queued;
            sim_hist_add(&st->st_resp, resp);
        }
        if (j->j_long_measured)
            sim_hist_add(&st->st_long_resp, resp);
        break;
    case SIM_JOB_REJECTED:
        st->st_rejected++;
        break;
    case SIM_JOB_SKIPPED:
        st->st_long_skipped++;
        break;
    }
    if (st->st_jobs_out == NULL)
        return;
    static const char *outcomes[] = {"", "done", "rejected", "skipped"};
    fprintf(st->st_jobs_out,
            "%llu,%llu,%s,%u,%s,%u,%llu,%llu,%llu,%llu,%u,%u,%u,%u,%u,%s,%d,"
            "%d\n",
            (unsigned long long)j->j_seq, (unsigned long long)j->j_id,
            st->st_names->n_users[j->j_user].u_name, j->j_prio,
            j->j_long ? "long" : "short", j->j_ntasks,
            (unsigned long long)j->j_arrival,
            (unsigned long long)(j->j_first_start == SK_TIME_NEVER
                                     ? 0
                                     : j->j_first_start),
            (unsigned long long)(outcome == SIM_JOB_DONE ? now : 0),
            (unsigned long long)(outcome == SIM_JOB_DONE ? resp : 0),
            j->j_count[SK_TASK_OK], j->j_count[SK_TASK_FAILED],
            j->j_count[SK_TASK_KILLED], j->j_count[SK_TASK_LOST],
            j->j_count[SK_TASK_CANCELLED], outcomes[outcome],
            j->j_measured ? 1 : 0, j->j_queued ? 1 : 0);
}
