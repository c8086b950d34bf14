# skylark-sim: the discrete-event simulator that drives the real scheduler
# and node monitor cores (and models of other strategies) at 10,000-node
# scale, its job-file converter for the Google trace, and its tests
# (docs/results/sparrow.md). The simulator is built by `make`; make check
# runs only its tests, which are small.

SIM_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/scheduler \
	-I$(top_srcdir)/nodemon -I$(top_srcdir)/bench

# Everything but main(), for the binary and the tests.
noinst_LTLIBRARIES += bench/libsim.la
bench_libsim_la_SOURCES = \
	bench/sim.h \
	bench/sim_engine.c \
	bench/sim_evq.c bench/sim_evq.h \
	bench/sim_models.c \
	bench/sim_msg.c bench/sim_msg.h \
	bench/sim_omni.c \
	bench/sim_par.c bench/sim_par.h \
	bench/sim_plot.c bench/sim_plot.h \
	bench/sim_real.c \
	bench/sim_report.c bench/sim_report.h \
	bench/sim_stats.c bench/sim_stats.h \
	bench/sim_theory.c bench/sim_theory.h \
	bench/sim_work.c bench/sim_work.h
bench_libsim_la_CPPFLAGS = $(SIM_CPPFLAGS)
bench_libsim_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
bench_libsim_la_LIBADD = scheduler/libsched.la nodemon/libnodemon.la \
	client/libskylark.la -lm $(PTHREAD_LIBS)

bin_PROGRAMS += bench/skylark-sim
bench_skylark_sim_SOURCES = bench/sim_main.c
bench_skylark_sim_CPPFLAGS = $(SIM_CPPFLAGS)
bench_skylark_sim_LDADD = bench/libsim.la

# skylark-trace2jobs: the Google cluster trace as a job file (needs zlib).
if HAVE_ZLIB
bin_PROGRAMS += bench/skylark-trace2jobs
bench_skylark_trace2jobs_SOURCES = bench/trace2jobs.c bench/sim_trace.c \
	bench/sim_trace.h
bench_skylark_trace2jobs_CPPFLAGS = $(SIM_CPPFLAGS) $(ZLIB_CFLAGS)
bench_skylark_trace2jobs_LDADD = $(ZLIB_LIBS)

check_PROGRAMS += tests/test_sim_trace
TESTS += tests/test_sim_trace
tests_test_sim_trace_SOURCES = tests/test_sim_trace.c bench/sim_trace.c
tests_test_sim_trace_CPPFLAGS = $(SIM_CPPFLAGS) $(ZLIB_CFLAGS)
tests_test_sim_trace_LDADD = bench/libsim.la tests/libtap.a $(ZLIB_LIBS)
endif

# Tests: each links the simulator's library.
SIM_TEST_LDADD = bench/libsim.la tests/libtap.a

check_PROGRAMS += tests/test_sim_evq tests/test_sim_work tests/test_sim_run
TESTS += tests/test_sim_evq tests/test_sim_work tests/test_sim_run
tests_test_sim_evq_SOURCES = tests/test_sim_evq.c
tests_test_sim_evq_CPPFLAGS = $(SIM_CPPFLAGS)
tests_test_sim_evq_LDADD = $(SIM_TEST_LDADD)
tests_test_sim_work_SOURCES = tests/test_sim_work.c
tests_test_sim_work_CPPFLAGS = $(SIM_CPPFLAGS)
tests_test_sim_work_LDADD = $(SIM_TEST_LDADD)
tests_test_sim_run_SOURCES = tests/test_sim_run.c
tests_test_sim_run_CPPFLAGS = $(SIM_CPPFLAGS)
tests_test_sim_run_LDADD = $(SIM_TEST_LDADD)
check_PROGRAMS += tests/test_sim_theory tests/test_sim_cli
TESTS += tests/test_sim_theory tests/test_sim_cli
tests_test_sim_theory_SOURCES = tests/test_sim_theory.c
tests_test_sim_theory_CPPFLAGS = $(SIM_CPPFLAGS)
tests_test_sim_theory_LDADD = $(SIM_TEST_LDADD)
tests_test_sim_cli_SOURCES = tests/test_sim_cli.c
tests_test_sim_cli_LDADD = tests/libtap.a
