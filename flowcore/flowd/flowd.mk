# The flow node's sans-I/O core (fd_): cluster state, jobs and tasks,
# rounds, actions, status and the policies (cost models), as a noinst
# library the daemon shell and the simulator link. flowd -> libflowcore and
# flowd -> libskylark, never back.

noinst_LTLIBRARIES += flowcore/flowd/libflowd.la
noinst_HEADERS += \
	flowcore/flowd/fd_constraint.h \
	flowcore/flowd/fd_constraint_int.h \
	flowcore/flowd/fd_core.h \
	flowcore/flowd/fd_int.h \
	flowcore/flowd/fd_policy.h \
	flowcore/flowd/fd_share.h

flowcore_flowd_libflowd_la_SOURCES = \
	flowcore/flowd/fd_config.c \
	flowcore/flowd/fd_core.c \
	flowcore/flowd/fd_round.c \
	flowcore/flowd/fd_cluster.c \
	flowcore/flowd/fd_directory.c \
	flowcore/flowd/fd_jobs.c \
	flowcore/flowd/fd_grace.c \
	flowcore/flowd/fd_reclaim.c \
	flowcore/flowd/fd_actions.c \
	flowcore/flowd/fd_fast.c \
	flowcore/flowd/fd_sync.c \
	flowcore/flowd/fd_due.c \
	flowcore/flowd/fd_net.c \
	flowcore/flowd/fd_quincy.c \
	flowcore/flowd/fd_spread.c \
	flowcore/flowd/fd_multires.c \
	flowcore/flowd/fd_class.c \
	flowcore/flowd/fd_status.c \
	flowcore/flowd/fd_share.c \
	flowcore/flowd/fd_dump.c \
	flowcore/flowd/fd_constraint_eval.c \
	flowcore/flowd/fd_constraint_flow.c \
	flowcore/flowd/fd_constraint_place.c \
	flowcore/flowd/fd_constraint_spread.c \
	flowcore/flowd/fd_constraint_wait.c \
	flowcore/flowd/fd_constraint_core.c \
	flowcore/flowd/fd_explain.c \
	flowcore/flowd/fd_query_cons.c
flowcore_flowd_libflowd_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/flowcore/flowd
# Its users link libskylark's internals (client/libskylark_impl.la) after
# it: a convenience library added here would be copied into this one.
flowcore_flowd_libflowd_la_LIBADD = flowcore/libflowcore.la

# Tests of the core: driven with messages and times, no sockets.
FD_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/flowcore/flowd
FD_TEST_LDADD = flowcore/flowd/libflowd.la tests/libfctest.a \
	flowcore/libflowcore.la client/libskylark_impl.la tests/libtap.a

noinst_LIBRARIES += tests/libfdtest.a
tests_libfdtest_a_SOURCES = tests/fd_testutil.c tests/fd_testutil.h
tests_libfdtest_a_CPPFLAGS = $(FD_TEST_CPPFLAGS)

check_PROGRAMS += tests/test_fd_core
TESTS += tests/test_fd_core
tests_test_fd_core_SOURCES = tests/test_fd_core.c
tests_test_fd_core_CPPFLAGS = $(FD_TEST_CPPFLAGS)
tests_test_fd_core_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
tests_test_fd_core_LDADD = tests/libfdtest.a $(FD_TEST_LDADD) $(PTHREAD_LIBS)

check_PROGRAMS += tests/test_fd_grace
TESTS += tests/test_fd_grace
tests_test_fd_grace_SOURCES = tests/test_fd_grace.c
tests_test_fd_grace_CPPFLAGS = $(FD_TEST_CPPFLAGS)
tests_test_fd_grace_LDADD = tests/libfdtest.a $(FD_TEST_LDADD)

check_PROGRAMS += tests/test_fd_reclaim
TESTS += tests/test_fd_reclaim
tests_test_fd_reclaim_SOURCES = tests/test_fd_reclaim.c
tests_test_fd_reclaim_CPPFLAGS = $(FD_TEST_CPPFLAGS)
tests_test_fd_reclaim_LDADD = tests/libfdtest.a $(FD_TEST_LDADD)

check_PROGRAMS += tests/test_fd_fast
TESTS += tests/test_fd_fast
tests_test_fd_fast_SOURCES = tests/test_fd_fast.c
tests_test_fd_fast_CPPFLAGS = $(FD_TEST_CPPFLAGS)
tests_test_fd_fast_LDADD = tests/libfdtest.a $(FD_TEST_LDADD)

check_PROGRAMS += tests/test_fd_policy
TESTS += tests/test_fd_policy
tests_test_fd_policy_SOURCES = tests/test_fd_policy.c
tests_test_fd_policy_CPPFLAGS = $(FD_TEST_CPPFLAGS)
tests_test_fd_policy_LDADD = tests/libfdtest.a $(FD_TEST_LDADD)

check_PROGRAMS += tests/test_fd_due
TESTS += tests/test_fd_due
tests_test_fd_due_SOURCES = tests/test_fd_due.c
tests_test_fd_due_CPPFLAGS = $(FD_TEST_CPPFLAGS)
tests_test_fd_due_LDADD = $(FD_TEST_LDADD)

check_PROGRAMS += tests/test_fd_net
TESTS += tests/test_fd_net
tests_test_fd_net_SOURCES = tests/test_fd_net.c
tests_test_fd_net_CPPFLAGS = $(FD_TEST_CPPFLAGS)
tests_test_fd_net_LDADD = $(FD_TEST_LDADD)

check_PROGRAMS += tests/test_fd_property
TESTS += tests/test_fd_property
tests_test_fd_property_SOURCES = tests/test_fd_property.c
tests_test_fd_property_CPPFLAGS = $(FD_TEST_CPPFLAGS)
tests_test_fd_property_LDADD = tests/libfdtest.a $(FD_TEST_LDADD)

# Placement constraints (fd_constraint*.c) against MEDEA's integer program
# solved by GLPK's glpsol (tests/medea_lp.c; skipped without glpsol).
noinst_LIBRARIES += tests/libmedea.a
tests_libmedea_a_SOURCES = tests/medea_lp.c tests/medea_lp.h
tests_libmedea_a_CPPFLAGS = $(FD_TEST_CPPFLAGS)

check_PROGRAMS += tests/test_fd_constraint
TESTS += tests/test_fd_constraint
tests_test_fd_constraint_SOURCES = tests/test_fd_constraint.c
tests_test_fd_constraint_CPPFLAGS = $(FD_TEST_CPPFLAGS)
tests_test_fd_constraint_LDADD = tests/libmedea.a tests/libfdtest.a \
	$(FD_TEST_LDADD)

# The queries flowd answers (flow-dump, explain, jobs), the dump
# re-solved by `skylark solve` (the tool, when built) and LEMON.
check_PROGRAMS += tests/test_fd_query
TESTS += tests/test_fd_query
tests_test_fd_query_SOURCES = tests/test_fd_query.c
tests_test_fd_query_CPPFLAGS = $(FD_TEST_CPPFLAGS)
tests_test_fd_query_LDADD = tests/libfdtest.a tests/libcli_run.a \
	$(FD_TEST_LDADD)
EXTRA_tests_test_fd_query_DEPENDENCIES = cli/skylark

# The users summaries of the heartbeats and the query `users`.
check_PROGRAMS += tests/test_fd_share
TESTS += tests/test_fd_share
tests_test_fd_share_SOURCES = tests/test_fd_share.c
tests_test_fd_share_CPPFLAGS = $(FD_TEST_CPPFLAGS)
tests_test_fd_share_LDADD = tests/libfdtest.a $(FD_TEST_LDADD)
