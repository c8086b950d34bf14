# The daemon shell shared by skylark-sched and skylark-nodemon (sk_daemon:
# link, peer map, outbox, timer, signals; sk_daemon_opts: shared settings
# and the command line; sk_metrics, sk_metrics_http: /metrics). An uninstalled convenience library: it is not part
# of libskylark, which frameworks link.

DAEMON_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon

noinst_LTLIBRARIES += daemon/libskdaemon.la
daemon_libskdaemon_la_SOURCES = \
	daemon/sk_daemon.c daemon/sk_daemon.h \
	daemon/sk_daemon_opts.c daemon/sk_daemon_opts.h \
	daemon/sk_metrics.c daemon/sk_metrics.h \
	daemon/sk_metrics_http.c daemon/sk_metrics_http.h \
	daemon/sk_advertise.c daemon/sk_advertise.h \
	daemon/sk_peermap.c daemon/sk_peermap.h
daemon_libskdaemon_la_CPPFLAGS = $(DAEMON_CPPFLAGS)
daemon_libskdaemon_la_CFLAGS = $(AM_CFLAGS) $(NANOMSG_CFLAGS) $(MSGPACK_CFLAGS) \
	$(MHD_CFLAGS) $(SODIUM_CFLAGS) $(PTHREAD_CFLAGS)
# libmicrohttpd serves /metrics (sk_metrics_http.c); its users inherit it.
daemon_libskdaemon_la_LIBADD = $(MHD_LIBS) $(SODIUM_LIBS) $(PTHREAD_LIBS)

# /metrics of the three daemons, scraped on loopback (promtool when
# installed: Debian prometheus).
check_PROGRAMS += tests/test_metrics
TESTS += tests/test_metrics
tests_test_metrics_SOURCES = tests/test_metrics.c tests/http_get.c \
	tests/http_get.h
tests_test_metrics_LDADD = $(DH_TEST_LDADD)
EXTRA_tests_test_metrics_DEPENDENCIES = $(DH_TEST_DEPS) \
	flowcore/flowd/skylark-flowd

# The renderer and the address rules, without sockets.
check_PROGRAMS += tests/test_metrics_render
TESTS += tests/test_metrics_render
tests_test_metrics_render_SOURCES = tests/test_metrics_render.c
tests_test_metrics_render_CPPFLAGS = $(DAEMON_CPPFLAGS)
tests_test_metrics_render_LDADD = daemon/libskdaemon.la $(SK_TEST_LDADD) -lm
