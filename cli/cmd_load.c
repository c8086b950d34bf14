/*
 * cmd_load.c - `skylark load`: a mixed workload of short jobs from several
 * users at once, submitted through the client API (one frontend per
 * user, all on one loop), with progress on a terminal and a summary:
 * jobs, tasks, job response time p50/p95/p99, scheduling overhead p50/p99,
 * and each user's share of slot time against its fair-share weight while
 * every user had work. It is the workload of scripts/demo.
 */
#include "cli_common.h"
#include "config.h"
#include "sk_apiutil.h"
#include "sk_cli.h"
#include "sk_tauth.h"
#include "sk_token.h"
#include "sk_rng.h"
#include "skylark.h"

#include <ev.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_USERS  16
#define MAX_SCHEDS 16

static void load_usage(FILE *out)
{
    fprintf(
        out,
        "usage: skylark load [--users U1,U2,...] [--jobs N] [--tasks MIN-MAX]\n"
        "                    [--duration MIN-MAX] [--inflight K] [--seed S]\n"
        "                    [--timeout S] [--placement sample|flow]\n"
        "                    [--scheduler ADDR]... [--dir DIR] [--key-file F]\n"
        "                    [--token-file F]...\n"
        "\n"
        "Runs a mixed workload of short jobs on a Skylark cluster: N jobs\n"
        "in all, shared evenly among the users, each of a random number of\n"
        "tasks in MIN-MAX, each task a `sleep` of a random duration in\n"
        "MIN-MAX milliseconds. Every user submits through its own frontend\n"
        "(to the schedulers in turn) and keeps K jobs in flight, so that\n"
        "all compete for the slots. Prints progress on a terminal, then a\n"
        "summary: jobs and tasks, job response time p50/p95/p99, scheduling\n"
        "overhead (task launch - job submit) p50/p99, and each user's share\n"
        "of slot time while every user had work, against the share its\n"
        "fair-share weight entitles it to (weights as the node monitors\n"
        "report them; set them with `skylark cluster up --weight`).\n"
        "\n"
        "  -u, --users LIST      users (default alice,bob,carol)\n"
        "  -j, --jobs N          jobs in all (default 240)\n"
        "  -T, --tasks MIN-MAX   tasks per job (default 10-50; at most\n"
        "                        100000, and the scheduler's [sched]\n"
        "                        max_tasks, 10000 by default, applies)\n"
        "  -D, --duration MIN-MAX  task duration, ms (default 10-200)\n"
        "  -k, --inflight K      jobs in flight per user (default 4)\n"
        "      --seed S          random seed (default 1)\n"
        "      --placement P     sample (default: the schedulers' batch\n"
        "                        sampling, the flow node as fallback) or\n"
        "                        flow (every job straight to the flow\n"
        "                        node, skylark-flowd, to compare)\n"
        "  -t, --timeout S       cancel the jobs in flight after S seconds\n"
        "  -s, --scheduler ADDR  a scheduler (repeatable); default: the\n"
        "                        local cluster's\n"
        "  -d, --dir DIR         the local cluster's directory\n"
        "  -K, --key-file F      the cluster key (default: $SKYLARK_KEY_FILE,\n"
        "                        else the local cluster's key)\n"
        "      --token-file F    a user's token (repeatable, instead of\n"
        "                        --users): one user per token, each with\n"
        "                        its own frontend; default: the key\n"
        "  -h, --help            this text\n"
        "\n"
        "Ctrl-C or SIGTERM (or --timeout) cancels the jobs in flight and\n"
        "prints what was done once they have ended; if they have not\n"
        "within 2 s, whatever the schedulers do, it leaves without the\n"
        "summary (a second signal: at once).\n"
        "Exit status: 0 every task succeeded, 1 not (or timed out), 2 bad\n"
        "usage or input (a bad address, or one that is not a scheduler's),\n"
        "130 after SIGINT, 143 after SIGTERM.\n");
}

/* A task's time on its slot, on the nodes' clock. */
typedef struct span {
    uint64_t sp_launch_us, sp_end_us;
} span;

