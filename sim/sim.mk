# skylark-sim: the discrete-event simulator that drives the real scheduler
# and node monitor cores (and models of other strategies) at 10,000-node
# scale, its job-file converter for the Google trace, and its tests
# (docs/results/sparrow.md). The simulator is built and installed by `make`; make check
# runs only its tests, which are small.

SIM_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/scheduler \
	-I$(top_srcdir)/nodemon -I$(top_srcdir)/sim \
	-I$(top_srcdir)/flowcore -I$(top_srcdir)/flowcore/flowd

# Everything but main(), for the binary and the tests.
noinst_LTLIBRARIES += sim/libsim.la
sim_libsim_la_SOURCES = \
	sim/sim.h \
	sim/sim_engine.c \
	sim/sim_cons.c sim/sim_cons.h \
	sim/sim_evq.c sim/sim_evq.h \
	sim/sim_flow.c sim/sim_flow.h \
	sim/sim_jobmap.c sim/sim_jobmap.h \
	sim/sim_loc.c sim/sim_loc.h \
	sim/sim_models.c \
	sim/sim_msg.c sim/sim_msg.h \
	sim/sim_omni.c \
	sim/sim_par.c sim/sim_par.h \
	sim/sim_plot.c sim/sim_plot.h \
	sim/sim_real.c \
	sim/sim_report.c sim/sim_report.h \
	sim/sim_stats.c sim/sim_stats.h \
	sim/sim_theory.c sim/sim_theory.h \
	sim/sim_work.c sim/sim_work.h
sim_libsim_la_CPPFLAGS = $(SIM_CPPFLAGS)
sim_libsim_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
sim_libsim_la_LIBADD = scheduler/libsched.la nodemon/libnodemon.la \
	flowcore/flowd/libflowd.la flowcore/libflowcore.la \
	client/libskylark_impl.la -lm $(PTHREAD_LIBS)

bin_PROGRAMS += sim/skylark-sim
sim_skylark_sim_SOURCES = sim/sim_main.c
sim_skylark_sim_CPPFLAGS = $(SIM_CPPFLAGS)
sim_skylark_sim_LDADD = sim/libsim.la

# skylark-trace2jobs: the Google cluster trace as a job file (needs zlib).
if HAVE_ZLIB
bin_PROGRAMS += sim/skylark-trace2jobs
sim_skylark_trace2jobs_SOURCES = sim/trace2jobs.c sim/sim_trace.c \
	sim/sim_trace.h
sim_skylark_trace2jobs_CPPFLAGS = $(SIM_CPPFLAGS) $(ZLIB_CFLAGS)
sim_skylark_trace2jobs_LDADD = $(ZLIB_LIBS)

check_PROGRAMS += tests/test_sim_trace
TESTS += tests/test_sim_trace
tests_test_sim_trace_SOURCES = tests/test_sim_trace.c sim/sim_trace.c
tests_test_sim_trace_CPPFLAGS = $(SIM_CPPFLAGS) $(ZLIB_CFLAGS)
tests_test_sim_trace_LDADD = sim/libsim.la tests/libtap.a $(ZLIB_LIBS)
endif

# Tests: each links the simulator's library.
SIM_TEST_LDADD = sim/libsim.la tests/libtap.a

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
check_PROGRAMS += tests/test_sim_flow
TESTS += tests/test_sim_flow
tests_test_sim_flow_SOURCES = tests/test_sim_flow.c tests/sim_testrun.c \
	tests/sim_testrun.h
tests_test_sim_flow_CPPFLAGS = $(SIM_CPPFLAGS)
tests_test_sim_flow_LDADD = $(SIM_TEST_LDADD)
check_PROGRAMS += tests/test_sim_loc
TESTS += tests/test_sim_loc
tests_test_sim_loc_SOURCES = tests/test_sim_loc.c tests/sim_testrun.c \
	tests/sim_testrun.h
tests_test_sim_loc_CPPFLAGS = $(SIM_CPPFLAGS)
tests_test_sim_loc_LDADD = $(SIM_TEST_LDADD)
check_PROGRAMS += tests/test_sim_theory tests/test_sim_cli
TESTS += tests/test_sim_theory tests/test_sim_cli
tests_test_sim_theory_SOURCES = tests/test_sim_theory.c
tests_test_sim_theory_CPPFLAGS = $(SIM_CPPFLAGS)
tests_test_sim_theory_LDADD = $(SIM_TEST_LDADD)
tests_test_sim_cli_SOURCES = tests/test_sim_cli.c
tests_test_sim_cli_LDADD = tests/libtap.a
