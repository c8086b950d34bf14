# bench/flowd: the flow node's core driven in virtual time at 12,500 nodes
# with the Google 2011 trace's long jobs, against LEMON from scratch on its
# steady-state network (bench/README.md). Built by `make` when LEMON is
# present; run by hand, never by `make check`.

if HAVE_LEMON
noinst_PROGRAMS += bench/flowd
bench_flowd_SOURCES = bench/flowd.c bench/flowd_lemon.cc bench/flowd_lemon.h
bench_flowd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/flowcore/flowd \
	-I$(top_srcdir)/sim $(LEMON_CFLAGS)
bench_flowd_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
bench_flowd_CXXFLAGS = $(AM_CXXFLAGS) $(PTHREAD_CFLAGS)
bench_flowd_LDADD = flowcore/flowd/libflowd.la sim/libsim.la \
	flowcore/libflowcore.la client/libskylark_impl.la $(LEMON_LIBS) \
	$(PTHREAD_LIBS) -lm
endif
