/*
 * cmd_run.c - `skylark run`: submit one job of N copies of a command to a
 * scheduler (or to the local cluster's), show its progress on a terminal,
 * and summarise it: tasks ok and failed, the job's response time and the
 * scheduling overhead of its tasks.
 */
#include "cli_common.h"
#include "config.h"
#include "sk_cli.h"
#include "sk_proto.h"
#include "skylark.h"

#include <ev.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SCHEDS    16
#define MAX_LABELS    64
#define MAX_RACKS     16   /* SK_MAX_PREFERRED */
#define MAX_TAGS      8    /* SK_MAX_TAGS */
#define OPT_TAG       1000 /* --tag: long only (-T is --token-file) */
#define OPT_FRAMEWORK 1001 /* --framework: long only */
#define SHOW_FAILURES 10

static void run_usage(FILE *out)
{
    fprintf(
        out,
        "usage: skylark run [--scheduler ADDR]... [-n TASKS] [--user U]\n"
        "                   [--priority P] [--label L]... [--cpus C] "
        "[--mem MB]\n"
        "                   [--tag TAG]... [--constraint SPEC]\n"
        "                   [--max-attempts A] [--probe-ratio D] [--timeout "
        "S]\n"
        "                   [--long] [--placement sample|flow] [--rack "
        "NAME]...\n"
        "                   [--framework NAME] [--output] [--dir DIR]\n"
        "                   [--] COMMAND [ARG...]\n"
        "\n"
        "Runs a job of TASKS copies of COMMAND on a Skylark cluster (each\n"
        "task with SKYLARK_JOB_ID and SKYLARK_TASK_INDEX in its\n"
        "environment), shows its progress when stderr is a terminal, and\n"
        "prints a summary: tasks ok and failed, the job's response time\n"
        "(submit to last outcome), and the scheduling overhead of its\n"
        "tasks (launch on the node - submit), p50 and p99. A single\n"
        "COMMAND argument is a shell command line (for example\n"
        "'echo $SKYLARK_TASK_INDEX'); several are quoted as words.\n"
        "\n"
        "  -s, --scheduler ADDR  a scheduler endpoint (repeatable: the next\n"
        "                        is used when one is down); default: the\n"
        "                        local cluster's (skylark cluster up)\n"
        "  -n, --tasks N         tasks in the job (default 1, at most\n"
        "                        100000; the scheduler's own limit applies\n"
        "                        too: [sched] max_tasks, 10000 by default)\n"
        "  -u, --user U          user for fair sharing (default: you)\n"
        "  -p, --priority P      0 (most urgent)..7 (default 4)\n"
        "  -l, --label L         run only on nodes with label L (repeatable)\n"
        "      --tag TAG         an allocation tag on every task "
        "(repeatable)\n"
        "      --constraint SPEC placement constraints between tagged tasks,\n"
        "                        e.g. 'zk=3,NOTIN,NODE,zk' (docs/"
        "CONSTRAINTS.md;\n"
        "                        honoured on the flow path)\n"
        "  -c, --cpus C          CPUs each task needs (such as 0.5)\n"
        "  -m, --mem MB          memory each task needs, MiB\n"
        "      --max-attempts A  tries of a task whose node is lost (1..100)\n"
        "      --probe-ratio D   reservations per task (1..64)\n"
        "      --long            the tasks are services: the flow node\n"
        "                        (skylark-flowd) places them, and each runs\n"
        "                        until it exits or the job is cancelled\n"
        "      --placement P     where short tasks go: sample (default: the\n"
        "                        scheduler's batch sampling, the flow node\n"
        "                        as fallback) or flow (the flow node)\n"
        "      --rack NAME       a rack the tasks prefer (repeatable, at\n"
        "                        most 16; the flow node's placement only)\n"
        "      --framework NAME  run the tasks on the executors of framework\n"
        "                        NAME (such as skylark executor NAME), not\n"
        "                        on the node monitors' built-in command\n"
        "                        executor; COMMAND is each task's spec\n"
        "  -t, --timeout S       cancel the job after S seconds\n"
        "  -o, --output          print every task's output (its tail)\n"
        "  -d, --dir DIR         the local cluster's directory\n"
        "  -K, --key-file F      the cluster key (default: $SKYLARK_KEY_FILE,\n"
        "                        else the local cluster's key)\n"
        "  -T, --token-file F    a user token (skylark user token) instead:\n"
        "                        the job runs as its user (default:\n"
        "                        $SKYLARK_TOKEN_FILE, else user.token in the\n"
        "                        local cluster's directory, else the key)\n"
        "  -h, --help            this text\n"
        "\n"
        "A long job (or placement flow) needs a cluster with a flow node;\n"
        "without one the scheduler rejects it.\n"
        "Ctrl-C or SIGTERM cancels the job and leaves when it has ended,\n"
        "or after 2 s whatever the scheduler does (a second signal: at\n"
        "once); so does --timeout.\n"
        "Exit status: 0 every task succeeded, 1 some did not (or the job\n"
        "could not run, or timed out), 2 bad usage or input (a bad\n"
        "address, or one that is not a scheduler's), 130 after SIGINT,\n"
        "143 after SIGTERM.\n");
}

