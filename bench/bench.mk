# Benchmarks: built by make, never run by make check. Each reports ratios
# against an anchor measured in the same run.

# bench/transport: the transport against plain nanomsg on loopback TCP.
noinst_PROGRAMS += bench/transport
bench_transport_SOURCES = bench/transport.c
bench_transport_CFLAGS = $(AM_CFLAGS) $(NANOMSG_CFLAGS)
bench_transport_LDADD = tests/libtransport_util.a client/libskylark_impl.la \
	$(NANOMSG_LIBS) $(EV_LIBS)
include $(top_srcdir)/bench/flowd.mk
