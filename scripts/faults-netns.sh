# shellcheck shell=bash disable=SC2034 # nn_reason and nn_addr are for the caller
# scripts/faults-netns.sh - hosts made of network namespaces for the
# partition rows of scripts/faults (sourced by it; bash). The shell twin
# of tests/netns.c: a switch (a namespace "skf<pid>-sw" holding a bridge),
# one namespace per host ("skf<pid>-NAME", loopback up, eth0 with
# 10.232.1.N/24, N from 1 in the order made) joined to the bridge by a
# veth pair whose switch end is "v-NAME". Nothing is made in the machine's
# own namespace: the bridge is reachable only from the hosts, so the
# addresses meet no real network. A host's partition is its switch end's
# link down (nn_link); its own address and routes stay.
#
# nn_cluster_up DIR NODES SLOTS FLOWD(0|1) LOGLEVEL starts a cluster like
# `skylark cluster up` (the same daemons and command lines), each daemon
# on its own host listening on its host's address (so every endpoint it
# advertises is one the other hosts reach; none is 127.0.0.1), and writes
# DIR/cluster in the format of `skylark cluster up`, so `skylark cluster
# down --dir DIR` stops it; a host "fe" is left for the frontend
# (`nn_exec fe skylark run ...`).
#
# Clean-up: nn_teardown kills (SIGKILL) every process in a host or the
# switch and deletes the namespaces, which destroys the bridge and the
# veth pairs. The runner calls it from its EXIT trap. Namespaces left by
# a runner killed with SIGKILL are deleted by the next nn_init (their pid
# is gone). Cost: a few `ip` calls per host, about 50 ms a host. Uses
# the runner's $skylark (the skylark program) and $build (the build tree).

nn_ip=""
nn_sw=""
nn_hosts=()
nn_prefix="skf$$"

# nn_usable: 0 if this machine lets the runner make the hosts; else 1,
# with the reason in nn_reason.
nn_usable() {
    nn_reason=""
    if [[ $(id -u) -ne 0 ]]; then
        nn_reason="not root: network namespaces, veth pairs and bridges need CAP_SYS_ADMIN and CAP_NET_ADMIN"
        return 1
    fi
    nn_ip=$(command -v ip || true)
    if [[ -z $nn_ip ]]; then
        nn_reason="no ip command (iproute2)"
        return 1
    fi
    local probe=skf$$-probe out
    if ! out=$("$nn_ip" netns add "$probe" 2>&1); then
        nn_reason="ip netns add refused: $out"
        return 1
    fi
    if ! out=$("$nn_ip" netns exec "$probe" true 2>&1); then
        "$nn_ip" netns del "$probe" >/dev/null 2>&1 || true
        nn_reason="ip netns exec refused: $out"
        return 1
    fi
    "$nn_ip" netns del "$probe" >/dev/null 2>&1 || true
    return 0
}