typedef struct run_state {
    sk_frontend *rs_fe;
    sk_job_id rs_job;
    uint32_t rs_ntasks;
    uint32_t rs_done, rs_ok, rs_bad;
    double *rs_overhead; /* first launch - submit, per task started */
    uint8_t *rs_started;
    uint32_t rs_nstarted;
    int rs_output;
    int rs_tty;
    unsigned rs_failures_shown;
    uint32_t rs_job_level; /* failures said once, with the job's reason */
    int rs_cancelled;
    int rs_code;  /* exit status once cancelled: 1 timed out, 128 + signal */
    int rs_leave; /* nonzero: leave now with this status */
    const char *rs_why;
    double rs_t0;
    ev_signal rs_int, rs_term;
    ev_timer rs_draw, rs_deadline, rs_grace;
} run_state;

static run_state rs;

static void draw(int final)
{
    if (!rs.rs_tty)
        return;
    const int width = 30;
    int fill =
        rs.rs_ntasks ? (int)((uint64_t)rs.rs_done * width / rs.rs_ntasks) : 0;
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[width] = '\0';
    fprintf(stderr, "\r[%s] %u/%u tasks, %u running, %u failed, %.1f s\033[K",
            bar, rs.rs_done, rs.rs_ntasks, rs.rs_nstarted - rs.rs_done,
            rs.rs_bad, ev_now(sk_frontend_loop(rs.rs_fe)) - rs.rs_t0);
    if (final)
        fprintf(stderr, "\r\033[K");
}

static void on_started(void *arg, const sk_task_start *s)
{
    if (s->ts_task >= rs.rs_ntasks || rs.rs_started[s->ts_task])
        return;
    rs.rs_started[s->ts_task] = 1;
    double o = ((double)s->ts_launch_us - (double)s->ts_submit_us) / 1e6;
    rs.rs_overhead[rs.rs_nstarted++] = o > 0 ? o : 0;
}

/* The output's last line (or its tail), for a failure message. */
static void print_tail(FILE *out, const sk_task_result *r)
{
    const char *o = r->tr_output;
    size_t n = r->tr_output_len;
    while (n > 0 && (o[n - 1] == '\n' || o[n - 1] == '\r'))
        n--;
    size_t start = n;
    while (start > 0 && o[start - 1] != '\n' && n - start < 200)
        start--;
    fprintf(out, "%.*s", (int)(n - start), o + start);
}

static void on_task_done(void *arg, const sk_task_result *r)
{
    rs.rs_done++;
    if (r->tr_outcome == SK_OUTCOME_OK)
        rs.rs_ok++;
    else
        rs.rs_bad++;
    char how[64];
    if (rs.rs_output) {
        printf("--- task %u: %s on %s\n", r->tr_task,
               cli_outcome(r, how, sizeof how),
               r->tr_node[0] ? r->tr_node : "-");
        fwrite(r->tr_output, 1, r->tr_output_len, stdout);
        if (r->tr_output_len > 0 &&
            ((const char *)r->tr_output)[r->tr_output_len - 1] != '\n')
            printf("\n");
    }
    /* An outcome the frontend decided for the whole job (rejected, no
     * scheduler, scheduler lost) is said once, at the end. */
    if (r->tr_reason[0] != '\0' && r->tr_outcome != SK_OUTCOME_OK &&
        r->tr_outcome != SK_OUTCOME_CANCELLED) {
        rs.rs_job_level++;
        return;
    }
    if (r->tr_outcome != SK_OUTCOME_OK &&
        r->tr_outcome != SK_OUTCOME_CANCELLED &&
        rs.rs_failures_shown < SHOW_FAILURES) {
        rs.rs_failures_shown++;
        if (rs.rs_tty)
            fprintf(stderr, "\r\033[K");
        fprintf(stderr, "task %u %s", r->tr_task,
                cli_outcome(r, how, sizeof how));
        if (r->tr_node[0] != '\0')
            fprintf(stderr, " on %s", r->tr_node);
        if (r->tr_output_len > 0) {
            fprintf(stderr, ": ");
            print_tail(stderr, r);
        }
        fprintf(stderr, "\n");
    }
}

