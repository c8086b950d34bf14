# The node monitor: its sans-I/O core (reservation queues, slots, task
# launch, long-task reservations) as a convenience library, and the unit
# tests of the core and of its containers.

noinst_LTLIBRARIES += nodemon/libnodemon.la
nodemon_libnodemon_la_SOURCES = \
	nodemon/nm_config.c nodemon/nm_config.h \
	nodemon/nm_core.c nodemon/nm_core.h \
	nodemon/nm_htab.c nodemon/nm_htab.h \
	nodemon/nm_int.h \
	nodemon/nm_list.h \
	nodemon/nm_orphan.c \
	nodemon/nm_outcome.c \
	nodemon/nm_pool.c nodemon/nm_pool.h \
	nodemon/nm_prefetch.c \
	nodemon/nm_queue.c nodemon/nm_queue.h \
	nodemon/nm_report.c
# Its users link client/libskylark_impl.la after it (see scheduler.mk).

NM_TEST_LDADD = nodemon/libnodemon.la $(SK_TEST_LDADD)

check_PROGRAMS += tests/test_nm_core
TESTS += tests/test_nm_core
tests_test_nm_core_SOURCES = tests/test_nm_core.c
tests_test_nm_core_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nodemon
tests_test_nm_core_LDADD = $(NM_TEST_LDADD)

check_PROGRAMS += tests/test_nm_queue
TESTS += tests/test_nm_queue
tests_test_nm_queue_SOURCES = tests/test_nm_queue.c
tests_test_nm_queue_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nodemon
tests_test_nm_queue_LDADD = $(NM_TEST_LDADD)

check_PROGRAMS += tests/test_nm_htab
TESTS += tests/test_nm_htab
tests_test_nm_htab_SOURCES = tests/test_nm_htab.c
tests_test_nm_htab_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nodemon
tests_test_nm_htab_LDADD = $(NM_TEST_LDADD)

# bench/nm_core: the core's cost per short task against the protocol's
# encode and decode of the same inputs (built by make, run by hand).
noinst_PROGRAMS += bench/nm_core
bench_nm_core_SOURCES = bench/nm_core.c
bench_nm_core_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nodemon
bench_nm_core_LDADD = nodemon/libnodemon.la client/libskylark_impl.la
