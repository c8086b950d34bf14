#!/bin/sh
# test_faults_flowd.sh - the reduced fault runner's flow rows (issue 21,
# docs/FAULTS.md "flowd, executors and partitions"): scripts/faults
# --group flow with 24 long tasks of 2 s (4 node monitors x 4 slots: 12
# long slots) and a SIGSTOP of 4 s (longer than the 3 s heartbeat
# timeout), each fault once: flowd killed -9 and restarted by the runner,
# flowd stopped, the scheduler stopped. Bounds as measured, not targets:
# - every row: every task ok (none lost), no outcome reported twice;
# - flowd killed or stopped: no task executed or completed more than once;
# - scheduler stopped: at most one execution more per long slot (12), and
#   as many completions: the frontend (`skylark run`) takes the stopped
#   scheduler for lost and moves the unfinished tasks to the other one,
#   while their first attempts run on (FAULTS.md: a scheduler's fault);
# - recovery: the longest time without a task ending, from the fault on,
#   at most 9 s after a kill (2 heartbeat timeouts, flowd's 1 s settle
#   window, one task; measured 5.2 s) and 4 + 6 + 2 = 12 s after a stop
#   (measured 6.1 s).
#
# A TAP test run by `make check`, which sets top_srcdir and top_builddir.
# About 70 s; bounded by timeout(1) at 400 s.

: "${top_srcdir:?run by make check}" "${top_builddir:?run by make check}"
# The fault runs time stalls against heartbeats: two at once on a small
# machine (make check -j2) starve each other's daemons (a scheduler found
# no flow node, tasks failed), so the fault tests take turns.
exec 9>"$top_builddir/tests/faults.lock"
flock -w 900 9 || { echo "Bail out! no turn at the fault runner's lock in 900 s"; exit 1; }
echo "1..5"
out=$(BUILD_DIR=$top_builddir timeout 400 "$top_srcdir/scripts/faults" \
    --group flow --long-tasks 24 --long-s 2 --stop 4 2>&1)
rows=$(printf '%s\n' "$out" | grep -c '^| \(long-none\|flowd-kill\|flowd-stop\|sched-stop\) |')
if [ "$rows" -eq 4 ]; then
    echo "ok 1 - scripts/faults ran the flow anchor and 3 faults"
else
    echo "not ok 1 - scripts/faults ran the flow anchor and 3 faults (got $rows rows)"
fi
printf '%s\n' "$out" | awk -F'|' '
    function num(s) { gsub(/ /, "", s); return s + 0 }
    BEGIN { n = 1 }
    $2 ~ /^ (long-none|flowd-kill|flowd-stop|sched-stop) $/ {
        f = $2; gsub(/ /, "", f)
        tasks = num($3)
        split($4, o, "/")
        ok = num(o[1]); lost = num(o[4])
        rep = num($5); ran2 = num($7); done2 = num($8); stall = num($10)
        if (f == "long-none") {
            good = ok == tasks && rep == 0 && ran2 == 0
        } else if (f == "sched-stop") {
            good = ok == tasks && rep == 0 && ran2 <= 12 && done2 <= 12 && stall <= 12
        } else {
            bound = f == "flowd-kill" ? 9 : 12
            good = ok == tasks && rep == 0 && ran2 == 0 && done2 == 0 && stall <= bound
        }
        printf "%s %d - %s: %d of %d ok, %d lost, %d reported twice, %d executed and %d completed more than once, longest stall %s s\n",
            good ? "ok" : "not ok", ++n, f, ok, tasks, lost, rep, ran2, done2, stall
    }'
printf '%s\n' "$out" | grep '^|' | sed 's/^/# /'
