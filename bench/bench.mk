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

# bench/dash-share: `skylark dashboard`'s fair-share gathering from every
# node monitor of a local cluster, one at a time (the anchor) against
# several at once and flowd's sums of the heartbeats; then what those
# summaries cost the node monitor and flowd cores per heartbeat. Run by
# hand on a `skylark cluster up --nodes N`.
noinst_PROGRAMS += bench/dash-share
bench_dash_share_SOURCES = bench/dash_share.c bench/dash_share_hb.c \
	bench/dash_share_hb.h cli/dash_share.c cli/dash_kept.c \
	cli/cli_common.c cli/cli_json.c
bench_dash_share_CPPFLAGS = $(CLI_CPPFLAGS) -I$(top_srcdir)/flowcore/flowd \
	-I$(top_srcdir)/nodemon
bench_dash_share_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
bench_dash_share_LDADD = nodemon/libnodemon.la flowcore/flowd/libflowd.la \
	flowcore/libflowcore.la \
	cli/libskcluster.a client/libskylark_impl.la \
	$(EV_LIBS) $(PTHREAD_LIBS) -lm

# bench/launch: a command task's launch with a cgroup per task against
# without (root and a cgroup v2 mount).
noinst_PROGRAMS += bench/launch
bench_launch_SOURCES = bench/launch.c
bench_launch_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nodemon
bench_launch_LDADD = nodemon/libcmdexec.la client/libskylark_impl.la $(EV_LIBS)

# bench/medea_round: one constrained application's cost in a flowd round.
noinst_PROGRAMS += bench/medea_round
bench_medea_round_SOURCES = bench/medea_round.c
bench_medea_round_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/flowcore/flowd \
	-I$(top_srcdir)/tests
bench_medea_round_LDADD = tests/libfdtest.a flowcore/flowd/libflowd.la \
	flowcore/libflowcore.la client/libskylark_impl.la tests/libtap.a