typedef struct user {
    char u_name[64];
    const char *u_token; /* its token file (--token-file), or NULL */
    sk_frontend *u_fe;
    unsigned u_quota; /* jobs to submit */
    unsigned u_submitted;
    unsigned u_inflight;
    unsigned u_jobs_done;
    unsigned u_nresp;       /* jobs that ran: their response times */
    unsigned u_jobs_notrun; /* rejected, or no scheduler reachable */
    uint64_t u_tasks, u_ok, u_bad, u_cancelled; /* of the jobs that ran */
    uint64_t u_tasks_notrun;
    uint64_t u_last_end_us; /* when its last job ended */
    double *u_resp;         /* job response times, s */
    double *u_over;         /* per task overhead, s */
    size_t u_nover, u_capover;
    span *u_spans;
    size_t u_nspans, u_capspans;
    double u_weight; /* from the node monitors, 0 if unknown */
    double u_nm_slot_s;
} user;

static struct {
    user l_users[MAX_USERS];
    unsigned l_nusers;
    unsigned l_jobs, l_inflight;
    unsigned l_tmin, l_tmax, l_dmin, l_dmax;
    sk_rng l_rng;
    unsigned l_done, l_total_submitted;
    uint64_t l_tasks_done, l_tasks_submitted;
    uint64_t l_start_us;
    int l_stopping, l_tty, l_failed_shown;
    unsigned l_rejected, l_unreached; /* jobs not run, by reason */
    char l_wrong[512];                /* an address is another kind of daemon */
    int l_code;                       /* 128 + the first signal */
    int l_leave;                      /* nonzero: leave now with this status */
    unsigned l_failovers;             /* jobs moved to another scheduler */
    sk_job_placement l_placement;     /* every job's */
    ev_timer l_draw, l_grace, l_deadline;
    ev_signal l_int, l_term;
    struct ev_loop *l_loop;
} L;

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 1024;
    while (ncap < need)
        ncap *= 2;
    void *n = realloc(*arr, ncap * elem);
    if (n == NULL)
        return -1;
    *arr = n;
    *cap = ncap;
    return 0;
}

static void submit_next(user *u);

static void on_started(void *arg, const sk_task_start *s)
{
    user *u = arg;
    if (s->ts_attempt != 0 || grow((void **)&u->u_over, &u->u_capover,
                                   u->u_nover + 1, sizeof *u->u_over) != 0)
        return;
    double o = ((double)s->ts_launch_us - (double)s->ts_submit_us) / 1e6;
    u->u_over[u->u_nover++] = o > 0 ? o : 0;
}

static void on_task_done(void *arg, const sk_task_result *r)
{
    user *u = arg;
    L.l_tasks_done++;
    /* A FAILED outcome the frontend decided is a job rejected or with no
     * scheduler (skylark.h): not run, said once by on_job_done. */
    if (r->tr_outcome == SK_OUTCOME_FAILED && r->tr_reason[0] != '\0') {
        u->u_tasks_notrun++;
        return;
    }
    u->u_tasks++;
    if (r->tr_outcome == SK_OUTCOME_OK) {
        u->u_ok++;
    } else if (r->tr_outcome == SK_OUTCOME_CANCELLED) {
        u->u_cancelled++;
    } else {
        u->u_bad++;
        /* A job-level reason ("scheduler lost") is said by on_job_done. */
        if (r->tr_reason[0] == '\0' && L.l_failed_shown++ < 5) {
            /* The reason: the output's last line. */
            const char *o = r->tr_output;
            int n = (int)r->tr_output_len;
            while (n > 0 && o[n - 1] == '\n')
                n--;
            int from = n;
            while (from > 0 && o[from - 1] != '\n' && n - from < 160)
                from--;
            char how[64];
            fprintf(stderr, "%s%s: job %llu task %u %s on %s: %.*s\n",
                    L.l_tty ? "\r\033[K" : "", u->u_name,
                    (unsigned long long)r->tr_job, r->tr_task,
                    cli_outcome(r, how, sizeof how),
                    r->tr_node[0] ? r->tr_node : "-", n - from, o + from);
        }
    }
    if (r->tr_launch_us != 0 && r->tr_end_us > r->tr_launch_us &&
        grow((void **)&u->u_spans, &u->u_capspans, u->u_nspans + 1,
             sizeof *u->u_spans) == 0)
        u->u_spans[u->u_nspans++] = (span){r->tr_launch_us, r->tr_end_us};
}

