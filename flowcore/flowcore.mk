# libflowcore: the graph, the solve entry point, successive shortest path,
# DIMACS I/O and placement extraction. The other solvers have their own
# fragments (costscale.mk, relax.mk).
#
# The objects are compiled with -fvisibility=hidden into a convenience
# library, libflowcore_impl.la; the installed libflowcore.la is that
# library whole, and exports only the functions flowcore.h marks FC_API.
# Programs that call internal functions (a solver directly, the scratch
# allocator) link libflowcore_impl.la; everything else links the shared
# library, as users do.

lib_LTLIBRARIES += flowcore/libflowcore.la
noinst_LTLIBRARIES += flowcore/libflowcore_impl.la
include_HEADERS += flowcore/flowcore.h
noinst_HEADERS += flowcore/fc_graph_impl.h
pkgconfig_DATA += flowcore/flowcore.pc
EXTRA_DIST += flowcore/flowcore.pc.in

flowcore_libflowcore_impl_la_SOURCES = \
	flowcore/fc_graph.c \
	flowcore/fc_solve.c \
	flowcore/fc_ssp.c \
	flowcore/fc_dimacs.c \
	flowcore/fc_placement.c
flowcore_libflowcore_impl_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS) \
	-fvisibility=hidden
flowcore_libflowcore_impl_la_LIBADD = $(PTHREAD_LIBS)

flowcore_libflowcore_la_SOURCES =
flowcore_libflowcore_la_LIBADD = flowcore/libflowcore_impl.la
flowcore_libflowcore_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(FC_LT_VERSION)

# Tests of libflowcore link the library and the TAP helper; tests that
# reach into internals (fc_graph_impl.h) link FC_TEST_IMPL_LDADD instead.
FC_TEST_LDADD = tests/libfctest.a flowcore/libflowcore.la tests/libtap.a
FC_TEST_IMPL_LDADD = tests/libfctest.a flowcore/libflowcore_impl.la \
	tests/libtap.a

check_PROGRAMS += tests/test_fc_ssp
TESTS += tests/test_fc_ssp
tests_test_fc_ssp_SOURCES = tests/test_fc_ssp.c
tests_test_fc_ssp_LDADD = $(FC_TEST_LDADD)

# Helpers shared by the flowcore tests (random networks, the LEMON runner,
# the flow checker); the solver fragments link it too.
noinst_LIBRARIES += tests/libfctest.a
tests_libfctest_a_SOURCES = tests/fc_testutil.c tests/fc_testutil.h

check_PROGRAMS += tests/test_fc_property
TESTS += tests/test_fc_property
tests_test_fc_property_SOURCES = tests/test_fc_property.c
tests_test_fc_property_LDADD = $(FC_TEST_LDADD)

check_PROGRAMS += tests/test_fc_dimacs
TESTS += tests/test_fc_dimacs
tests_test_fc_dimacs_SOURCES = tests/test_fc_dimacs.c
tests_test_fc_dimacs_LDADD = $(FC_TEST_LDADD)

check_PROGRAMS += tests/test_fc_flowlessly
TESTS += tests/test_fc_flowlessly
tests_test_fc_flowlessly_SOURCES = tests/test_fc_flowlessly.c
tests_test_fc_flowlessly_LDADD = $(FC_TEST_LDADD)

check_PROGRAMS += tests/test_fc_incremental
TESTS += tests/test_fc_incremental
tests_test_fc_incremental_SOURCES = tests/test_fc_incremental.c
tests_test_fc_incremental_LDADD = $(FC_TEST_LDADD)

check_PROGRAMS += tests/test_fc_graph
TESTS += tests/test_fc_graph
tests_test_fc_graph_SOURCES = tests/test_fc_graph.c
tests_test_fc_graph_LDADD = $(FC_TEST_LDADD)

check_PROGRAMS += tests/test_fc_placement
TESTS += tests/test_fc_placement
tests_test_fc_placement_SOURCES = tests/test_fc_placement.c
tests_test_fc_placement_LDADD = $(FC_TEST_IMPL_LDADD)

if ENABLE_FUZZING
# The DIMACS reader under libFuzzer (`make fuzz`, see fuzz/fuzz.mk); seeds
# in fuzz/corpus/fuzz_dimacs/.
noinst_PROGRAMS += fuzz/fuzz_dimacs
fuzz_fuzz_dimacs_SOURCES = fuzz/fuzz_dimacs.c
fuzz_fuzz_dimacs_LDADD = flowcore/libflowcore.la
fuzz_fuzz_dimacs_LDFLAGS = $(FUZZER_LINK)
endif

check_PROGRAMS += tests/test_fc_limits
TESTS += tests/test_fc_limits
tests_test_fc_limits_SOURCES = tests/test_fc_limits.c
tests_test_fc_limits_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
tests_test_fc_limits_LDADD = $(FC_TEST_LDADD) $(PTHREAD_LIBS)

# The shared library exports exactly the FC_API functions of flowcore.h.
dist_check_SCRIPTS += tests/test_fc_exports.sh
TESTS += tests/test_fc_exports.sh

# flowcore.h as C++: compiled in strict C++11 whatever --enable-werror
# says (a warning in the header is a failure of this test), linked like
# any C++ user of the library.
check_PROGRAMS += tests/test_fc_cxx
TESTS += tests/test_fc_cxx
tests_test_fc_cxx_SOURCES = tests/test_fc_cxx.cc
tests_test_fc_cxx_CXXFLAGS = -std=c++11 -Wall -Wextra -Werror -pedantic \
	$(SAN_FLAGS)
tests_test_fc_cxx_LDADD = flowcore/libflowcore.la
