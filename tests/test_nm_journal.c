/*
 * test_nm_journal.c - the command executor's journal (nm_journal.h): the
 * record format read back against hostile text, records begun and
 * removed (at once, or after the linger time, at most max lingering),
 * and a directory read back at start: ends handed on, the rest counted
 * and removed, foreign files left alone; a record whose keeper still
 * holds it read only once the keeper has written its end and let it go
 * (or at the wait's bound, as it is).
 */
#include "nm_journal.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[64];

static int parse(const char *text, nm_journal_entry *e)
{
    return nm_journal_parse(text, strlen(text), e);
}

#define HEAD "skylark-journal 1 abc 7 3 42 1000 alice\n"

static void test_parse(void)
{
    nm_journal_entry e;
    tap_ok(parse(HEAD, &e) == 0 && e.je_origin.or_key == 0xabc &&
               e.je_origin.or_ref == 7 && e.je_origin.or_sched == 3 &&
               e.je_origin.or_sched_inc == 42 && e.je_launch_us == 1000 &&
               strcmp(e.je_origin.or_user, "alice") == 0,
           "a record without an end: its origin");
    tap_ok(parse(HEAD "end exit 5 at 2000\n", &e) == 1 && !e.je_signaled &&
               e.je_code == 5 && e.je_end_us == 2000,
           "with an exit");
    tap_ok(parse(HEAD "end signal 9 at 2000\n", &e) == 1 && e.je_signaled &&
               e.je_code == 9,
           "with a signal");
    tap_ok(parse("skylark-journal 1 abc 7 3 42 1000 two words\n", &e) == 0 &&
               strcmp(e.je_origin.or_user, "two words") == 0,
           "the user is the rest of the line");
    static const char *const bad[] = {
        "skylark-journal 2 abc 7 3 42 1000 alice\n",
        "skylark-journal 1 ABC 7 3 42 1000 alice\n",
        "skylark-journal 1 abc 7 3 42 alice\n",
        "skylark-journal 1 abc 4294967296 3 42 1000 alice\n",
        "skylark-journal 1 10000000000000000 7 3 42 1000 alice\n",
        "skylark-journal 1 abc 7 3 42 1000 alice",
        "skylark-journal 1 abc -7 3 42 1000 alice\n",
        HEAD "end exit 256 at 2000\n",
        HEAD "end signal 65 at 2000\n",
        HEAD "end exit 0 at 2000\njunk",
        HEAD "end exit 0 at 2000\nend exit 1 at 2001\n",
        HEAD "end exit 0 at 2000",
        HEAD "end quit 0 at 2000\n",
        HEAD "end exit 0 at\n",
    };
    int refused = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (parse(bad[i], &e) == -1)
            refused++;
        else
            tap_diag("accepted: %s", bad[i]);
    }
    tap_is_int(refused, (int64_t)(sizeof bad / sizeof bad[0]),
               "wrong version, case, missing or overflowing fields, no "
               "newline, codes out of range, junk after the end: refused");
    char text[NM_JOURNAL_MAX_BYTES + 64];
    snprintf(text, sizeof text, "skylark-journal 1 abc 7 3 42 1000 %0*d\n",
             (int)SK_MAX_NAME_LEN + 1, 0);
    tap_is_int(parse(text, &e), -1, "a user over %u bytes is refused",
               SK_MAX_NAME_LEN);
    char nul[] = HEAD "end exit 0 at 2000\n";
    nul[20] = '\0';
    tap_is_int(nm_journal_parse(nul, sizeof nul - 1, &e), -1,
               "a NUL byte is refused");
    memset(text, 'x', sizeof text);
    memcpy(text, HEAD, strlen(HEAD));
    tap_is_int(nm_journal_parse(text, NM_JOURNAL_MAX_BYTES + 1, &e), -1,
               "more than %u bytes is refused", NM_JOURNAL_MAX_BYTES);
}

