#!/bin/sh
# test_faults_part.sh - the reduced fault runner's partition rows (issue
# 21, docs/FAULTS.md "Partitions"): scripts/faults --group part, each
# daemon and the frontend on a host of its own (network namespaces joined
# by a bridge, scripts/faults-netns.sh), one host's link down for 10 s,
# then up: a scheduler's host and a node monitor's host during 200 tasks
# of 0.2 s, flowd's host during 24 long tasks of 2 s (12 long slots). The
# cut is longer than the 3 s heartbeat timeout and the frontend's move 2
# s after it: a scheduler back before that move is given the job before
# its node monitors are, rejects it and every unfinished task ends FAILED
# (FAULTS.md, "Partitions"; a bug of the frontend, not asserted here). Skipped, with the runner's reason,
# where the machine does not allow namespaces (not root, no `ip netns`).
# Bounds as measured, not targets:
# - every row: every task ok (none lost), no outcome reported twice;
# - every daemon advertises the address of its host (the runner checks it
#   before each row, and stops without the row if not);
# - sched-part: no task completed more than once, the job stalls at most
#   9 s (2 heartbeat timeouts and the frontend's 2 s wait, plus one);
# - nm-part: at most one more execution and completion per slot of the
#   cut-off node (4): with 200 tasks the job's queue is shorter than the
#   partition, and the outcomes the node kept expire (outcome_keep_ms,
#   10 s) before it is back, so a retry runs them again (FAULTS.md,
#   "Not guaranteed");
# - flowd-part: no task executed or completed twice: the 2 s tasks
#   running at the cut end during it, before flowd is back (tasks that
#   outlast the cut end KILLED: FAULTS.md; not asserted here).
#
# A TAP test run by `make check`, which sets top_srcdir and top_builddir.
# About 90 s; bounded by timeout(1) at 400 s.

: "${top_srcdir:?run by make check}" "${top_builddir:?run by make check}"
# The fault runs time stalls against heartbeats: two at once on a small
# machine (make check -j2) starve each other's daemons, so the fault
# tests take turns.
exec 9>"$top_builddir/tests/faults.lock"
flock -w 900 9 || { echo "Bail out! no turn at the fault runner's lock in 900 s"; exit 1; }
out=$(BUILD_DIR=$top_builddir timeout 400 "$top_srcdir/scripts/faults" \
    --group part --tasks 200 --long-tasks 24 --long-s 2 --stop 10 2>&1)
skip=$(printf '%s\n' "$out" | sed -n 's/^scripts\/faults: skip: partition rows: //p')
if [ -n "$skip" ]; then
    echo "1..0 # SKIP $skip"
    exit 0
fi
echo "1..6"
rows=$(printf '%s\n' "$out" | grep -c '^| \(part-none\|sched-part\|nm-part\|part-long-none\|flowd-part\) |')
if [ "$rows" -eq 5 ]; then
    echo "ok 1 - scripts/faults ran 2 anchors and 3 partitions across hosts"
else
    echo "not ok 1 - scripts/faults ran 2 anchors and 3 partitions across hosts (got $rows rows)"
    printf '%s\n' "$out" | sed 's/^/# /'
fi
printf '%s\n' "$out" | awk -F'|' '
    function num(s) { gsub(/ /, "", s); return s + 0 }
    BEGIN { n = 1 }
    $2 ~ /^ (part-none|sched-part|nm-part|part-long-none|flowd-part) $/ {
        f = $2; gsub(/ /, "", f)
        tasks = num($3)
        split($4, o, "/")
        ok = num(o[1]); lost = num(o[4])
        rep = num($5); ran2 = num($7); done2 = num($8); stall = num($10)
        good = ok == tasks && rep == 0
        if (f ~ /none$/)
            good = good && ran2 == 0
        else if (f == "sched-part")
            good = good && done2 == 0 && stall <= 9
        else if (f == "nm-part")
            good = good && ran2 <= 4 && done2 <= 4
        else
            good = good && ran2 == 0 && done2 == 0
        printf "%s %d - %s: %d of %d ok, %d lost, %d reported twice, %d executed and %d completed more than once, longest stall %s s\n",
            good ? "ok" : "not ok", ++n, f, ok, tasks, lost, rep, ran2, done2, stall
    }'
printf '%s\n' "$out" | grep '^|' | sed 's/^/# /'
