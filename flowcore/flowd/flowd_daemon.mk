# skylark-flowd, the flow node daemon: the core (libflowd, flowd.mk) in the
# daemon shell (daemon/daemon.mk), with one solver thread; and its
# integration test on loopback with real schedulers and node monitors.

# Linked with libskylark statically, like skylark-sched (no wrapper
# script: tests and `skylark cluster up` signal the daemon itself).
bin_PROGRAMS += flowcore/flowd/skylark-flowd
flowcore_flowd_skylark_flowd_SOURCES = flowcore/flowd/fd_main.c \
	flowcore/flowd/fd_metrics.c flowcore/flowd/fd_metrics.h
flowcore_flowd_skylark_flowd_CPPFLAGS = $(DAEMON_CPPFLAGS) \
	-I$(top_srcdir)/flowcore/flowd
flowcore_flowd_skylark_flowd_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
flowcore_flowd_skylark_flowd_LDFLAGS = $(AM_LDFLAGS) -static
flowcore_flowd_skylark_flowd_LDADD = flowcore/flowd/libflowd.la \
	daemon/libskdaemon.la flowcore/libflowcore.la client/libskylark_impl.la \
	$(EV_LIBS) $(PTHREAD_LIBS)

check_PROGRAMS += tests/test_integration_flowd
TESTS += tests/test_integration_flowd
tests_test_integration_flowd_SOURCES = tests/test_integration_flowd.c
tests_test_integration_flowd_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_integration_flowd_DEPENDENCIES = $(DH_TEST_DEPS) \
	flowcore/flowd/skylark-flowd

# A scheduler stopped past the heartbeat bound: flowd's sched_grace_ms.
check_PROGRAMS += tests/test_integration_flowgrace
TESTS += tests/test_integration_flowgrace
tests_test_integration_flowgrace_SOURCES = tests/test_integration_flowgrace.c
tests_test_integration_flowgrace_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_integration_flowgrace_DEPENDENCIES = $(DH_TEST_DEPS) \
	flowcore/flowd/skylark-flowd

# A node monitor flowd wrote off comes back: its long tasks taken back.
check_PROGRAMS += tests/test_integration_flowreturn
TESTS += tests/test_integration_flowreturn
tests_test_integration_flowreturn_SOURCES = tests/test_integration_flowreturn.c
tests_test_integration_flowreturn_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_integration_flowreturn_DEPENDENCIES = $(DH_TEST_DEPS) \
	flowcore/flowd/skylark-flowd

check_PROGRAMS += tests/test_integration_hybrid
TESTS += tests/test_integration_hybrid
tests_test_integration_hybrid_SOURCES = tests/test_integration_hybrid.c
tests_test_integration_hybrid_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_integration_hybrid_DEPENDENCIES = $(DH_TEST_DEPS) \
	flowcore/flowd/skylark-flowd
