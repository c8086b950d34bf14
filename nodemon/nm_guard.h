/*
 * nm_guard.h - the task guard of the command executor: a small process,
 * apart from the node monitor, that kills the process groups of the
 * command tasks still running when the node monitor dies, even of
 * SIGKILL (docs/FAULTS.md). Without it a killed node monitor's tasks run
 * on with nobody to report to while their scheduler retries them
 * elsewhere: they would complete twice.
 *
 * The node monitor tells it each task's process group as the task starts
 * and ends, through a pipe (4 bytes per event, no answer); the guard
 * learns of the node monitor's death from the end of that pipe, kills
 * every group it holds with SIGKILL and exits. It is not the node
 * monitor's child (it would be reaped as a stray), has its own session
 * (a terminal's signals do not reach it) and holds no other descriptor.
 */
#ifndef NM_GUARD_H
#define NM_GUARD_H

#include <sys/types.h>

/* nm_guard_start starts a guard for at most max groups at once. Returns
 * the descriptor to tell it through (close-on-exec, non-blocking), or -1
 * with errno set. Call before any thread is started. */
int nm_guard_start(unsigned max);

/* nm_guard_tell tells the guard at fd that the process group pgid starts
 * (on) or ends (off). A guard that is gone or a full pipe loses the
 * event: returns -1 then, else 0. */
int nm_guard_tell(int fd, pid_t pgid, int on);

#endif /* NM_GUARD_H */
