#!/bin/sh
# test_cli_executor.sh - `skylark executor` against a local cluster of one
# node monitor (docs/CLIENT.md): what it refuses (bad usage, no node
# monitor, a node the cluster does not have); a job submitted with
# `skylark run --framework` runs on it with the task's variables and
# exit status; a cancelled task's process group is killed; a SIGKILL of
# the executor takes its tasks with it (the task guard) and the node
# monitor reports them lost; SIGTERM stops it with status 0.
#
# A TAP test run by `make check`, which sets top_srcdir and top_builddir.
# About 15 s; every wait is bounded.

: "${top_srcdir:?run by make check}" "${top_builddir:?run by make check}"
sk=$top_builddir/cli/skylark
. "$top_srcdir/tests/tap.sh"
cluster_scratch exec

# The processes whose command line is exactly "$1".
count_procs() { ps -eo args= | grep -cx -- "$1"; }

registered() { grep -q '^skylark executor: registered' "$1"; }
none_left() { [ "$(count_procs "$1")" -eq 0 ]; }
one_running() { [ "$(count_procs "$1")" -eq 1 ]; }
two_running() { [ "$(count_procs "$1")" -eq 2 ]; }

start_executor() { # start_executor LOG
    setsid "$sk" executor --dir "$dir" --node n0 --kill-grace 0.5 fw \
        >"$1" 2>&1 </dev/null &
    pid=$!
    pids="$pids $pid"
    wait_for 10 registered "$1"
}

echo "1..12"
"$sk" executor >/dev/null 2>&1
check $(($? != 2)) "no framework: bad usage, exit 2"
"$sk" executor --max-tasks 0 fw >/dev/null 2>&1
check $(($? != 2)) "--max-tasks 0: bad usage, exit 2"
"$sk" executor --node-monitor tcp://127.0.0.1:1 --timeout 0.3 fw \
    >/dev/null 2>"$dir/err"
check $(($? != 1)) "no node monitor within --timeout: exit 1 ($(cat "$dir/err"))"

"$sk" cluster up --dir "$dir" --nodes 1 --slots 2 --no-flowd \
    --log-level warn >/dev/null 2>&1 || { echo "Bail out! cluster up failed"; exit 1; }
"$sk" executor --dir "$dir" --node nosuch fw >/dev/null 2>"$dir/err"
check $(($? != 1)) "a node the local cluster has not: exit 1 ($(cat "$dir/err"))"

start_executor "$dir/ex1.log"
check $? "it registers with the local cluster's node monitor n0"

"$sk" run --dir "$dir" --framework fw -n 2 --output \
    'echo on $SKYLARK_NODE task $SKYLARK_TASK_INDEX attempt $SKYLARK_ATTEMPT; exit 3' \
    >"$dir/out" 2>&1
rc=$?
grep -q 'failed (exit 3) on n0' "$dir/out" && grep -q '^on n0 task 1 attempt 0$' "$dir/out"
check $(($? != 0 || rc != 1)) "run --framework: tasks run there with their variables; exit 3 is FAILED (exit 3)"
"$sk" run --dir "$dir" --framework fw -n 4 'true' >/dev/null 2>&1
check $? "exit 0 is OK: run exits 0"

"$sk" run --dir "$dir" --framework fw 'sleep 301' >/dev/null 2>&1 &
run=$!
wait_for 10 one_running "sleep 301"
started=$?
kill -INT "$run"
wait "$run"
wait_for 5 none_left "sleep 301"
check $(($? != 0 || started != 0)) "a cancelled task's process group is killed"

"$sk" run --dir "$dir" --framework fw -n 2 --max-attempts 1 'sleep 302' \
    >"$dir/out" 2>&1 &
run=$!
wait_for 10 two_running "sleep 302"
kill -KILL "$pid"
wait_for 2 none_left "sleep 302"
check $? "a SIGKILL of the executor kills its tasks (the guard)"
wait "$run"
rc=$?
grep -q 'lost on n0: node n0: executor of framework fw left' "$dir/out"
check $(($? != 0 || rc != 1)) "the node monitor reports them lost"

start_executor "$dir/ex2.log"
check $? "a new executor registers again"
kill -TERM "$pid"
wait "$pid"
rc=$?
grep -q '^skylark executor: 0 tasks: ' "$dir/ex2.log"
check $(($? != 0 || rc != 0)) "SIGTERM: exit 0 with its totals"