static void on_job_done(void *arg, const sk_job_result *r)
{
    user *u = arg;
    u->u_jobs_done++;
    L.l_failovers += r->jr_failovers;
    int notrun = r->jr_error == SK_EREJECTED || r->jr_error == SK_ETIMEDOUT;
    if (notrun) {
        u->u_jobs_notrun++;
        if (r->jr_error == SK_EREJECTED)
            L.l_rejected++;
        else
            L.l_unreached++;
    } else {
        u->u_resp[u->u_nresp++] =
            (double)(r->jr_end_us - r->jr_submit_us) / 1e6;
    }
    u->u_inflight--;
    L.l_done++;
    if (r->jr_end_us > u->u_last_end_us)
        u->u_last_end_us = r->jr_end_us;
    if (r->jr_error == SK_EROLE) {
        /* Said once at the end; no point in submitting more. */
        if (L.l_wrong[0] == '\0')
            snprintf(L.l_wrong, sizeof L.l_wrong, "%s", r->jr_reason);
        L.l_stopping = 1;
    } else if (r->jr_error != 0 &&
               /* The reason of jobs not run is said once: the others'
                * is the same. */
               (!notrun || L.l_rejected + L.l_unreached == 1) &&
               L.l_failed_shown++ < 5)
        fprintf(stderr, "%s%s: job %llu: %s\n", L.l_tty ? "\r\033[K" : "",
                u->u_name, (unsigned long long)r->jr_job, r->jr_reason);
    submit_next(u);
}

/* Submit u's next job if it has one left and room in flight. */
static void submit_next(user *u)
{
    while (!L.l_stopping && u->u_submitted < u->u_quota &&
           u->u_inflight < L.l_inflight) {
        uint32_t n = L.l_tmin +
                     (uint32_t)sk_rng_below(&L.l_rng, L.l_tmax - L.l_tmin + 1);
        sk_task_desc *td = calloc(n, sizeof *td);
        char(*cmd)[32] = calloc(n, sizeof *cmd);
        if (td == NULL || cmd == NULL) {
            fprintf(stderr, "skylark load: out of memory\n");
            exit(1);
        }
        for (uint32_t t = 0; t < n; t++) {
            unsigned ms = L.l_dmin + (unsigned)sk_rng_below(
                                         &L.l_rng, L.l_dmax - L.l_dmin + 1);
            int len = snprintf(cmd[t], sizeof cmd[t], "sleep %u.%03u",
                               ms / 1000, ms % 1000);
            td[t] =
                (sk_task_desc){.td_spec = cmd[t], .td_spec_len = (uint32_t)len};
        }
        sk_job_desc jd;
        sk_job_desc_init(&jd);
        jd.jo_user = u->u_name;
        jd.jo_tasks = td;
        jd.jo_ntasks = n;
        jd.jo_placement = L.l_placement;
        sk_job_callbacks cb = {on_started, on_task_done, on_job_done, u};
        int rc = sk_frontend_submit(u->u_fe, &jd, &cb, NULL);
        free(td);
        free(cmd);
        if (rc != 0) {
            fprintf(stderr, "skylark load: %s: %s\n", u->u_name,
                    sk_frontend_error(u->u_fe));
            exit(1);
        }
        u->u_submitted++;
        u->u_inflight++;
        L.l_total_submitted++;
        L.l_tasks_submitted += n;
    }
}

static void draw(int final)
{
    if (!L.l_tty)
        return;
    if (final) {
        fprintf(stderr, "\r\033[K");
        return;
    }
    fprintf(stderr,
            "\rjobs %u/%u done, %u in flight; tasks %llu done; %.1f s\033[K",
            L.l_done, L.l_jobs, L.l_total_submitted - L.l_done,
            (unsigned long long)L.l_tasks_done,
            (double)(sk_wall_us() - L.l_start_us) / 1e6);
}

