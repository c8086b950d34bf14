# shellcheck shell=sh
# scripts/restart.sh - a supervisor's restart of a daemon of a local
# cluster (`skylark cluster up`), sourced (POSIX sh) by scripts/faults
# and by the shell tests (tests/tap.sh).

# exited PID: true once PID has exited: gone, or a zombie its parent has
# not reaped yet (a daemon of `cluster up` is an orphan, and init may reap
# it a second or two later: a supervisor, its parent, would at once).
exited() {
    st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
    [ -z "$st" ] || [ "${st%% *}" = Z ]
}

# restart_pid PID LOG CLUSTER: kills the daemon PID with SIGKILL (it
# reports nothing) and, once it has exited, starts it again with the same
# command line (read from /proc before the kill; no argument holds a
# newline) in a session of its own, appending its output to LOG, as a
# supervisor would. The cluster file CLUSTER names the new process, so
# that `cluster down` stops it; its pid is left in $new.
restart_pid() {
    argv=$(tr '\0' '\n' <"/proc/$1/cmdline")
    kill -KILL "$1"
    until exited "$1"; do sleep 0.01; done
    old_ifs=$IFS
    IFS='
'
    # shellcheck disable=SC2086
    setsid $argv >>"$2" 2>&1 </dev/null &
    IFS=$old_ifs
    new=$!
    awk -v old="$1" -v new="$new" '$4 == old { $4 = new } { print }' \
        "$3" >"$3.new" && mv "$3.new" "$3"
}