# nn_kill_in NS: SIGKILL every process in namespace NS.
nn_kill_in() {
    local pids=()
    mapfile -t pids < <("$nn_ip" netns pids "$1" 2>/dev/null || true)
    [[ ${#pids[@]} -eq 0 ]] || kill -KILL "${pids[@]}" 2>/dev/null || true
}

nn_del() {
    nn_kill_in "$1"
    "$nn_ip" netns del "$1" >/dev/null 2>&1 || true
}

# nn_init: deletes the namespaces of runners that are gone, makes the
# switch. Returns 1 with nn_reason when it cannot.
nn_init() {
    local ns pid out
    for ns in $("$nn_ip" netns list 2>/dev/null | awk '{ print $1 }'); do
        [[ $ns =~ ^skf([0-9]+)- ]] || continue
        pid=${BASH_REMATCH[1]}
        kill -0 "$pid" 2>/dev/null || nn_del "$ns"
    done
    nn_sw=$nn_prefix-sw
    if ! out=$("$nn_ip" netns add "$nn_sw" 2>&1 &&
        "$nn_ip" -n "$nn_sw" link add br0 type bridge forward_delay 0 stp_state 0 2>&1 &&
        "$nn_ip" -n "$nn_sw" link set br0 up 2>&1); then
        nn_reason="cannot make a bridge in a namespace: $out"
        nn_teardown
        return 1
    fi
}

# nn_host NAME: makes host NAME (1-11 bytes of [a-z0-9]: "v-NAME" must fit
# an interface name) with the next address; sets nn_addr to it.
nn_host() {
    local name=$1 ns=$nn_prefix-$1 out
    [[ $name =~ ^[a-z0-9]{1,11}$ ]] || { echo "nn_host: bad name '$name'" >&2; return 1; }
    nn_addr=10.232.1.$((${#nn_hosts[@]} + 1))
    "$nn_ip" netns add "$ns" || return 1
    nn_hosts+=("$name")
    if ! out=$("$nn_ip" -n "$ns" link set lo up 2>&1 &&
        "$nn_ip" -n "$nn_sw" link add "v-$name" type veth peer name eth0 netns "$ns" 2>&1 &&
        "$nn_ip" -n "$nn_sw" link set "v-$name" master br0 up 2>&1 &&
        "$nn_ip" -n "$ns" addr add "$nn_addr/24" dev eth0 2>&1 &&
        "$nn_ip" -n "$ns" link set eth0 up 2>&1); then
        echo "nn_host $name: $out" >&2
        return 1
    fi
}

# nn_exec NAME CMD...: runs CMD on host NAME (exec: the pid is CMD's).
nn_exec() {
    local ns=$nn_prefix-$1
    shift
    exec "$nn_ip" netns exec "$ns" "$@"
}

# nn_link NAME up|down: host NAME's switch end up or down.
nn_link() {
    "$nn_ip" -n "$nn_sw" link set "v-$1" "$2"
}

# nn_teardown: every process on the hosts killed, the namespaces deleted.
nn_teardown() {
    local i
    for ((i = ${#nn_hosts[@]} - 1; i >= 0; i--)); do
        nn_del "$nn_prefix-${nn_hosts[i]}"
    done
    nn_hosts=()
    [[ -z $nn_sw ]] || nn_del "$nn_sw"
    nn_sw=""
}

# nn_spawn DIR HOST LINE -- ARGV...: starts ARGV on HOST in its own
# session, its log DIR/logs/NAME.log, and appends LINE and the pid to the
# cluster file.
nn_spawn() {
    local dir=$1 host=$2 line=$3
    shift 4
    setsid "$nn_ip" netns exec "$nn_prefix-$host" "$@" \
        >>"$dir/logs/$host.log" 2>&1 </dev/null &
    echo "$line $!" >>"$dir/cluster"
}

# nn_check_advertised DIR N: 0 if each of the N daemons of the cluster in
# DIR advertises (daemon.advertised in its status, asked from host fe)
# the endpoint it was reached at, its host's address; else 1, and what
# each advertises on stderr.
nn_check_advertised() {
    local dir=$1 want=$2 adv
    # shellcheck disable=SC2154 # the runner's
    adv=$( (nn_exec fe "$skylark" cluster status --json --dir "$dir") 2>&1 || true)
    awk -F'"' -v want="$want" '
        $2 == "address" { at = $4 }
        $2 == "daemon.advertised" { n++; if ($4 != at) bad = bad " " at " advertises \"" $4 "\"" }
        END {
            if (n != want || bad != "") {
                printf "nn_cluster_up: %d of %d daemons say what they advertise;%s\n", n, want, bad > "/dev/stderr"
                exit 1
            }
        }' <<<"$adv"
}

# nn_cluster_up DIR NODES SLOTS FLOWD LOGLEVEL: see the head of the file.
# Ports are fixed (each host has its own); returns 1 if the cluster does
# not answer within 30 s (the status on stderr) or a daemon advertises
# another endpoint than its host's (nn_check_advertised).
nn_cluster_up() {
    local dir=$1 nodes=$2 slots=$3 flowd=$4 level=$5 i
    # shellcheck disable=SC2154 # the runner's
    local bin=$build key=$dir/cluster.key flowd_ep="" s0 s1
    mkdir -p "$dir/logs"
    "$skylark" key new "$key" >/dev/null || return 1
    echo "# a Skylark cluster across network namespaces (scripts/faults): kind, name, endpoint, pid" >"$dir/cluster"
    local common=(--log-level "$level" --key-file "$key")
    if [[ $flowd = 1 ]]; then
        nn_host flowd || return 1
        flowd_ep=tcp://$nn_addr:7072
        nn_spawn "$dir" flowd "flowd flowd $flowd_ep" -- "$bin/flowcore/flowd/skylark-flowd" \
            --listen "$flowd_ep" --name flowd "${common[@]}"
    fi
    local fl=()
    [[ -z $flowd_ep ]] || fl=(--flowd "$flowd_ep")
    nn_host sched0 || return 1
    s0=tcp://$nn_addr:7070
    nn_host sched1 || return 1
    s1=tcp://$nn_addr:7070
    nn_spawn "$dir" sched0 "scheduler sched0 $s0" -- "$bin/scheduler/skylark-sched" \
        --listen "$s0" --name sched0 --id 1 "${fl[@]}" "${common[@]}"
    nn_spawn "$dir" sched1 "scheduler sched1 $s1" -- "$bin/scheduler/skylark-sched" \
        --listen "$s1" --name sched1 --id 2 "${fl[@]}" "${common[@]}"
    for ((i = 0; i < nodes; i++)); do
        nn_host "n$i" || return 1
        nn_spawn "$dir" "n$i" "nodemon n$i tcp://$nn_addr:7071" -- "$bin/nodemon/skylark-nodemon" \
            --listen "tcp://$nn_addr:7071" --name "n$i" --id $((i + 3)) "${fl[@]}" "${common[@]}" \
            --slots "$slots" --set cmdexec.allow_root=yes --scheduler "$s0" --scheduler "$s1"
    done
    nn_host fe || return 1
    # Up when every daemon answers the frontend's host, the schedulers
    # and flowd with every node monitor.
    local st end=$((SECONDS + 30))
    while ((SECONDS < end)); do
        st=$( (nn_exec fe "$skylark" cluster status --dir "$dir") 2>&1 || true)
        if awk -v n="$nodes" '
            $1 == "scheduler" || $1 == "nodemon" || $1 == "flowd" {
                all++
                if ($5 == "up") up++
                if ($1 == "scheduler" && $6 == n && $7 == "node") ready++
                if ($1 == "flowd" && $6 == n && $7 ~ /^nodes/) ready++
                if ($1 != "nodemon") want++
            }
            END { exit !(all > 0 && up == all && ready == want) }' <<<"$st"; then
            nn_check_advertised "$dir" "$((nodes + 2 + flowd))"
            return
        fi
        sleep 0.2
    done
    echo "nn_cluster_up: the cluster across namespaces is not up in 30 s:" >&2
    echo "$st" >&2
    return 1
}

# nn_cut NAME SECONDS: host NAME cut off (its link down) for SECONDS s,
# then back.
nn_cut() {
    nn_link "$1" down
    sleep "$2"
    nn_link "$1" up
}
