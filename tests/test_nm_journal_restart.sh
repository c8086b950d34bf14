#!/bin/sh
# test_nm_journal_restart.sh - the command executor's journal against real
# daemons (docs/FAULTS.md, "The journal"): a task ends while its node
# monitor is stopped, the node monitor is then killed with SIGKILL (its
# end never reported) and started again on the same journal, as a
# supervisor would. The new node monitor reads the end back and offers
# it; the job's only task ends OK and completes once (its retry, on the
# other node monitor, is killed if it started before the offer came).
#
# A TAP test run by `make check`, which sets top_srcdir and top_builddir.
# About 10 s; every wait is bounded.

: "${top_srcdir:?run by make check}" "${top_builddir:?run by make check}"
sk=$top_builddir/cli/skylark
. "$top_srcdir/tests/tap.sh"
cluster_scratch journal

in_ledger() { grep -q "^$1 " "$dir/ledger" 2>/dev/null; }
recovered() { grep -q 'journal .*: 1 task ends recovered' "$dir/logs/restarted.log"; }

echo "1..6"
if ! "$sk" cluster up --dir "$dir" --nodes 2 --slots 1 --schedulers 1 \
    --no-flowd --log-level info >"$dir/up.out" 2>&1; then
    echo "Bail out! skylark cluster up failed: $(tail -n 3 "$dir/up.out")"
    exit 1
fi
"$sk" run --dir "$dir" --max-attempts 3 -n 1 \
    "echo start \$SKYLARK_NODE >> $dir/ledger; sleep 1; echo end \$SKYLARK_NODE >> $dir/ledger" \
    >"$dir/run.out" 2>&1 &
run=$!
pids="$pids $run"
wait_for 20 in_ledger start
check $? "the task starts"
node=$(awk '$1 == "start" { print $2; exit }' "$dir/ledger")
nm=$(awk -v n="$node" '$1 == "nodemon" && $2 == n { print $4 }' "$dir/cluster")
kill -STOP "$nm"
wait_for 10 in_ledger end
check $? "it ends while its node monitor is stopped"
sleep 0.3 # its keeper writes the end into the journal
restart_nodemon "$nm" "$dir/logs/restarted.log"
wait_for 10 recovered
check $? "the node monitor started again reads the end back from the journal"
wait_exit 30 "$run"
check $? "skylark run ends with status 0"
grep -q '1 ok' "$dir/run.out"
check $? "its task is ok: $(grep 'tasks:' "$dir/run.out")"
check $(($(grep -c '^end ' "$dir/ledger") != 1)) \
    "and completed once ($(grep -c '^start ' "$dir/ledger") starts and $(grep -c '^end ' "$dir/ledger") ends in the ledger)"
