# bench/solver: flowcore's min-cost flow algorithms against LEMON's on
# generated scheduling graphs (bench/README.md). Built by `make` when LEMON
# is present; run by hand, never by `make check`.

EXTRA_DIST += bench/README.md

if HAVE_LEMON
noinst_PROGRAMS += bench/solver
bench_solver_SOURCES = \
	bench/solver.cc \
	bench/solver_fc.c bench/solver_fc.h \
	bench/gen_quincy.c bench/gen_quincy.h \
	client/sk_rng.c
bench_solver_CPPFLAGS = $(AM_CPPFLAGS) $(LEMON_CFLAGS)
bench_solver_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
bench_solver_CXXFLAGS = $(AM_CXXFLAGS) $(PTHREAD_CFLAGS)
# The seeded generator is compiled in rather than linking all of
# libskylark (and its network dependencies) for it.
bench_solver_LDADD = flowcore/libflowcore.la $(LEMON_LIBS) $(PTHREAD_LIBS) -lm
endif

# The generator's own test (it needs flowcore, not LEMON).
check_PROGRAMS += tests/test_gen_quincy
TESTS += tests/test_gen_quincy
tests_test_gen_quincy_SOURCES = tests/test_gen_quincy.c \
	bench/gen_quincy.c bench/gen_quincy.h \
	bench/solver_fc.c bench/solver_fc.h \
	client/sk_rng.c
tests_test_gen_quincy_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench
tests_test_gen_quincy_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
tests_test_gen_quincy_LDADD = flowcore/libflowcore.la tests/libtap.a \
	$(PTHREAD_LIBS) -lm
