/*
 * sim_trace.c - the Google cluster trace (2011) as a job file (see
 * sim_trace.h).
 */
#include "sim_trace.h"

#include "sim_work.h"
#include "skylark.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define LINE_MAX_BYTES 4096
#define MAX_TASK_INDEX 1000000u

enum {
    EV_SUBMIT = 0,
    EV_SCHEDULE = 1,
    EV_EVICT = 2,
    EV_FAIL = 3,
    EV_FINISH = 4,
    EV_KILL = 5,
    EV_LOST = 6,
    EV_UPDATE_RUNNING = 8,
};

enum { T_NEVER = 0, T_RUNNING, T_FINISHED, T_ENDED };

typedef struct ttask {
    uint64_t tt_sched; /* start of the last run */
    uint64_t tt_end;   /* end of the last run */
    uint8_t tt_state;
    bool tt_seen;   /* some event names the task */
    bool tt_before; /* the last run began before the window */
} ttask;

typedef struct tjob {
    uint64_t tj_id;
    uint64_t tj_submit;      /* first SUBMIT in job_events */
    uint64_t tj_task_submit; /* first SUBMIT of a task */
    uint32_t tj_user;        /* 0: none yet */
    uint8_t tj_class;
    int tj_prio; /* highest task priority, -1: none */
    ttask *tj_tasks;
    uint32_t tj_ntasks; /* highest index + 1 */
} tjob;

typedef struct conv {
    const trace_opts *o;
    trace_stats *st;
    tjob *jobs;
    uint32_t njobs, capjobs;
    uint32_t *index; /* open addressing: job id -> jobs[] + 1 */
    uint32_t capindex;
    char **users; /* hash strings, index + 1 is the user number */
    uint64_t *user_hash;
    uint32_t nusers, capusers;
    uint32_t *uindex;
    uint32_t capuindex;
    char *err;
    size_t errlen;
    const char *file;
    uint64_t line;
} conv;

static int fail(conv *c, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(conv *c, const char *field, const char *fmt, ...)
{
    int n = snprintf(c->err, c->errlen, "%s:%" PRIu64 ": %s: ", c->file,
                     c->line, field);
    if (n >= 0 && (size_t)n < c->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return SK_EPROTO;
}

void trace_opts_init(trace_opts *o)
{
    memset(o, 0, sizeof *o);
    o->tc_speedup = 1;
    o->tc_start = 600000000;
    o->tc_long_priority = 9;
    o->tc_long_class = 2;
    o->tc_long_us = 7200ull * 1000000;
    o->tc_present_long = true;
}

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    return k ^ (k >> 33);
}

/* ---- jobs by id ------------------------------------------------------- */

static int grow_index(conv *c)
{
    uint32_t cap = c->capindex ? c->capindex * 2 : 1024;
    uint32_t *idx = calloc(cap, sizeof *idx);
    if (idx == NULL)
        return SK_ENOMEM;
    for (uint32_t j = 0; j < c->njobs; j++) {
        uint32_t i = (uint32_t)mix(c->jobs[j].tj_id) & (cap - 1);
        while (idx[i] != 0)
            i = (i + 1) & (cap - 1);
        idx[i] = j + 1;
    }
    free(c->index);
    c->index = idx;
    c->capindex = cap;
    return 0;
}

static tjob *job_get(conv *c, uint64_t id)
{
    if ((c->njobs + 1) * 2 > c->capindex && grow_index(c) != 0)
        return NULL;
    uint32_t i = (uint32_t)mix(id) & (c->capindex - 1);
    while (c->index[i] != 0) {
        tjob *j = &c->jobs[c->index[i] - 1];
        if (j->tj_id == id)
            return j;
        i = (i + 1) & (c->capindex - 1);
    }
    if (c->njobs == c->capjobs) {
        uint32_t cap = c->capjobs ? c->capjobs * 2 : 1024;
        tjob *jobs = realloc(c->jobs, cap * sizeof *jobs);
        if (jobs == NULL)
            return NULL;
        c->jobs = jobs;
        c->capjobs = cap;
    }
    tjob *j = &c->jobs[c->njobs];
    memset(j, 0, sizeof *j);
    j->tj_id = id;
    j->tj_submit = j->tj_task_submit = UINT64_MAX;
    j->tj_prio = -1;
    c->index[i] = ++c->njobs;
    return j;
}

/* user_of numbers the user called by hash string s (1, 2, ...). */
static uint32_t user_of(conv *c, const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < len; k++)
        h = (h ^ (uint8_t)s[k]) * 0x100000001b3ull;
    if ((c->nusers + 1) * 2 > c->capuindex) {
        uint32_t cap = c->capuindex ? c->capuindex * 2 : 256;
        uint32_t *idx = calloc(cap, sizeof *idx);
        if (idx == NULL)
            return 0;
        for (uint32_t u = 0; u < c->nusers; u++) {
            uint32_t i = (uint32_t)mix(c->user_hash[u]) & (cap - 1);
            while (idx[i] != 0)
                i = (i + 1) & (cap - 1);
            idx[i] = u + 1;
        }
        free(c->uindex);
        c->uindex = idx;
        c->capuindex = cap;
    }
    uint32_t i = (uint32_t)mix(h) & (c->capuindex - 1);
    while (c->uindex[i] != 0) {
        uint32_t u = c->uindex[i] - 1;
        if (c->user_hash[u] == h && strlen(c->users[u]) == len &&
            memcmp(c->users[u], s, len) == 0)
            return u + 1;
        i = (i + 1) & (c->capuindex - 1);
    }
    if (c->nusers == c->capusers) {
        uint32_t cap = c->capusers ? c->capusers * 2 : 256;
        char **users = realloc(c->users, cap * sizeof *users);
        uint64_t *hs = users ? realloc(c->user_hash, cap * sizeof *hs) : NULL;
        if (users != NULL)
            c->users = users;
        if (hs == NULL)
            return 0;
        c->user_hash = hs;
        c->capusers = cap;
    }
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return 0;
    memcpy(copy, s, len);
    copy[len] = '\0';
    c->users[c->nusers] = copy;
    c->user_hash[c->nusers] = h;
    c->uindex[i] = ++c->nusers;
    return c->nusers;
}