static void on_draw(struct ev_loop *loop, ev_timer *w, int revents)
{
    draw(0);
}

static void on_grace(struct ev_loop *loop, ev_timer *w, int revents)
{
    fprintf(stderr,
            "%sskylark load: the jobs did not end within %.0f s of their "
            "cancel: leaving\n",
            L.l_tty ? "\r\033[K" : "", CLI_CANCEL_GRACE);
    L.l_leave = L.l_code;
}

/* Submit no more, cancel every job in flight, and leave with code if
 * they have not ended within CLI_CANCEL_GRACE. */
static void cancel_all(struct ev_loop *loop, const char *why, int code)
{
    L.l_stopping = 1;
    L.l_code = code;
    ev_timer_start(loop, &L.l_grace);
    fprintf(stderr, "%sskylark load: %s: cancelling the jobs in flight\n",
            L.l_tty ? "\r\033[K" : "", why);
    /* Ids run from 1 in each frontend. */
    for (unsigned i = 0; i < L.l_nusers; i++)
        for (sk_job_id id = 1; id <= L.l_users[i].u_submitted; id++)
            sk_frontend_cancel(L.l_users[i].u_fe, id, why);
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    if (L.l_code != 0) {
        fprintf(stderr, "skylark load: interrupted again: leaving\n");
        L.l_leave = 128 + w->signum;
        return;
    }
    cancel_all(loop, w->signum == SIGINT ? "interrupted" : "terminated",
               128 + w->signum);
}

static void on_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
    if (L.l_code == 0)
        cancel_all(loop, "timed out", 1);
}

static int all_done(void *arg)
{
    if (L.l_leave != 0)
        return 1;
    for (unsigned i = 0; i < L.l_nusers; i++)
        if (L.l_users[i].u_inflight > 0 ||
            (!L.l_stopping && L.l_users[i].u_submitted < L.l_users[i].u_quota))
            return 0;
    return 1;
}

static int parse_range(const char *s, unsigned long lo, unsigned long hi,
                       unsigned *a, unsigned *b)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    char *dash = strchr(buf, '-');
    unsigned long x, y;
    if (dash == NULL) {
        if (cli_parse_ulong(buf, lo, hi, &x) != 0)
            return -1;
        y = x;
    } else {
        *dash = '\0';
        if (cli_parse_ulong(buf, lo, hi, &x) != 0 ||
            cli_parse_ulong(dash + 1, lo, hi, &y) != 0 || y < x)
            return -1;
    }
    *a = (unsigned)x;
    *b = (unsigned)y;
    return 0;
}

/* Weights and slot time per user from the node monitors' tables. */
static void read_nodemons(const skc_cluster *cl)
{
    for (unsigned i = 0; cl != NULL && i < cl->cc_n; i++) {
        if (cl->cc_daemons[i].cd_kind != SKC_NODEMON)
            continue;
        sk_status *s;
        if (sk_status_fetch_keyed(cl->cc_daemons[i].cd_endpoint, skc_key(cl), 2,
                                  1, &s) != 0)
            continue;
        int cu = -1, cw = -1, cs = -1;
        for (unsigned c = 0; c < sk_status_ncolumns(s); c++) {
            const char *name = sk_status_column(s, c);
            cu = strcmp(name, "user") == 0 ? (int)c : cu;
            cw = strcmp(name, "weight") == 0 ? (int)c : cw;
            cs = strcmp(name, "slot_s") == 0 ? (int)c : cs;
        }
        for (unsigned r = 0; cu >= 0 && r < sk_status_nrows(s); r++)
            for (unsigned k = 0; k < L.l_nusers; k++) {
                user *u = &L.l_users[k];
                if (strcmp(sk_status_cell(s, r, (unsigned)cu), u->u_name) != 0)
                    continue;
                if (cw >= 0)
                    u->u_weight = atof(sk_status_cell(s, r, (unsigned)cw));
                if (cs >= 0)
                    u->u_nm_slot_s += atof(sk_status_cell(s, r, (unsigned)cs));
            }
        sk_status_free(s);
    }
}

