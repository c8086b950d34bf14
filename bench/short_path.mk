# bench/short-path: the short-task path end to end on a local cluster
# (transport floor, scheduling overhead at 10/50/80% load, peak placement
# rate and messages per task). Built by make, run by hand.
noinst_PROGRAMS += bench/short-path
bench_short_path_SOURCES = bench/short_path.c
bench_short_path_CPPFLAGS = $(CLI_CPPFLAGS)
bench_short_path_LDADD = cli/libskcluster.a tests/libtransport_util.a \
	client/libskylark_impl.la $(NANOMSG_LIBS) $(EV_LIBS) -lm