/* ---- reading ---------------------------------------------------------- */

typedef struct field {
    const char *p;
    size_t n;
} field;

static uint32_t split(char *line, field *f, uint32_t max)
{
    uint32_t n = 0;
    char *p = line;
    for (;;) {
        char *comma = strchr(p, ',');
        if (n < max)
            f[n] = (field){p, comma ? (size_t)(comma - p) : strlen(p)};
        n++;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    return n;
}

static bool get_u64(field f, uint64_t *out)
{
    if (f.n == 0 || f.n > 20)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < f.n; i++) {
        if (f.p[i] < '0' || f.p[i] > '9')
            return false;
        if (v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(f.p[i] - '0');
    }
    *out = v;
    return true;
}

static int job_event(conv *c, field *f, uint32_t n)
{
    if (n != 8)
        return fail(c, "line", "%u fields, a job event has 8", n);
    uint64_t t, id, type, cls = 0;
    if (!get_u64(f[0], &t))
        return fail(c, "timestamp", "not a number");
    if (!get_u64(f[2], &id))
        return fail(c, "job_id", "not a number");
    if (!get_u64(f[3], &type) || type > EV_UPDATE_RUNNING)
        return fail(c, "event_type", "not in 0..8");
    if (f[5].n > 0 && (!get_u64(f[5], &cls) || cls > 3))
        return fail(c, "scheduling_class", "not in 0..3");
    tjob *j = job_get(c, id);
    if (j == NULL)
        return SK_ENOMEM;
    if (type == EV_SUBMIT && t < j->tj_submit)
        j->tj_submit = t;
    if (cls > j->tj_class)
        j->tj_class = (uint8_t)cls;
    if (j->tj_user == 0 && f[4].n > 0 &&
        (j->tj_user = user_of(c, f[4].p, f[4].n)) == 0)
        return SK_ENOMEM;
    if (t > c->st->ts_window_end)
        c->st->ts_window_end = t;
    return 0;
}

static int task_event(conv *c, field *f, uint32_t n)
{
    if (n != 13)
        return fail(c, "line", "%u fields, a task event has 13", n);
    uint64_t t, id, idx, type, cls = 0, prio = 0;
    if (!get_u64(f[0], &t))
        return fail(c, "timestamp", "not a number");
    if (!get_u64(f[2], &id))
        return fail(c, "job_id", "not a number");
    if (!get_u64(f[3], &idx) || idx >= MAX_TASK_INDEX)
        return fail(c, "task_index", "not in 0..%u", MAX_TASK_INDEX - 1);
    if (!get_u64(f[5], &type) || type > EV_UPDATE_RUNNING)
        return fail(c, "event_type", "not in 0..8");
    if (f[7].n > 0 && (!get_u64(f[7], &cls) || cls > 3))
        return fail(c, "scheduling_class", "not in 0..3");
    if (f[8].n > 0 && (!get_u64(f[8], &prio) || prio > 11))
        return fail(c, "priority", "not in 0..11");
    tjob *j = job_get(c, id);
    if (j == NULL)
        return SK_ENOMEM;
    if (idx >= j->tj_ntasks) {
        ttask *tasks = realloc(j->tj_tasks, (idx + 1) * sizeof *tasks);
        if (tasks == NULL)
            return SK_ENOMEM;
        memset(&tasks[j->tj_ntasks], 0,
               (idx + 1 - j->tj_ntasks) * sizeof *tasks);
        j->tj_tasks = tasks;
        j->tj_ntasks = (uint32_t)idx + 1;
    }
    if (f[8].n > 0 && (int)prio > j->tj_prio)
        j->tj_prio = (int)prio;
    if (cls > j->tj_class)
        j->tj_class = (uint8_t)cls;
    if (j->tj_user == 0 && f[6].n > 0 &&
        (j->tj_user = user_of(c, f[6].p, f[6].n)) == 0)
        return SK_ENOMEM;
    if (t > c->st->ts_window_end)
        c->st->ts_window_end = t;
    ttask *tk = &j->tj_tasks[idx];
    tk->tt_seen = true;
    switch (type) {
    case EV_SUBMIT:
        if (t < j->tj_task_submit)
            j->tj_task_submit = t;
        break;
    case EV_SCHEDULE:
        tk->tt_sched = t;
        tk->tt_state = T_RUNNING;
        tk->tt_before = t == 0;
        break;
    case EV_FINISH:
    case EV_EVICT:
    case EV_FAIL:
    case EV_KILL:
    case EV_LOST:
        /* Only the end of a run counts (a KILL of a pending task ends no
         * run). */
        if (tk->tt_state == T_RUNNING) {
            tk->tt_end = t;
            tk->tt_state = type == EV_FINISH ? T_FINISHED : T_ENDED;
        }
        break;
    default:
        break;
    }
    return 0;
}

/* shards lists the shard files of one table, sorted. */
static int shards(conv *c, const char *table, char ***out, uint32_t *n)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", c->o->tc_dir, table);
    DIR *d = opendir(dir);
    if (d == NULL) {
        snprintf(c->err, c->errlen, "%s: %s", dir, strerror(errno));
        return SK_ESYS;
    }
    char **names = NULL;
    uint32_t cnt = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "part-", 5) != 0)
            continue;
        if (cnt == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (nn == NULL)
                break;
            names = nn;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if ((names[cnt] = malloc(len)) == NULL)
            break;
        snprintf(names[cnt++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    for (uint32_t i = 1; i < cnt; i++)
        for (uint32_t k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
            char *tmp = names[k];
            names[k] = names[k - 1];
            names[k - 1] = tmp;
        }
    if (cnt == 0) {
        snprintf(c->err, c->errlen, "%s: no part-* shards", dir);
        free(names);
        return SK_ESYS;
    }
    if (c->o->tc_max_shards > 0 && cnt > c->o->tc_max_shards) {
        for (uint32_t i = c->o->tc_max_shards; i < cnt; i++)
            free(names[i]);
        cnt = c->o->tc_max_shards;
    }
    *out = names;
    *n = cnt;
    return 0;
}

static int read_table(conv *c, const char *table, bool tasks)
{
    char **files;
    uint32_t nfiles;
    int rc = shards(c, table, &files, &nfiles);
    if (rc != 0)
        return rc;
    char *buf = malloc(LINE_MAX_BYTES);
    field f[16];
    for (uint32_t i = 0; rc == 0 && i < nfiles; i++) {
        gzFile gz = gzopen(files[i], "rb");
        if (gz == NULL || buf == NULL) {
            snprintf(c->err, c->errlen, "%s: cannot open", files[i]);
            rc = SK_ESYS;
            if (gz != NULL)
                gzclose(gz);
            break;
        }
        c->file = files[i];
        c->line = 0;
        while (rc == 0 && gzgets(gz, buf, LINE_MAX_BYTES) != NULL) {
            c->line++;
            size_t len = strlen(buf);
            if (len == LINE_MAX_BYTES - 1 && buf[len - 1] != '\n') {
                rc =
                    fail(c, "line", "longer than %d bytes", LINE_MAX_BYTES - 2);
                break;
            }
            while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
                buf[--len] = '\0';
            if (len == 0)
                continue;
            uint32_t n = split(buf, f, 16);
            if (tasks) {
                c->st->ts_task_events++;
                rc = task_event(c, f, n);
            } else {
                c->st->ts_job_events++;
                rc = job_event(c, f, n);
            }
            if (rc == SK_ENOMEM)
                snprintf(c->err, c->errlen, "out of memory");
        }
        int zerr = 0;
        const char *zmsg = gzerror(gz, &zerr);
        if (rc == 0 && zerr != Z_OK && zerr != Z_STREAM_END) {
            snprintf(c->err, c->errlen, "%s: %s", files[i], zmsg);
            rc = SK_ESYS;
        }
        gzclose(gz);
    }
    for (uint32_t i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    free(buf);
    return rc;
}

/* ---- writing ---------------------------------------------------------- */

typedef struct outjob {
    uint64_t oj_arrival;
    uint32_t oj_job;
} outjob;

static int cmp_out(const void *a, const void *b)
{
    const outjob *x = a, *y = b;
    if (x->oj_arrival != y->oj_arrival)
        return x->oj_arrival < y->oj_arrival ? -1 : 1;
    return (x->oj_job > y->oj_job) - (x->oj_job < y->oj_job);
}

static uint64_t scaled(const trace_opts *o, uint64_t us)
{
    double v = (double)us / o->tc_speedup + 0.5;
    return (uint64_t)v;
}

/* classify returns 0 for short, else the number of the first long
 * condition that holds (1 present, 2 priority, 3 class, 4 duration). */
static int classify(const trace_opts *o, const tjob *j, uint64_t arrival_raw,
                    uint64_t mean_us)
{
    if (o->tc_present_long && arrival_raw == 0)
        return 1;
    if (j->tj_prio >= (int)o->tc_long_priority)
        return 2;
    if (j->tj_class >= o->tc_long_class)
        return 3;
    if (o->tc_long_us > 0 && mean_us >= o->tc_long_us)
        return 4;
    return 0;
}

static int write_jobs(conv *c, FILE *out)
{
    const trace_opts *o = c->o;
    trace_stats *st = c->st;
    outjob *order = malloc((c->njobs ? c->njobs : 1) * sizeof *order);
    if (order == NULL)
        return SK_ENOMEM;
    uint32_t n = 0;
    for (uint32_t k = 0; k < c->njobs; k++) {
        tjob *j = &c->jobs[k];
        uint32_t ran = 0;
        for (uint32_t t = 0; t < j->tj_ntasks; t++) {
            ttask *tk = &j->tj_tasks[t];
            if (tk->tt_state == T_NEVER) {
                st->ts_tasks_dropped += tk->tt_seen;
                continue;
            }
            if (tk->tt_state == T_RUNNING) {
                tk->tt_end = st->ts_window_end;
                tk->tt_state = T_ENDED;
            }
            ran++;
        }
        if (ran == 0) {
            st->ts_jobs_dropped++;
            continue;
        }
        uint64_t arr =
            j->tj_submit != UINT64_MAX ? j->tj_submit : j->tj_task_submit;
        if (arr == UINT64_MAX)
            arr = 0;
        order[n++] =
            (outjob){arr > o->tc_start ? scaled(o, arr - o->tc_start) : 0, k};
    }
    qsort(order, n, sizeof *order, cmp_out);
    fprintf(out, "# skylark-sim job file, format 1 (sim/sim_work.h)\n");
    fprintf(out,
            "# from the Google cluster trace 2011 in %s: speed-up %g, time 0 "
            "= trace %" PRIu64 " us; long: present at the start %s, "
            "priority >= %u, class >= %u, mean task >= %" PRIu64 " us\n",
            o->tc_dir, o->tc_speedup, o->tc_start,
            o->tc_present_long ? "yes" : "no", o->tc_long_priority,
            o->tc_long_class, o->tc_long_us);
    fprintf(out, "arrival_us,job,user,priority,class,tasks,durations,labels,"
                 "preferred\n");
    for (uint32_t i = 0; i < n; i++) {
        tjob *j = &c->jobs[order[i].oj_job];
        uint64_t arr_raw =
            j->tj_submit != UINT64_MAX ? j->tj_submit : j->tj_task_submit;
        uint64_t sum = 0, ran = 0;
        for (uint32_t t = 0; t < j->tj_ntasks; t++)
            if (j->tj_tasks[t].tt_state != T_NEVER) {
                sum += j->tj_tasks[t].tt_end - j->tj_tasks[t].tt_sched;
                ran++;
            }
        int why =
            classify(o, j, arr_raw == UINT64_MAX ? 0 : arr_raw, sum / ran);
        st->ts_jobs++;
        st->ts_long += why != 0;
        st->ts_long_present += why == 1;
        st->ts_long_priority += why == 2;
        st->ts_long_class += why == 3;
        st->ts_long_duration += why == 4;
        int prio = j->tj_prio < 0 ? 0 : j->tj_prio;
        fprintf(out, "%" PRIu64 ",%" PRIu64 ",u%u,%d,%s,%" PRIu64 ",",
                order[i].oj_arrival, j->tj_id, j->tj_user, 7 - prio * 8 / 12,
                why ? "long" : "short", ran);
        bool first = true;
        for (uint32_t t = 0; t < j->tj_ntasks; t++) {
            const ttask *tk = &j->tj_tasks[t];
            if (tk->tt_state == T_NEVER)
                continue;
            uint64_t d = scaled(o, tk->tt_end - tk->tt_sched);
            if (d > SIM_MAX_DURATION)
                d = SIM_MAX_DURATION;
            bool cut = tk->tt_state != T_FINISHED || tk->tt_before;
            fprintf(out, "%s%" PRIu64 "%s", first ? "" : ";", d > 0 ? d : 1,
                    cut ? "+" : "");
            first = false;
            st->ts_tasks++;
            st->ts_tasks_cut += cut;
        }
        fputs(",,\n", out);
    }
    free(order);
    if (ferror(out)) {
        snprintf(c->err, c->errlen, "writing the job file failed");
        return SK_ESYS;
    }
    return 0;
}

int trace_convert(const trace_opts *o, FILE *out, trace_stats *st, char *err,
                  size_t errlen)
{
    memset(st, 0, sizeof *st);
    if (!(o->tc_speedup >= 1) || o->tc_long_priority > 12 ||
        o->tc_long_class > 4) {
        snprintf(err, errlen,
                 "speed-up must be >= 1, long priority in 0..12, long class "
                 "in 0..4");
        return SK_EINVAL;
    }
    conv c = {.o = o, .st = st, .err = err, .errlen = errlen};
    int rc = read_table(&c, "job_events", false);
    if (rc == 0)
        rc = read_table(&c, "task_events", true);
    if (rc == 0)
        rc = write_jobs(&c, out);
    if (rc == SK_ENOMEM)
        snprintf(err, errlen, "out of memory");
    for (uint32_t j = 0; j < c.njobs; j++)
        free(c.jobs[j].tj_tasks);
    for (uint32_t u = 0; u < c.nusers; u++)
        free(c.users[u]);
    free(c.jobs);
    free(c.index);
    free(c.users);
    free(c.user_hash);
    free(c.uindex);
    return rc;
}