/* Seconds of u's slot time within [from, to). */
static double slot_time(const user *u, uint64_t from, uint64_t to)
{
    double sum = 0;
    for (size_t i = 0; i < u->u_nspans; i++) {
        uint64_t a = u->u_spans[i].sp_launch_us, b = u->u_spans[i].sp_end_us;
        a = a < from ? from : a;
        b = b > to ? to : b;
        if (b > a)
            sum += (double)(b - a) / 1e6;
    }
    return sum;
}

static void summary(const skc_cluster *cl, unsigned nscheds)
{
    char b[6][32];
    printf("\n%u jobs of %u-%u tasks of %u-%u ms from %u users, %u jobs in "
           "flight each, %u scheduler%s\n\n",
           L.l_done, L.l_tmin, L.l_tmax, L.l_dmin, L.l_dmax, L.l_nusers,
           L.l_inflight, nscheds, nscheds > 1 ? "s" : "");
    printf("%-10s %5s %7s %7s %6s %9s | %-27s | %s\n", "user", "jobs", "tasks",
           "ok", "failed", "cancelled", "job response p50/p95/p99",
           "overhead p50/p99");
    size_t allj = 0, allo = 0;
    uint64_t notrun_jobs = 0, notrun_tasks = 0;
    for (unsigned i = 0; i < L.l_nusers; i++) {
        allj += L.l_users[i].u_nresp;
        notrun_jobs += L.l_users[i].u_jobs_notrun;
        notrun_tasks += L.l_users[i].u_tasks_notrun;
        allo += L.l_users[i].u_nover;
    }
    double *rj = malloc((allj + 1) * sizeof *rj);
    double *ro = malloc((allo + 1) * sizeof *ro);
    size_t nj = 0, no = 0;
    uint64_t tasks = 0, ok = 0, bad = 0, cancelled = 0;
    for (unsigned i = 0; i <= L.l_nusers; i++) {
        const char *name;
        double *vj, *vo;
        size_t cj, co;
        uint64_t t, o, f, k;
        if (i < L.l_nusers) {
            user *u = &L.l_users[i];
            name = u->u_name;
            vj = u->u_resp;
            cj = u->u_nresp;
            vo = u->u_over;
            co = u->u_nover;
            t = u->u_tasks;
            o = u->u_ok;
            f = u->u_bad;
            k = u->u_cancelled;
            /* vj and vo are NULL for a user with nothing done (after an
             * early Ctrl-C): memcpy may not take NULL even for 0 bytes. */
            if (rj != NULL && ro != NULL && cj > 0)
                memcpy(rj + nj, vj, cj * sizeof *rj);
            if (rj != NULL && ro != NULL && co > 0)
                memcpy(ro + no, vo, co * sizeof *ro);
            nj += cj;
            no += co;
            tasks += t;
            ok += o;
            bad += f;
            cancelled += k;
        } else {
            if (rj == NULL || ro == NULL)
                break;
            name = "all";
            vj = rj;
            cj = nj;
            vo = ro;
            co = no;
            t = tasks;
            o = ok;
            f = bad;
            k = cancelled;
        }
        char resp[64], over[64];
        cli_dist dj, dov;
        cli_dist_of(vj, cj, &dj);
        cli_dist_of(vo, co, &dov);
        snprintf(resp, sizeof resp, "%s / %s / %s",
                 cli_duration(dj.cd_p50, b[0], 32),
                 cli_duration(dj.cd_p95, b[1], 32),
                 cli_duration(dj.cd_p99, b[2], 32));
        snprintf(over, sizeof over, "%s / %s",
                 cli_duration(dov.cd_p50, b[3], 32),
                 cli_duration(dov.cd_p99, b[4], 32));
        printf("%-10s %5zu %7llu %7llu %6llu %9llu | %-27s | %s\n", name, cj,
               (unsigned long long)t, (unsigned long long)o,
               (unsigned long long)f, (unsigned long long)k, resp, over);
    }
    free(rj);
    free(ro);
    printf("(job response: submit to last outcome; overhead: task launch - "
           "job submit,\n including the wait for a free slot)\n");
    if (L.l_failovers > 0)
        printf("failovers: %u (jobs moved to another scheduler with their "
               "unfinished tasks)\n",
               L.l_failovers);
    if (notrun_jobs > 0)
        printf("not run: %llu job%s of %llu tasks in all (%u rejected by the "
               "scheduler, %u with no scheduler reachable)\n",
               (unsigned long long)notrun_jobs, notrun_jobs == 1 ? "" : "s",
               (unsigned long long)notrun_tasks, L.l_rejected, L.l_unreached);

    /* Fair sharing: slot time while every user had work, that is until
     * the first user's last job ended. */
    read_nodemons(cl);
    uint64_t end = UINT64_MAX;
    double wsum = 0, total = 0, whole = 0;
    for (unsigned i = 0; i < L.l_nusers; i++) {
        if (L.l_users[i].u_last_end_us < end)
            end = L.l_users[i].u_last_end_us;
        wsum += L.l_users[i].u_weight;
    }
    double in_window[MAX_USERS];
    for (unsigned i = 0; i < L.l_nusers; i++) {
        in_window[i] = slot_time(&L.l_users[i], L.l_start_us, end);
        total += in_window[i];
        whole += slot_time(&L.l_users[i], 0, UINT64_MAX);
    }
    if (end == UINT64_MAX || end <= L.l_start_us || total <= 0)
        return;
    printf("\nslot time while all %u users had work (the first %.1f s):\n",
           L.l_nusers, (double)(end - L.l_start_us) / 1e6);
    printf("%-10s %7s %13s %11s %11s\n", "user", "weight", "weight share",
           "slot time", "share");
    for (unsigned i = 0; i < L.l_nusers; i++) {
        user *u = &L.l_users[i];
        char w[16] = "?", ws[16] = "?";
        if (wsum > 0) {
            snprintf(w, sizeof w, "%g", u->u_weight);
            snprintf(ws, sizeof ws, "%.1f%%", 100 * u->u_weight / wsum);
        }
        printf("%-10s %7s %13s %9.1f s %10.1f%%\n", u->u_name, w, ws,
               in_window[i], 100 * in_window[i] / total);
    }
    double nm = 0;
    for (unsigned i = 0; i < L.l_nusers; i++)
        nm += L.l_users[i].u_nm_slot_s;
    if (nm > 0)
        printf("\nslot time over the whole run: %.1f s by the tasks' "
               "reports, %.1f s by the node monitors' counters\n",
               whole, nm);
}

