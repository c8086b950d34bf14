# tap.sh - what the shell tests that run a local cluster share, sourced
# by them (`. "$top_srcdir/tests/tap.sh"`): TAP results, bounded waits,
# a scratch directory whose cluster and processes are stopped on any
# exit, and a node monitor's restart.

# shellcheck source=scripts/restart.sh
. "$top_srcdir/scripts/restart.sh"

# check STATUS WHAT: prints TAP result number n+1; STATUS 0 is ok.
n=0
check() {
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

# wait_for SECONDS COMMAND...: runs COMMAND every 50 ms until it
# succeeds; returns 1 if it did not within SECONDS.
wait_for() {
    t=$(($1 * 20))
    shift
    while ! "$@"; do
        t=$((t - 1))
        [ $t -gt 0 ] || return 1
        sleep 0.05
    done
}

# cluster_scratch NAME: sets dir to a new scratch directory and arranges
# that on exit every pid in $pids is killed, the cluster `skylark
# cluster up --dir "$dir"` started there is stopped, and the directory
# removed (kept if KEEP is set, for a look after a failure). Needs $sk,
# the skylark command.
pids=""
cluster_scratch() {
    dir=$(mktemp -d "${TMPDIR:-/tmp}/skylark-$1.XXXXXX") || exit 1
    trap cluster_cleanup EXIT
    trap 'exit 1' INT TERM
}
cluster_cleanup() {
    for p in $pids; do kill -KILL "$p" 2>/dev/null; done
    "$sk" cluster down --dir "$dir" --grace 2 >/dev/null 2>&1
    [ -n "$KEEP" ] || rm -rf "$dir"
}

# restart_nodemon PID LOG: restart_pid (scripts/restart.sh) of the node
# monitor PID of the cluster in $dir, its output in LOG; the new
# process's pid is left in $new and added to $pids.
restart_nodemon() {
    restart_pid "$1" "$2" "$dir/cluster"
    pids="$pids $new"
}

# wait_exit SECONDS PID: waits for the child PID to exit, killing it
# after SECONDS; returns its exit status (137 when killed).
wait_exit() {
    t=$(($1 * 20))
    while kill -0 "$2" 2>/dev/null && [ $t -gt 0 ]; do
        sleep 0.05
        t=$((t - 1))
    done
    kill -0 "$2" 2>/dev/null && kill -KILL "$2"
    wait "$2"
}
