/*
 * nm_journal.h - the command executor's journal: one small file per
 * command task, in a directory of the node monitor's, that says whose
 * task it is and, once it ended, how (docs/FAULTS.md, "The journal").
 *
 * The node monitor writes a record's first line when it starts the task:
 *   skylark-journal 1 KEY REF SCHED SCHED_INC LAUNCH_US USER
 * (KEY the job key in hex, REF the task's ref, SCHED and SCHED_INC the
 * HELLO id and incarnation of its scheduler, LAUNCH_US microseconds
 * since the epoch, USER the rest of the line; a framework executor's
 * record, `skylark executor --journal`, has KEY, REF and SCHED 0 and the
 * incarnation of the node monitor that launched the task as SCHED_INC),
 * and the task's keeper
 * (skylark-keeper, nm_keeper.c), a process apart from the node monitor,
 * appends how it ended:
 *   end exit N at US        or        end signal S at US
 * A node monitor killed in the instant a task ends thus leaves the end
 * on disk, and the next node monitor started on that directory offers it
 * to the schedulers like an outcome it kept itself (nm_core.h,
 * nm_outcome_recovered), so that the task's retry does not complete it
 * a second time.
 *
 * A record outlives the moment its end was handed on by `linger_ms`
 * (NM_JOURNAL_LINGER_MS: time for the report to leave the process),
 * then is removed; at most `max` records linger (the oldest goes
 * first). Records are named JOB-TASK-ATTEMPT with the node-local job
 * id.
 *
 * A record is locked (flock) from its creation until its keeper exits:
 * a node monitor started again reads a record only once no keeper holds
 * it, so that the end of a task that ends as the old node monitor dies
 * is not read before its keeper has written it.
 *
 * A record is input from a file: nm_journal_recover checks every line
 * against the format and limits above (at most NM_JOURNAL_MAX_BYTES),
 * counts what it refuses, and removes it when it is named as a record
 * (a file of another name, or one it cannot read, is left alone).
 *
 * Threading: one thread.
 */
#ifndef NM_JOURNAL_H
#define NM_JOURNAL_H

#include "nm_core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest record read back. */
#define NM_JOURNAL_MAX_BYTES 1024u

/* How long a record stays after its end was handed on, by default: the
 * report has left the process by then. */
#define NM_JOURNAL_LINGER_MS 1000

/* How long a node monitor started again waits, at most, for the keepers
 * of the records it reads back (the guard kills their tasks when the old
 * node monitor dies: they end within milliseconds). */
#define NM_JOURNAL_KEEPER_WAIT_MS 2000u

/* A record read back: its origin and how the task ended. */
typedef struct nm_journal_entry {
    uint64_t je_job; /* the attempt, from the record's name */
    uint32_t je_task, je_attempt;
    nm_origin je_origin; /* whose task it was (nm_core.h) */
    uint64_t je_launch_us;
    uint64_t je_end_us;
    bool je_signaled; /* ended by signal je_code, else exit code je_code */
    int32_t je_code;
} nm_journal_entry;

/* Counters. */
typedef struct nm_journal_stats {
    uint64_t js_written;      /* records begun */
    uint64_t js_write_failed; /* records that could not be made */
    uint64_t js_recovered;    /* ends read back and handed on */
    uint64_t js_unfinished;   /* records read back without an end */
    uint64_t js_signaled;     /* ends by a signal read back (not handed on) */
    uint64_t js_bad;          /* files refused: name, size or format */
} nm_journal_stats;

typedef struct nm_journal nm_journal;

/* nm_journal_open uses the directory dir (created with mode 0700 if
 * missing; it must be a directory owned by this user) for records that
 * linger linger_ms after their task (at most max). Returns 0, or an
 * errno value with the reason in err. */
int nm_journal_open(const char *dir, int64_t linger_ms, uint32_t max,
                    nm_journal **out, char *err, size_t errlen);

/* nm_journal_close removes the records that linger (their ends were
 * handed on: a process that closes its journal stops cleanly) and frees
 * j; the records of tasks still running stay. NULL is a no-op. */
void nm_journal_close(nm_journal *j);

/* nm_journal_begin writes the record of the attempt (job, task, attempt)
 * launched at launch_us for origin o. Returns a descriptor for the
 * keeper to append the end to (write-only, append, close-on-exec, holding
 * the record's lock; the caller closes it once the keeper has its copy),
 * or -1 (counted; the task runs without a record). */
int nm_journal_begin(nm_journal *j, uint64_t job, uint32_t task,
                     uint32_t attempt, const nm_origin *o, uint64_t launch_us);

/* nm_journal_end says that the attempt's end has been handed to the node
 * monitor core at now_us: with linger its record is removed linger_ms
 * later (at a later call), else at once. Records due are removed too. */
void nm_journal_end(nm_journal *j, uint64_t job, uint32_t task,
                    uint32_t attempt, bool linger, uint64_t now_us);

/* nm_journal_recover reads back every record in the directory (call it
 * before the first nm_journal_begin), each once its keeper has let it go
 * (waiting wait_ms in all at most, NM_JOURNAL_KEEPER_WAIT_MS; a record
 * still held then is read as it is), calls found(arg, entry) for each
 * task that ended by itself with an exit code (an end by a signal, or
 * none, is counted and logged with the record's name, not handed on; the
 * reader decides whether an end is still news: those of the last
 * linger_ms before the stop were already reported), and removes every
 * record (those it refuses too, when named as records). The entry's
 * je_job, je_task and je_attempt come from the record's name. */
void nm_journal_recover(nm_journal *j, uint32_t wait_ms,
                        void (*found)(void *arg, const nm_journal_entry *e),
                        void *arg);

/* nm_journal_parse reads one record's text (len bytes) into *e. Returns
 * 1 for a record with an end, 0 for one without, -1 for text that is not
 * a record. */
int nm_journal_parse(const char *text, size_t len, nm_journal_entry *e);

/* nm_journal_keeper finds the keeper program (nm_keeper.c) into out:
 * configured when not "" (an absolute path), else skylark-keeper beside
 * this process's program, or in nodemon/ beside its folder (a build
 * tree), else in SK_PKGLIBEXECDIR (an installed one). Returns 0, or -1 with the
 * reason in err when it is not an executable file. */
int nm_journal_keeper(const char *configured, char *out, size_t len, char *err,
                      size_t errlen);

/* nm_journal_stats_get returns the counters. */
const nm_journal_stats *nm_journal_stats_get(const nm_journal *j);

#endif /* NM_JOURNAL_H */
