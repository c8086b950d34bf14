#!/bin/sh
# test_faults.sh - the reduced fault runner (issue 21, docs/FAULTS.md):
# scripts/faults with 200 tasks of 0.2 s and a SIGSTOP of 4 s (longer than
# the 3 s heartbeat timeout), each fault kind once, against local clusters
# it starts and stops itself. Per fault: every task ok (none lost), no
# outcome reported twice, at most two executions per slot beyond one per
# task. No task completed twice is checked for a scheduler killed -9
# (outcomes offered to the other scheduler), a node monitor killed -9 and
# started again on its journal (the guard and the journal; but for a
# task killed in its last instant, which the journal names), a node
# monitor killed -9 and not started again (the task guard; bound 1: a
# task ending at the kill), and bounded by the stopped node's 4 slots
# for the stall, which FAULTS.md does not guarantee it for (a pass that
# is a TODO would turn into an unexpected pass). The executor rows run
# the same job with --framework on a `skylark executor` beside each node
# monitor: its SIGKILL (restarted at once on its journal) is held to no
# task completed twice, as a node monitor's restart, its stall is
# bounded as a node monitor's stall.
#
# A TAP test run by `make check`, which sets top_srcdir and top_builddir.
# About 80 s; bounded by timeout(1) at 420 s.

: "${top_srcdir:?run by make check}" "${top_builddir:?run by make check}"
EGAP="a task that ends while its executor is stopped past the timeout completes again: its report is lost with the session (FAULTS.md)"
GAP="a task that ends during a stall completes again: its retry ends before the node monitor comes back (FAULTS.md)"
# The fault runs time stalls against heartbeats: two at once on a small
# machine (make check -j2) starve each other's daemons (a scheduler found
# no flow node, tasks failed), so the fault tests take turns.
exec 9>"$top_builddir/tests/faults.lock"
flock -w 900 9 || { echo "Bail out! no turn at the fault runner's lock in 900 s"; exit 1; }
echo "1..21"
out=$(BUILD_DIR=$top_builddir timeout 420 "$top_srcdir/scripts/faults" \
    --group short --tasks 200 --stop 4 2>&1)
rows=$(printf '%s\n' "$out" | grep -c '^| \(none\|sched-kill\|nm-kill\|nm-restart\|nm-stop\|exec-none\|exec-kill\|exec-stop\) |')
if [ "$rows" -eq 8 ]; then
    echo "ok 1 - scripts/faults ran the 2 anchors and 6 faults"
else
    echo "not ok 1 - scripts/faults ran the 2 anchors and 6 faults (got $rows rows)"
    printf '%s\n' "$out" | sed 's/^/# /'
fi
printf '%s\n' "$out" | awk -F'|' -v gap="$GAP" -v egap="$EGAP" '
    function num(s) { gsub(/ /, "", s); return s + 0 }
    function check(ok, what) {
        n++
        printf "%s %d - %s\n", ok ? "ok" : "not ok", n, what
    }
    BEGIN { n = 1 }
    $2 ~ /^ (none|sched-kill|nm-kill|nm-restart|nm-stop|exec-none|exec-kill|exec-stop) $/ {
        f = $2; gsub(/ /, "", f)
        tasks = num($3)
        split($4, o, "/")
        ok = num(o[1]); lost = num(o[4])
        rep = num($5); ran2 = num($7); done2 = num($8); last = num($9)
        check(ok == tasks && rep == 0,
              sprintf("%s: %d of %d tasks ok, %d lost, %d outcomes reported twice",
                      f, ok, tasks, lost, rep))
        if (f == "none" || f == "exec-none")
            next
        check(ran2 <= 32, sprintf("%s: %d tasks executed more than once (bound: two per slot, 32)", f, ran2))
        # nm-kill: the guard kills every task still running, but a task
        # that ended just before the kill loses its outcome with the
        # node monitor, which is not started again, and runs again (1 run
        # in 4 to 6): bound 1 (without the guard: 3 or 4).
        # nm-restart, exec-kill: started again on their journal, which
        # holds that end: none but a task killed in its last instant
        # (after its end reached the ledger, before it exited: the
        # journal read back its end as a signal, FAULTS.md).
        if (f == "nm-kill")
            check(done2 <= 1, sprintf("%s: %d tasks completed more than once (bound 1: a task ending at the kill)", f, done2))
        else if (f == "nm-restart" || f == "exec-kill")
            check(done2 == last, sprintf("%s: %d tasks completed more than once, %d of them killed in their last instant", f, done2, last))
        else if (f == "sched-kill")
            check(done2 == 0, sprintf("%s: %d tasks completed more than once", f, done2))
        else if (f == "exec-stop")
            check(done2 <= 4, sprintf("%s: %d tasks completed more than once (bound: the stopped executor%ss 4 slots; %s)", f, done2, "\047", egap))
        else
            check(done2 <= 4, sprintf("%s: %d tasks completed more than once (bound: the stopped node%ss 4 slots; %s)", f, done2, "\047", gap))
    }'
printf '%s\n' "$out" | grep '^|\|^scripts/faults: ' | sed 's/^/# /'
