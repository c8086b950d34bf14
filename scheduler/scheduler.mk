# The scheduler core (sans-I/O batch sampling with late binding) as a
# convenience library for the skylark-sched daemon and the simulator, and
# its unit tests.

noinst_LTLIBRARIES += scheduler/libsched.la
scheduler_libsched_la_SOURCES = \
	scheduler/sched_auth.c \
	scheduler/sched_admin.c \
	scheduler/sched_core.c \
	scheduler/sched_flow.c \
	scheduler/sched_core.h \
	scheduler/sched_config.c \
	scheduler/sched_int.h \
	scheduler/sched_jobs.c \
	scheduler/sched_offers.c \
	scheduler/sched_nodes.c \
	scheduler/sched_prefetch.c \
	scheduler/sched_status.c \
	scheduler/sched_users.c
# Its users link client/libskylark_impl.la after it: a convenience library
# added to another is copied into it, and the simulator links both cores.
scheduler_libsched_la_LIBADD = -lm

SCHED_TEST_LDADD = scheduler/libsched.la $(SK_TEST_LDADD)

SCHED_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/scheduler
SCHED_TEST_UTIL = tests/sched_testutil.c tests/sched_testutil.h

check_PROGRAMS += tests/test_sched_sampling tests/test_sched_core \
	tests/test_sched_property tests/test_sched_flow tests/test_sched_status \
	tests/test_sched_offers
TESTS += tests/test_sched_sampling tests/test_sched_core \
	tests/test_sched_property tests/test_sched_flow tests/test_sched_status \
	tests/test_sched_offers
tests_test_sched_sampling_SOURCES = tests/test_sched_sampling.c $(SCHED_TEST_UTIL)
tests_test_sched_sampling_CPPFLAGS = $(SCHED_TEST_CPPFLAGS)
tests_test_sched_sampling_LDADD = $(SCHED_TEST_LDADD)
tests_test_sched_core_SOURCES = tests/test_sched_core.c $(SCHED_TEST_UTIL)
tests_test_sched_core_CPPFLAGS = $(SCHED_TEST_CPPFLAGS)
tests_test_sched_core_LDADD = $(SCHED_TEST_LDADD)
tests_test_sched_status_SOURCES = tests/test_sched_status.c $(SCHED_TEST_UTIL)
tests_test_sched_status_CPPFLAGS = $(SCHED_TEST_CPPFLAGS)
tests_test_sched_status_LDADD = $(SCHED_TEST_LDADD)
tests_test_sched_offers_SOURCES = tests/test_sched_offers.c $(SCHED_TEST_UTIL)
tests_test_sched_offers_CPPFLAGS = $(SCHED_TEST_CPPFLAGS)
tests_test_sched_offers_LDADD = $(SCHED_TEST_LDADD)
tests_test_sched_flow_SOURCES = tests/test_sched_flow.c $(SCHED_TEST_UTIL)
tests_test_sched_flow_CPPFLAGS = $(SCHED_TEST_CPPFLAGS)
tests_test_sched_flow_LDADD = $(SCHED_TEST_LDADD)
tests_test_sched_property_SOURCES = tests/test_sched_property.c $(SCHED_TEST_UTIL)
tests_test_sched_property_CPPFLAGS = $(SCHED_TEST_CPPFLAGS)
tests_test_sched_property_LDADD = $(SCHED_TEST_LDADD)