int cmd_load(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"users", required_argument, NULL, 'u'},
        {"jobs", required_argument, NULL, 'j'},
        {"tasks", required_argument, NULL, 'T'},
        {"duration", required_argument, NULL, 'D'},
        {"inflight", required_argument, NULL, 'k'},
        {"seed", required_argument, NULL, 'S'},
        {"placement", required_argument, NULL, 'P'},
        {"timeout", required_argument, NULL, 't'},
        {"scheduler", required_argument, NULL, 's'},
        {"dir", required_argument, NULL, 'd'},
        {"key-file", required_argument, NULL, 'K'},
        {"token-file", required_argument, NULL, 'O'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(&L, 0, sizeof L);
    const char *tokens[MAX_USERS];
    unsigned ntokens = 0, users_given = 0;
    const char *users = "alice,bob,carol", *dir = NULL, *key = NULL;
    const char *scheds[MAX_SCHEDS];
    unsigned nscheds = 0;
    unsigned long v, seed = 1;
    L.l_jobs = 240;
    L.l_inflight = 4;
    L.l_tmin = 10;
    L.l_tmax = 50;
    L.l_dmin = 10;
    L.l_dmax = 200;
    optind = 0;
    argv[0] = (char *)"skylark load"; /* for getopt's messages */
    int c;
#define USAGE_ERR(...)                                                         \
    do {                                                                       \
        fprintf(stderr, "skylark load: " __VA_ARGS__);                         \
        fprintf(stderr, "\n(see skylark load --help)\n");                      \
        return 2;                                                              \
    } while (0)
    double timeout = 0;
    while ((c = getopt_long(argc, argv, "u:j:T:D:k:s:d:t:K:h", longopts,
                            NULL)) != -1) {
        switch (c) {
        case 'u':
            users = optarg;
            users_given = 1;
            break;
        case 'j':
            if (cli_parse_ulong(optarg, 1, 1000000, &v) != 0)
                USAGE_ERR("--jobs takes 1..1000000, got '%s'", optarg);
            L.l_jobs = (unsigned)v;
            break;
        case 'T':
            if (parse_range(optarg, 1, 100000, &L.l_tmin, &L.l_tmax) != 0)
                USAGE_ERR("--tasks takes MIN-MAX, got '%s'", optarg);
            break;
        case 'D':
            if (parse_range(optarg, 0, 3600000, &L.l_dmin, &L.l_dmax) != 0)
                USAGE_ERR("--duration takes MIN-MAX ms, got '%s'", optarg);
            break;
        case 'k':
            if (cli_parse_ulong(optarg, 1, 10000, &v) != 0)
                USAGE_ERR("--inflight takes 1..10000, got '%s'", optarg);
            L.l_inflight = (unsigned)v;
            break;
        case 't':
            if (cli_parse_double(optarg, 0.001, 1e7, &timeout) != 0)
                USAGE_ERR("--timeout takes seconds, got '%s'", optarg);
            break;
        case 'P':
            if (cli_parse_placement(optarg, &L.l_placement) != 0)
                USAGE_ERR("--placement takes sample or flow, got '%s'", optarg);
            break;
        case 'S':
            if (cli_parse_ulong(optarg, 0, ~0ul, &seed) != 0)
                USAGE_ERR("--seed takes a number, got '%s'", optarg);
            break;
        case 's':
            if (nscheds == MAX_SCHEDS)
                USAGE_ERR("at most %d schedulers", MAX_SCHEDS);
            if (cli_check_endpoint("skylark load", "--scheduler", optarg) != 0)
                return 2;
            scheds[nscheds++] = optarg;
            break;
        case 'K':
            key = optarg;
            break;
        case 'O':
            if (ntokens == MAX_USERS)
                USAGE_ERR("at most %d users", MAX_USERS);
            tokens[ntokens++] = optarg;
            break;
        case 'd':
            dir = optarg;
            break;
        case 'h':
            load_usage(stdout);
            return 0;
        default:
            fprintf(stderr, "(see skylark load --help)\n");
            return 2;
        }
    }
    if (optind < argc)
        USAGE_ERR("unexpected argument '%s'", argv[optind]);
    if (ntokens > 0 && users_given)
        USAGE_ERR("--users and --token-file exclude each other: a token "
                  "names its user");
    for (unsigned i = 0; i < ntokens; i++) {
        sk_token tk;
        char err[1200];
        if (sk_token_read(tokens[i], &tk, err, sizeof err) != 0)
            USAGE_ERR("%s", err);
        user *u = &L.l_users[L.l_nusers++];
        snprintf(u->u_name, sizeof u->u_name, "%s", tk.tk_user);
        u->u_token = tokens[i];
        sk_tauth_wipe(&tk, sizeof tk);
    }
    char ulist[1024];
    snprintf(ulist, sizeof ulist, "%s", ntokens > 0 ? "" : users);
    for (char *save = NULL, *tok = strtok_r(ulist, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        if (L.l_nusers == MAX_USERS)
            USAGE_ERR("at most %d users", MAX_USERS);
        if (tok[0] == '\0' || strlen(tok) >= sizeof L.l_users[0].u_name)
            USAGE_ERR("bad user name '%s'", tok);
        snprintf(L.l_users[L.l_nusers++].u_name, sizeof L.l_users[0].u_name,
                 "%s", tok);
    }
    if (L.l_nusers == 0)
        USAGE_ERR("no users");

    skc_cluster *cl;
    if (cli_schedulers("skylark load", dir, scheds, MAX_SCHEDS, &nscheds,
                       &cl) != 0)
        return 1;
    char keybuf[4200];
    const char *key_file = cli_key_file(key, dir, keybuf, sizeof keybuf);
    sk_rng_seed(&L.l_rng, seed);
    L.l_loop = ev_default_loop(0);
    L.l_tty = isatty(STDERR_FILENO);
    for (unsigned i = 0; i < L.l_nusers; i++) {
        user *u = &L.l_users[i];
        /* Each user starts at another scheduler; the rest are fallbacks. */
        const char *mine[MAX_SCHEDS];
        for (unsigned k = 0; k < nscheds; k++)
            mine[k] = scheds[(i + k) % nscheds];
        sk_frontend_opts fo;
        sk_frontend_opts_init(&fo);
        fo.fo_schedulers = mine;
        fo.fo_nschedulers = nscheds;
        fo.fo_queue_timeout = 10;
        fo.fo_key_file = u->u_token != NULL ? NULL : key_file;
        fo.fo_token_file = u->u_token;
        if (sk_frontend_create(L.l_loop, &fo, &u->u_fe) != 0) {
            fprintf(stderr, "skylark load: cannot create a frontend\n");
            return 1;
        }
        u->u_quota = L.l_jobs / L.l_nusers + (i < L.l_jobs % L.l_nusers);
        u->u_resp = calloc(u->u_quota + 1, sizeof *u->u_resp);
        if (u->u_resp == NULL)
            return 1;
    }
    ev_signal_init(&L.l_int, on_signal, SIGINT);
    ev_signal_init(&L.l_term, on_signal, SIGTERM);
    ev_signal_start(L.l_loop, &L.l_int);
    ev_signal_start(L.l_loop, &L.l_term);
    ev_timer_init(&L.l_draw, on_draw, 0.1, 0.1);
    ev_timer_init(&L.l_grace, on_grace, CLI_CANCEL_GRACE, 0);
    ev_timer_init(&L.l_deadline, on_deadline, timeout, 0);
    if (timeout > 0)
        ev_timer_start(L.l_loop, &L.l_deadline);
    if (L.l_tty)
        ev_timer_start(L.l_loop, &L.l_draw);
    L.l_start_us = sk_wall_us();
    for (unsigned i = 0; i < L.l_nusers; i++)
        submit_next(&L.l_users[i]);
    sk_run_until(L.l_loop, all_done, NULL, -1);
    ev_timer_stop(L.l_loop, &L.l_draw);
    ev_timer_stop(L.l_loop, &L.l_grace);
    ev_timer_stop(L.l_loop, &L.l_deadline);
    draw(1);
    if (L.l_leave != 0) {
        /* Without the jobs' end; the goodbyes make the schedulers (if
         * they hear them) cancel what is left. */
        for (unsigned i = 0; i < L.l_nusers; i++)
            sk_frontend_destroy(L.l_users[i].u_fe);
        free(cl);
        return L.l_leave;
    }
    if (L.l_wrong[0] != '\0') {
        fprintf(stderr, "skylark load: %s\n", L.l_wrong);
        free(cl);
        return 2;
    }
    summary(cl, nscheds);
    int ok = 1;
    for (unsigned i = 0; i < L.l_nusers; i++) {
        user *u = &L.l_users[i];
        ok &= u->u_bad == 0 && u->u_cancelled == 0 && u->u_jobs_notrun == 0 &&
              u->u_jobs_done == u->u_quota;
        sk_frontend_destroy(u->u_fe);
        free(u->u_resp);
        free(u->u_over);
        free(u->u_spans);
    }
    ev_signal_stop(L.l_loop, &L.l_int);
    ev_signal_stop(L.l_loop, &L.l_term);
    free(cl);
    if (L.l_code != 0)
        return L.l_code;
    return ok ? 0 : 1;
}
