#!/bin/sh
# test_cli_one_slot.sh - a cluster of one node monitor of one slot, with
# its flow node (`skylark cluster up --nodes 1 --slots 1`): the node
# monitor is killed while a task runs and started again. The task's
# retry finds no live node, so the scheduler hands it to the flow node,
# which must place it on the node monitor when it is back: a one-slot
# node's long cap is 1 (sk_long_cap), not floor(0.75 x 1) = 0, under
# which nothing handed to the flow node could ever run there.
#
# A TAP test run by `make check`, which sets top_srcdir and top_builddir.
# About 10 s; every wait is bounded.

: "${top_srcdir:?run by make check}" "${top_builddir:?run by make check}"
sk=$top_builddir/cli/skylark
. "$top_srcdir/tests/tap.sh"
cluster_scratch one-slot

in_ledger() { grep -q "^$1\$" "$dir/ledger" 2>/dev/null; }

echo "1..4"
if ! "$sk" cluster up --dir "$dir" --nodes 1 --slots 1 --schedulers 1 \
    --log-level info >"$dir/up.out" 2>&1; then
    echo "Bail out! skylark cluster up failed: $(tail -n 3 "$dir/up.out")"
    exit 1
fi
# The first attempt outlives the test (its pid is kept, to be killed at
# exit), so only its retry can end the job.
"$sk" run --dir "$dir" --max-attempts 3 -n 1 \
    "echo \$\$ > $dir/first.pid; echo start \$SKYLARK_ATTEMPT >> $dir/ledger;
     [ \$SKYLARK_ATTEMPT = 0 ] && exec sleep 60; echo end >> $dir/ledger" \
    >"$dir/run.out" 2>&1 &
run=$!
pids="$pids $run"
wait_for 20 in_ledger "start 0"
check $? "the task starts"
pids="$pids $(cat "$dir/first.pid")"
nm=$(awk '$1 == "nodemon" { print $4; exit }' "$dir/cluster")
restart_nodemon "$nm" "$dir/logs/restarted.log"
wait_for 20 in_ledger "start 1"
check $? "its retry starts on the node monitor started again"
wait_exit 30 "$run"
check $? "skylark run ends with status 0"
grep -q '1 ok' "$dir/run.out"
check $? "its task is ok: $(grep 'tasks:' "$dir/run.out")"
