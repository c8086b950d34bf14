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
