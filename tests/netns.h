/*
 * netns.h - hosts made of Linux network namespaces, for tests that need
 * daemons on different machines: endpoints other hosts must reach, and
 * real partitions.
 *
 * nh_init makes a switch: a namespace that holds a bridge. Each
 * nh_host_add makes a host: a namespace with loopback up and one
 * interface, eth0, with the address 10.231.X.N/24 (X the subnet the test
 * picks, N the host's number from 1), joined to the bridge by a veth
 * pair. Nothing is made in the machine's own namespace, and no address
 * but those of the test's own hosts is ever used: the bridge is reachable
 * only from the hosts, so tests that pick the same subnet do not meet.
 * Namespaces are named "skn<pid>-sw" and "skn<pid>-<host>", so tests run
 * in parallel do not collide.
 *
 * Clean-up: at exit, and on SIGINT, SIGTERM, SIGHUP, SIGALRM (tap_timeout),
 * SIGABRT and SIGSEGV (then the signal's previous action runs), every
 * process in a host of the test is killed (SIGKILL) and every namespace
 * is deleted, which destroys the veth pairs and the bridge with them.
 * A test killed by SIGKILL leaves its namespaces behind; the next nh_init
 * on the machine deletes those whose pid is gone.
 *
 * Skips: nh_init ends the test with "1..0 # SKIP reason" when it is not
 * root, there is no `ip` command, namespaces are refused (EPERM in a
 * container), or the switch cannot be made; so call it before tap_plan,
 * and after tap_timeout (its SIGALRM handler runs the test's after its
 * own). Later failures (a host that cannot be made) bail out.
 *
 * Costs: every call that changes the network runs `ip` once or a few
 * times (a few ms each). Not thread-safe: call it from the main thread,
 * and nh_enter before any thread exists (nanomsg starts its own).
 */
#ifndef SK_TEST_NETNS_H
#define SK_TEST_NETNS_H

#include "daemon_harness.h"

#include <stdbool.h>
#include <stddef.h>

#define NH_MAX_HOSTS 16

/* One host. */
typedef struct nh_host {
    char nh_name[16];  /* the test's name for it, e.g. "a" */
    char nh_netns[40]; /* its namespace, "skn<pid>-a" */
    char nh_veth[16];  /* its link's end in the switch, "v-a" */
    char nh_addr[24];  /* its address, "10.231.X.N" */
    int nh_fd;         /* the namespace, open (close-on-exec) */
} nh_host;

/* nh_init checks that the machine allows network namespaces, deletes
 * namespaces left by tests that were killed, makes the switch for subnet
 * 10.231.subnet.0/24 (subnet 0-255) and registers the clean-up. Skips the
 * whole test (exit 0) with the reason when the machine does not allow it. */
void nh_init(int subnet);

/* nh_host_add makes host name (1-12 bytes of [a-z0-9]) with the next
 * address. Returns it; bails out on failure. */
nh_host *nh_host_add(const char *name);

/* nh_enter moves the calling process into host h's namespace, so that
 * the test itself (its clients, the programs it starts without nh_spawn)
 * runs on that host. Call it before any thread is started. Bails out on
 * failure. */
void nh_enter(const nh_host *h);

/* nh_spawn starts argv on host h as dh_spawn does (the log in dh_dir(),
 * killed at exit). Returns 0 or -1. */
int nh_spawn(const nh_host *h, dh_proc *p, const char *log_name,
             char *const argv[]);

/* nh_start_sched, nh_start_nodemon: dh_start_sched_at and
 * dh_start_nodemon_at on host h (they wait until the daemon listens). */
int nh_start_sched(const nh_host *h, dh_proc *p, const char *name, int id,
                   const char *listen, const char *const *extra);
int nh_start_nodemon(const nh_host *h, dh_proc *p, const char *name, int id,
                     int slots, const char *listen, const char *const *scheds,
                     int n, const char *const *extra);

/* nh_system runs the shell command line cmd on host h and waits for it.
 * Returns its exit status, 128 + n for death by signal n, -1 if it could
 * not run. */
int nh_system(const nh_host *h, const char *cmd);

/* nh_link takes host h's link down (up false) or up: its veth end in
 * the switch, so that h's packets go nowhere and nothing reaches h, while
 * h's own addresses and routes stay. Returns 0 or -1 (the reason as a
 * TAP diagnostic). */
int nh_link(const nh_host *h, bool up);

/* nh_endpoint writes "tcp://ADDR:port" for h into buf (len bytes, 40
 * are enough) and returns buf. */
char *nh_endpoint(const nh_host *h, int port, char *buf, size_t len);

#endif /* SK_TEST_NETNS_H */
