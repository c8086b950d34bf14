# Benchmarks: built by make, never run by make check. Each reports ratios
# against an anchor measured in the same run.

# bench/transport: the transport against plain nanomsg on loopback TCP.
noinst_PROGRAMS += bench/transport
bench_transport_SOURCES = bench/transport.c
bench_transport_CFLAGS = $(AM_CFLAGS) $(NANOMSG_CFLAGS)
bench_transport_LDADD = tests/libtransport_util.a client/libskylark_impl.la \
	$(NANOMSG_LIBS) $(EV_LIBS)
include $(top_srcdir)/bench/flowd.mk

# bench/medea: placement constraints against GLPK's optimum (glpsol).
noinst_PROGRAMS += bench/medea
bench_medea_SOURCES = bench/medea.c
bench_medea_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/flowcore/flowd \
	-I$(top_srcdir)/tests
bench_medea_LDADD = tests/libmedea.a flowcore/flowd/libflowd.la \
	flowcore/libflowcore.la client/libskylark_impl.la

# bench/medea_round: one constrained application's cost in a flowd round.
noinst_PROGRAMS += bench/medea_round
bench_medea_round_SOURCES = bench/medea_round.c
bench_medea_round_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/flowcore/flowd \
	-I$(top_srcdir)/tests
bench_medea_round_LDADD = tests/libfdtest.a flowcore/flowd/libflowd.la \
	flowcore/libflowcore.la client/libskylark_impl.la tests/libtap.a