static int exists(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static void put(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        tap_bail_out("cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static void test_records(void)
{
    char err[256], path[128];
    nm_journal *j = NULL;
    snprintf(path, sizeof path, "%s/file", dir);
    put("file", "x");
    tap_ok(nm_journal_open(path, 1000, 2, &j, err, sizeof err) != 0,
           "a file is not a journal: %s", err);
    unlink(path);
    snprintf(path, sizeof path, "%s/open", dir);
    mkdir(path, 0755);
    tap_ok(nm_journal_open(path, 1000, 2, &j, err, sizeof err) != 0,
           "nor a directory others may read: %s", err);
    rmdir(path);
    tap_is_int(nm_journal_open(dir, 1000, 2, &j, err, sizeof err), 0,
               "a directory of ours, mode 0700, is");
    if (j == NULL)
        tap_bail_out("%s", err);
    nm_origin o = {0xabc, 7, 3, 42, "alice"};
    int fd = nm_journal_begin(j, 1, 2, 3, &o, 1000);
    char buf[256] = "";
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
    tap_ok(fd >= 0 && n == -1 && exists("1-2-3"),
           "begin makes 1-2-3 and gives a write-only descriptor");
    tap_ok(fd >= 0 && write(fd, "end exit 0 at 2000\n", 19) == 19,
           "the keeper appends its end");
    close(fd);
    snprintf(path, sizeof path, "%s/1-2-3", dir);
    FILE *f = fopen(path, "r");
    n = f != NULL ? (ssize_t)fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    buf[n > 0 ? n : 0] = '\0';
    nm_journal_entry e;
    tap_ok(nm_journal_parse(buf, (size_t)(n > 0 ? n : 0), &e) == 1 &&
               e.je_origin.or_key == 0xabc && e.je_code == 0,
           "and the record reads back");
    nm_journal_end(j, 1, 2, 3, false, 5000);
    tap_ok(!exists("1-2-3"), "an end without linger removes it at once");

    close(nm_journal_begin(j, 1, 0, 0, &o, 1000));
    close(nm_journal_begin(j, 1, 1, 0, &o, 1000));
    close(nm_journal_begin(j, 1, 2, 0, &o, 1000));
    nm_journal_end(j, 1, 0, 0, true, 10 * 1000 * 1000);
    tap_ok(exists("1-0-0"), "an end with linger keeps it");
    nm_journal_end(j, 1, 1, 0, true, 10 * 1000 * 1000 + 999 * 1000);
    tap_ok(exists("1-0-0") && exists("1-1-0"), "for linger_ms");
    nm_journal_end(j, 1, 2, 0, true, 11 * 1000 * 1000 + 1);
    tap_ok(!exists("1-0-0") && exists("1-1-0") && exists("1-2-0"),
           "then the next call removes it");
    close(nm_journal_begin(j, 1, 3, 0, &o, 1000));
    nm_journal_end(j, 1, 3, 0, true, 11 * 1000 * 1000 + 2);
    tap_ok(!exists("1-1-0") && exists("1-2-0") && exists("1-3-0"),
           "at most max linger: the oldest goes first");
    close(nm_journal_begin(j, 1, 4, 0, &o, 1000));
    nm_journal_close(j);
    tap_ok(!exists("1-2-0") && !exists("1-3-0") && exists("1-4-0"),
           "close removes the records that linger, not a running task's");
    unlink(strcat(strcpy(path, dir), "/1-4-0"));
}

static int nfound;
static uint32_t found_refs; /* bit ref of each end handed on */
static uint64_t found_job;

static void found(void *arg, const nm_journal_entry *e)
{
    (void)arg;
    nfound++;
    found_refs |= 1u << (e->je_origin.or_ref % 32);
    found_job += e->je_job * 100 + e->je_task * 10 + e->je_attempt;
}

static void test_recover(void)
{
    char err[256];
    put("1-0-0", "skylark-journal 1 abc 10 3 42 1000 alice\n"
                 "end exit 0 at 99000000\n");
    put("1-1-0", "skylark-journal 1 abc 11 3 42 1000 alice\n"
                 "end exit 0 at 1000\n"); /* old: still handed on */
    put("1-2-0", "skylark-journal 1 abc 12 3 42 1000 alice\n");
    put("1-3-0", "skylark-journal 1 abc 13 3 42 1000 alice\n"
                 "end signal 9 at 99000000\n");
    put("2-4-1", "skylark-journal 1 0 14 3 42 1000 alice\n"
                 "end exit 3 at 99000000\n");
    put("1-5-0", "garbage\n");
    put("notes.txt", "not ours\n");
    nm_journal *j = NULL;
    if (nm_journal_open(dir, 10000, 8, &j, err, sizeof err) != 0)
        tap_bail_out("%s", err);
    nm_journal_recover(j, 0, found, NULL);
    const nm_journal_stats *st = nm_journal_stats_get(j);
    tap_ok(nfound == 3 &&
               found_refs == ((1u << 10) | (1u << 11) | (1u << 14)) &&
               found_job == 100 + 110 + 241 && st->js_recovered == 3,
           "the ends of tasks that exited are handed on, keyed or not, old "
           "or not, with the attempt their record's name gives");
    tap_ok(st->js_unfinished == 1 && st->js_signaled == 1 && st->js_bad == 2,
           "one without an end, one killed, two refused: counted, not "
           "handed on");
    tap_ok(!exists("1-0-0") && !exists("1-1-0") && !exists("1-2-0") &&
               !exists("1-3-0") && !exists("2-4-1") && !exists("1-5-0"),
           "every file named as a record is removed");
    tap_ok(exists("notes.txt"), "a file of another name is left alone");
    nm_journal_close(j);
    char path[128];
    unlink(strcat(strcpy(path, dir), "/notes.txt"));
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Begins the record 3-TASK-0 in a journal of its own and hands its
 * descriptor to a child, a keeper's stand-in, that appends an end after
 * end_after_s and exits; the caller's copy is closed, as the node
 * monitor's is. Returns the child. */
static pid_t keeper_after(uint32_t task, double end_after_s)
{
    char err[256];
    nm_journal *j = NULL;
    if (nm_journal_open(dir, 0, 8, &j, err, sizeof err) != 0)
        tap_bail_out("%s", err);
    nm_origin o = {0xabc, 30 + task, 3, 42, "alice"};
    int fd = nm_journal_begin(j, 3, task, 0, &o, 1000);
    if (fd < 0)
        tap_bail_out("cannot begin a record");
    pid_t pid = fork();
    if (pid < 0)
        tap_bail_out("fork failed");
    if (pid == 0) {
        struct timespec t = {(time_t)end_after_s,
                             (long)((end_after_s - (time_t)end_after_s) * 1e9)};
        nanosleep(&t, NULL);
        const char end[] = "end exit 0 at 2000\n";
        _exit(write(fd, end, sizeof end - 1) == sizeof end - 1 ? 0 : 1);
    }
    close(fd);
    nm_journal_close(j);
    return pid;
}

static void test_held(void)
{
    char err[256], path[128];
    pid_t keeper = keeper_after(0, 0.3);
    snprintf(path, sizeof path, "%s/3-0-0", dir);
    int fd = open(path, O_RDONLY);
    tap_ok(fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK,
           "a record begun is locked while its keeper has it");
    if (fd >= 0)
        close(fd);
    nm_journal *j = NULL;
    if (nm_journal_open(dir, 10000, 8, &j, err, sizeof err) != 0)
        tap_bail_out("%s", err);
    nfound = 0;
    double t0 = mono_s();
    nm_journal_recover(j, 5000, found, NULL);
    double waited = mono_s() - t0;
    const nm_journal_stats *st = nm_journal_stats_get(j);
    tap_ok(nfound == 1 && st->js_recovered == 1 && st->js_unfinished == 0 &&
               waited >= 0.2 && waited < 4,
           "the next reader waits for the keeper (%.2f s) and hands on the "
           "end it wrote",
           waited);
    nm_journal_close(j);
    waitpid(keeper, NULL, 0);

    keeper = keeper_after(1, 30);
    if (nm_journal_open(dir, 10000, 8, &j, err, sizeof err) != 0)
        tap_bail_out("%s", err);
    nfound = 0;
    t0 = mono_s();
    nm_journal_recover(j, 100, found, NULL);
    waited = mono_s() - t0;
    st = nm_journal_stats_get(j);
    tap_ok(nfound == 0 && st->js_unfinished == 1 && !exists("3-1-0") &&
               waited >= 0.09 && waited < 10,
           "a keeper that holds on past the bound: read as it is, without "
           "an end, after %.2f s, and removed",
           waited);
    nm_journal_close(j);
    kill(keeper, SIGKILL);
    waitpid(keeper, NULL, 0);
}

int main(void)
{
    tap_plan(27);
    snprintf(dir, sizeof dir, "/tmp/skylark-journal-XXXXXX");
    if (mkdtemp(dir) == NULL)
        tap_bail_out("mkdtemp failed");
    test_parse();
    test_records();
    test_recover();
    test_held();
    rmdir(dir);
    return tap_exit_status();
}
