# Integration tests: real skylark-sched and skylark-nodemon processes on
# loopback (tests/daemon_harness.c starts them and plays frontend and
# status tool), and the unit test of the node monitor's command executor.

noinst_LIBRARIES += tests/libdaemon_harness.a
tests_libdaemon_harness_a_SOURCES = tests/daemon_harness.c tests/daemon_harness.h

DH_TEST_LDADD = tests/libdaemon_harness.a $(SK_TRANSPORT_TEST_LDADD)

# The daemons must be built before these tests run.
DH_TEST_DEPS = scheduler/skylark-sched nodemon/skylark-nodemon

check_PROGRAMS += tests/test_integration
TESTS += tests/test_integration
tests_test_integration_SOURCES = tests/test_integration.c
tests_test_integration_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_integration_DEPENDENCIES = $(DH_TEST_DEPS)

check_PROGRAMS += tests/test_cmdexec
TESTS += tests/test_cmdexec
tests_test_cmdexec_SOURCES = tests/test_cmdexec.c
tests_test_cmdexec_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nodemon \
	-DSK_TEST_KEEPER='"$(abs_top_builddir)/nodemon/skylark-keeper"'
tests_test_cmdexec_LDADD = nodemon/libcmdexec.la $(SK_TRANSPORT_TEST_LDADD)

check_PROGRAMS += tests/test_integration_fail
TESTS += tests/test_integration_fail
tests_test_integration_fail_SOURCES = tests/test_integration_fail.c
tests_test_integration_fail_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_integration_fail_DEPENDENCIES = $(DH_TEST_DEPS)

check_PROGRAMS += tests/test_daemon_hostile
TESTS += tests/test_daemon_hostile
tests_test_daemon_hostile_SOURCES = tests/test_daemon_hostile.c
tests_test_daemon_hostile_CFLAGS = $(AM_CFLAGS) $(NANOMSG_CFLAGS)
tests_test_daemon_hostile_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_daemon_hostile_DEPENDENCIES = $(DH_TEST_DEPS)

check_PROGRAMS += tests/test_daemon_cli
TESTS += tests/test_daemon_cli
tests_test_daemon_cli_SOURCES = tests/test_daemon_cli.c
tests_test_daemon_cli_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_daemon_cli_DEPENDENCIES = $(DH_TEST_DEPS)

check_PROGRAMS += tests/test_daemon_util
TESTS += tests/test_daemon_util
tests_test_daemon_util_SOURCES = tests/test_daemon_util.c
tests_test_daemon_util_CPPFLAGS = $(DAEMON_CPPFLAGS)
tests_test_daemon_util_LDADD = daemon/libskdaemon.la $(SK_TEST_LDADD)

check_PROGRAMS += tests/test_integration_multi
TESTS += tests/test_integration_multi
tests_test_integration_multi_SOURCES = tests/test_integration_multi.c
tests_test_integration_multi_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_integration_multi_DEPENDENCIES = $(DH_TEST_DEPS)

check_PROGRAMS += tests/test_integration_slow
TESTS += tests/test_integration_slow
tests_test_integration_slow_SOURCES = tests/test_integration_slow.c
tests_test_integration_slow_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_integration_slow_DEPENDENCIES = $(DH_TEST_DEPS)

# An authenticated cluster from outside: keys, refusals, the real tool.
check_PROGRAMS += tests/test_auth_cluster
TESTS += tests/test_auth_cluster
tests_test_auth_cluster_SOURCES = tests/test_auth_cluster.c
tests_test_auth_cluster_LDADD = $(DH_TEST_LDADD)

# Users of an authenticated cluster: tokens, roles, who sees what.
check_PROGRAMS += tests/test_auth_users
TESTS += tests/test_auth_users
tests_test_auth_users_SOURCES = tests/test_auth_users.c
tests_test_auth_users_LDADD = $(DH_TEST_LDADD)

# Multi-host tests: each daemon on a host of its own, a network namespace
# joined to a bridge (tests/netns.c; docs/TESTING.md). Skipped where the
# machine does not allow namespaces (not root, no ip, a container).
noinst_LIBRARIES += tests/libnetns.a
tests_libnetns_a_SOURCES = tests/netns.c tests/netns.h

NETNS_TEST_LDADD = tests/libnetns.a $(DH_TEST_LDADD)
NETNS_TEST_DEPS = $(DH_TEST_DEPS) cli/skylark

check_PROGRAMS += tests/test_netns_hosts
TESTS += tests/test_netns_hosts
tests_test_netns_hosts_SOURCES = tests/test_netns_hosts.c
tests_test_netns_hosts_LDADD = $(NETNS_TEST_LDADD)
EXTRA_tests_test_netns_hosts_DEPENDENCIES = $(NETNS_TEST_DEPS)

check_PROGRAMS += tests/test_netns_partition
TESTS += tests/test_netns_partition
tests_test_netns_partition_SOURCES = tests/test_netns_partition.c
tests_test_netns_partition_LDADD = $(NETNS_TEST_LDADD)
EXTRA_tests_test_netns_partition_DEPENDENCIES = $(NETNS_TEST_DEPS)

# A frontend's scheduler killed mid-job: the job fails over (libskylark,
# and `skylark run` with two schedulers).
check_PROGRAMS += tests/test_integration_failover
TESTS += tests/test_integration_failover
tests_test_integration_failover_SOURCES = tests/test_integration_failover.c
tests_test_integration_failover_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_integration_failover_DEPENDENCIES = $(DH_TEST_DEPS) cli/skylark

check_PROGRAMS += tests/test_faults_orphans
TESTS += tests/test_faults_orphans
tests_test_faults_orphans_SOURCES = tests/test_faults_orphans.c
tests_test_faults_orphans_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_faults_orphans_DEPENDENCIES = $(DH_TEST_DEPS) cli/skylark

# What the shell tests of local clusters share (sourced, not run).
EXTRA_DIST += tests/tap.sh

# The reduced fault runner (scripts/faults, about 80 s): local clusters.
TESTS += tests/test_faults.sh
dist_check_SCRIPTS += tests/test_faults.sh
TESTS += tests/test_nm_journal_restart.sh
dist_check_SCRIPTS += tests/test_nm_journal_restart.sh
TESTS += tests/test_cli_one_slot.sh
dist_check_SCRIPTS += tests/test_cli_one_slot.sh

# skylark executor on a local cluster (about 10 s): refusals, run
# --framework, a cancel, a SIGKILL that takes its tasks with it.
TESTS += tests/test_cli_executor.sh
dist_check_SCRIPTS += tests/test_cli_executor.sh

# Its flow rows (about 70 s): flowd killed and stopped, a scheduler
# stopped, while long tasks run.
TESTS += tests/test_faults_flowd.sh
dist_check_SCRIPTS += tests/test_faults_flowd.sh
# Its partition rows (about 60 s): a scheduler's, a node monitor's and
# flowd's host cut off, each daemon on a host of its own (network
# namespaces; skipped where the machine does not allow them).
TESTS += tests/test_faults_part.sh
dist_check_SCRIPTS += tests/test_faults_part.sh
# The fault tests take turns through this lock (see any).
CLEANFILES += tests/faults.lock