/* Cancel the job, and leave with code if it has not ended within
 * CLI_CANCEL_GRACE whatever the scheduler does. */
static void cancel_job(const char *why, int code)
{
    if (rs.rs_cancelled++ > 0)
        return;
    rs.rs_code = code;
    rs.rs_why = why;
    if (rs.rs_tty)
        fprintf(stderr, "\r\033[K");
    fprintf(stderr, "skylark run: %s: cancelling the job\n", why);
    ev_timer_set(&rs.rs_grace, CLI_CANCEL_GRACE, 0);
    ev_timer_start(sk_frontend_loop(rs.rs_fe), &rs.rs_grace);
    sk_frontend_cancel(rs.rs_fe, rs.rs_job, why);
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    if (rs.rs_cancelled > 0) {
        fprintf(stderr, "skylark run: interrupted again: leaving\n");
        rs.rs_leave = 128 + w->signum;
        return;
    }
    cancel_job(w->signum == SIGINT ? "interrupted" : "terminated",
               128 + w->signum);
}

static void on_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
    cancel_job("timed out", 1);
}

static void on_grace(struct ev_loop *loop, ev_timer *w, int revents)
{
    fprintf(stderr,
            "%sskylark run: %s: the job did not end within %.0f s of its "
            "cancel: leaving\n",
            rs.rs_tty ? "\r\033[K" : "", rs.rs_why, CLI_CANCEL_GRACE);
    rs.rs_leave = rs.rs_code;
}

static void on_draw(struct ev_loop *loop, ev_timer *w, int revents)
{
    draw(0);
}

/* Quote a word for /bin/sh unless it is plain. */
static void append_word(char **cmd, size_t *len, size_t *cap, const char *w)
{
    int plain = w[0] != '\0';
    for (const char *p = w; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789-_./=:,+@%",
                    *p))
            plain = 0;
    size_t need = *len + 4 * strlen(w) + 4;
    if (need > *cap) {
        *cap = need * 2;
        *cmd = realloc(*cmd, *cap);
        if (*cmd == NULL) {
            fprintf(stderr, "skylark run: out of memory\n");
            exit(1);
        }
    }
    char *o = *cmd + *len;
    if (*len > 0)
        *o++ = ' ';
    if (plain) {
        o += sprintf(o, "%s", w);
    } else {
        *o++ = '\'';
        for (const char *p = w; *p; p++) {
            if (*p == '\'') {
                memcpy(o, "'\\''", 4);
                o += 4;
            } else {
                *o++ = *p;
            }
        }
        *o++ = '\'';
        *o = '\0';
    }
    *len = (size_t)(o - *cmd);
}

int cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"scheduler", required_argument, NULL, 's'},
        {"tasks", required_argument, NULL, 'n'},
        {"user", required_argument, NULL, 'u'},
        {"priority", required_argument, NULL, 'p'},
        {"label", required_argument, NULL, 'l'},
        {"tag", required_argument, NULL, OPT_TAG},
        {"constraint", required_argument, NULL, 'C'},
        {"cpus", required_argument, NULL, 'c'},
        {"mem", required_argument, NULL, 'm'},
        {"max-attempts", required_argument, NULL, 'A'},
        {"probe-ratio", required_argument, NULL, 'D'},
        {"long", no_argument, NULL, 'L'},
        {"placement", required_argument, NULL, 'P'},
        {"rack", required_argument, NULL, 'R'},
        {"framework", required_argument, NULL, OPT_FRAMEWORK},
        {"timeout", required_argument, NULL, 't'},
        {"output", no_argument, NULL, 'o'},
        {"dir", required_argument, NULL, 'd'},
        {"key-file", required_argument, NULL, 'K'},
        {"token-file", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *scheds[MAX_SCHEDS], *labels[MAX_LABELS], *racks[MAX_RACKS];
    const char *tags[MAX_TAGS];
    unsigned nscheds = 0, nlabels = 0, nracks = 0, ntags = 0;
    int is_long = 0;
    sk_job_placement placement = SK_PLACEMENT_SAMPLE;
    const char *constraint = NULL, *framework = NULL;
    unsigned long ntasks = 1, prio = 4, mem = 0, attempts = 0;
    double cpus = 0, probe = 0, timeout = 0;
    const char *user = NULL, *dir = NULL, *key = NULL, *token = NULL;
    int c;
    memset(&rs, 0, sizeof rs);
    optind = 0;
    argv[0] = (char *)"skylark run"; /* for getopt's messages */
#define USAGE_ERR(...)                                                         \
    do {                                                                       \
        fprintf(stderr, "skylark run: " __VA_ARGS__);                          \
        fprintf(stderr, "\n(see skylark run --help)\n");                       \
        return 2;                                                              \
    } while (0)
    while ((c = getopt_long(argc, argv, "+s:n:u:p:l:c:m:t:od:K:T:h", longopts,
                            NULL)) != -1) {
        switch (c) {
        case 's':
            if (nscheds == MAX_SCHEDS)
                USAGE_ERR("at most %d schedulers", MAX_SCHEDS);
            if (cli_check_endpoint("skylark run", "--scheduler", optarg) != 0)
                return 2;
            scheds[nscheds++] = optarg;
            break;
        case 'n':
            if (cli_parse_ulong(optarg, 1, 100000, &ntasks) != 0)
                USAGE_ERR("--tasks takes 1..100000, got '%s'", optarg);
            break;
        case 'u':
            user = optarg;
            break;
        case 'p':
            if (cli_parse_ulong(optarg, 0, 7, &prio) != 0)
                USAGE_ERR("--priority takes 0..7, got '%s'", optarg);
            break;
        case 'l':
            if (nlabels == MAX_LABELS)
                USAGE_ERR("at most %d labels", MAX_LABELS);
            labels[nlabels++] = optarg;
            break;
        case OPT_TAG:
            if (ntags == MAX_TAGS)
                USAGE_ERR("at most %d tags", MAX_TAGS);
            tags[ntags++] = optarg;
            break;
        case OPT_FRAMEWORK:
            if (optarg[0] == '\0' || strlen(optarg) > SK_MAX_NAME_LEN)
                USAGE_ERR("--framework takes a name of 1..%u bytes, got '%s'",
                          (unsigned)SK_MAX_NAME_LEN, optarg);
            framework = optarg;
            break;
        case 'C':
            if (constraint != NULL)
                USAGE_ERR("one --constraint (join items with ':')");
            constraint = optarg;
            break;
        case 'c':
            if (cli_parse_double(optarg, 0, 4194304, &cpus) != 0)
                USAGE_ERR("--cpus takes a number of CPUs, got '%s'", optarg);
            break;
        case 'm':
            if (cli_parse_ulong(optarg, 0, 4294967295ul, &mem) != 0)
                USAGE_ERR("--mem takes MiB, got '%s'", optarg);
            break;
        case 'A':
            if (cli_parse_ulong(optarg, 1, 100, &attempts) != 0)
                USAGE_ERR("--max-attempts takes 1..100, got '%s'", optarg);
            break;
        case 'D':
            if (cli_parse_double(optarg, 1, 64, &probe) != 0)
                USAGE_ERR("--probe-ratio takes 1..64, got '%s'", optarg);
            break;
        case 'L':
            is_long = 1;
            break;
        case 'P':
            if (cli_parse_placement(optarg, &placement) != 0)
                USAGE_ERR("--placement takes sample or flow, got '%s'", optarg);
            break;
        case 'R':
            if (nracks == MAX_RACKS)
                USAGE_ERR("at most %d racks", MAX_RACKS);
            if (!sk_rack_valid(optarg))
                USAGE_ERR("--rack takes a name of 1..255 bytes of graphic "
                          "ASCII (no space), got '%s'",
                          optarg);
            racks[nracks++] = optarg;
            break;
        case 't':
            if (cli_parse_double(optarg, 0.001, 1e7, &timeout) != 0)
                USAGE_ERR("--timeout takes seconds, got '%s'", optarg);
            break;
        case 'o':
            rs.rs_output = 1;
            break;
        case 'K':
            key = optarg;
            break;
        case 'T':
            token = optarg;
            break;
        case 'd':
            dir = optarg;
            break;
        case 'h':
            run_usage(stdout);
            return 0;
        default:
            fprintf(stderr, "(see skylark run --help)\n");
            return 2;
        }
    }
    if (optind >= argc)
        USAGE_ERR("no command to run");
    char *cmd = NULL;
    size_t len = 0, cap = 0;
    if (argc - optind == 1) {
        cmd = strdup(argv[optind]);
        len = strlen(cmd);
    } else {
        for (int i = optind; i < argc; i++)
            append_word(&cmd, &len, &cap, argv[i]);
    }
    if (cmd == NULL || len > 65536)
        USAGE_ERR("the command is over 64 KiB");

    skc_cluster *cl;
    if (cli_schedulers("skylark run", dir, scheds, MAX_SCHEDS, &nscheds, &cl) !=
        0)
        return 1;
    struct ev_loop *loop = ev_default_loop(0);
    sk_frontend_opts fo;
    sk_frontend_opts_init(&fo);
    fo.fo_schedulers = scheds;
    fo.fo_nschedulers = nscheds;
    fo.fo_connect_timeout = 1;
    fo.fo_queue_timeout = 5;
    char keybuf[4200], tokbuf[4200];
    cli_credential(key, token, dir, keybuf, tokbuf, sizeof keybuf,
                   &fo.fo_key_file, &fo.fo_token_file);
    int rc = sk_frontend_create(loop, &fo, &rs.rs_fe);
    if (rc != 0) {
        fprintf(stderr, "skylark run: %s\n", sk_strerror(rc));
        return rc == SK_EINVAL ? 2 : 1;
    }
    sk_task_desc *td = calloc(ntasks, sizeof *td);
    rs.rs_overhead = calloc(ntasks, sizeof *rs.rs_overhead);
    rs.rs_started = calloc(ntasks, 1);
    if (td == NULL || rs.rs_overhead == NULL || rs.rs_started == NULL) {
        fprintf(stderr, "skylark run: out of memory\n");
        return 1;
    }
    for (unsigned long i = 0; i < ntasks; i++)
        td[i] = (sk_task_desc){.td_spec = cmd,
                               .td_spec_len = (uint32_t)len,
                               .td_racks = racks,
                               .td_nracks = nracks,
                               .td_tags = tags,
                               .td_ntags = ntags};
    sk_job_desc jd;
    sk_job_desc_init(&jd);
    jd.jo_user = user;
    jd.jo_priority = (unsigned)prio;
    jd.jo_labels = labels;
    jd.jo_nlabels = nlabels;
    jd.jo_constraints = constraint;
    jd.jo_framework = framework;
    jd.jo_cpu_milli = (uint32_t)(cpus * 1000 + 0.5);
    jd.jo_mem_mb = (uint32_t)mem;
    jd.jo_probe_ratio = probe;
    jd.jo_max_attempts = (unsigned)attempts;
    jd.jo_long = is_long;
    jd.jo_placement = placement;
    jd.jo_tasks = td;
    jd.jo_ntasks = (uint32_t)ntasks;
    rs.rs_ntasks = (uint32_t)ntasks;
    rs.rs_tty = isatty(STDERR_FILENO);
    sk_job_callbacks cb = {on_started, on_task_done, NULL, NULL};
    rc = sk_frontend_submit(rs.rs_fe, &jd, &cb, &rs.rs_job);
    if (rc != 0) {
        fprintf(stderr, "skylark run: %s\n", sk_frontend_error(rs.rs_fe));
        return rc == SK_ENOMEM ? 1 : 2;
    }
    free(td);
    rs.rs_t0 = ev_now(loop);
    ev_signal_init(&rs.rs_int, on_signal, SIGINT);
    ev_signal_init(&rs.rs_term, on_signal, SIGTERM);
    ev_signal_start(loop, &rs.rs_int);
    ev_signal_start(loop, &rs.rs_term);
    ev_timer_init(&rs.rs_draw, on_draw, 0.1, 0.1);
    if (rs.rs_tty)
        ev_timer_start(loop, &rs.rs_draw);
    ev_timer_init(&rs.rs_deadline, on_deadline, timeout, 0);
    if (timeout > 0)
        ev_timer_start(loop, &rs.rs_deadline);
    ev_timer_init(&rs.rs_grace, on_grace, CLI_CANCEL_GRACE, 0);

    /* In slices, so that a grace that ran out or a second signal ends
     * the wait whatever the scheduler does. */
    sk_job_result jr;
    do
        rc = sk_frontend_wait_job(rs.rs_fe, rs.rs_job, 0.1, &jr);
    while (rc == SK_ETIMEDOUT && rs.rs_leave == 0);
    ev_timer_stop(loop, &rs.rs_draw);
    ev_timer_stop(loop, &rs.rs_deadline);
    ev_timer_stop(loop, &rs.rs_grace);
    ev_signal_stop(loop, &rs.rs_int);
    ev_signal_stop(loop, &rs.rs_term);
    draw(1);
    if (rc == SK_ETIMEDOUT) {
        /* Leaving without the job's end: the goodbye makes the scheduler
         * (if it hears it) cancel what is left. */
        sk_frontend_destroy(rs.rs_fe);
        free(rs.rs_overhead);
        free(rs.rs_started);
        free(cmd);
        free(cl);
        return rs.rs_leave;
    }
    if (rc != 0) {
        fprintf(stderr, "skylark run: %s\n", sk_frontend_error(rs.rs_fe));
        return 1;
    }
    if (jr.jr_error == SK_EROLE) {
        /* An address of another kind of daemon: bad input, nothing ran. */
        fprintf(stderr, "skylark run: %s\n", jr.jr_reason);
        sk_frontend_destroy(rs.rs_fe);
        free(rs.rs_overhead);
        free(rs.rs_started);
        free(cmd);
        free(cl);
        return 2;
    }
    uint32_t unshown =
        rs.rs_bad - jr.jr_cancelled - rs.rs_job_level - rs.rs_failures_shown;
    if (unshown > 0)
        fprintf(stderr, "... and %u more tasks did not succeed\n", unshown);
    if (jr.jr_failovers > 0)
        fprintf(stderr,
                "skylark run: the scheduler was lost; the unfinished tasks "
                "moved to another (%u time%s)\n",
                jr.jr_failovers, jr.jr_failovers > 1 ? "s" : "");
    if (jr.jr_error != 0)
        fprintf(stderr, "skylark run: %s\n", jr.jr_reason);
    char b1[32], b2[32], b3[32];
    /* A job the scheduler rejected, or that found none, ran no task (unless
     * that happened on a failover): its tasks did not fail, and its reason
     * was said once above. */
    if ((jr.jr_error == SK_EREJECTED || jr.jr_error == SK_ETIMEDOUT) &&
        jr.jr_failovers == 0)
        printf("job %llu: %u tasks: none run (%s)\n",
               (unsigned long long)jr.jr_job, jr.jr_tasks,
               jr.jr_error == SK_EREJECTED ? "job rejected"
                                           : "no scheduler reachable");
    else
        printf("job %llu: %u tasks: %u ok, %u failed, %u killed, %u lost, "
               "%u cancelled\n",
               (unsigned long long)jr.jr_job, jr.jr_tasks, jr.jr_ok,
               jr.jr_failed, jr.jr_killed, jr.jr_lost, jr.jr_cancelled);
    printf("job response time: %s\n",
           cli_duration((double)(jr.jr_end_us - jr.jr_submit_us) / 1e6, b1,
                        sizeof b1));
    if (rs.rs_nstarted > 0) {
        cli_dist d;
        cli_dist_of(rs.rs_overhead, rs.rs_nstarted, &d);
        printf("scheduling overhead (launch - submit, %u tasks): p50 %s, p99 "
               "%s, max %s\n",
               rs.rs_nstarted, cli_duration(d.cd_p50, b1, sizeof b1),
               cli_duration(d.cd_p99, b2, sizeof b2),
               cli_duration(d.cd_max, b3, sizeof b3));
    }
    sk_frontend_destroy(rs.rs_fe);
    free(rs.rs_overhead);
    free(rs.rs_started);
    free(cmd);
    free(cl);
    if (rs.rs_code != 0)
        return rs.rs_code;
    return jr.jr_ok == jr.jr_tasks ? 0 : 1;
}
