# The daemon shell shared by skylark-sched and skylark-nodemon (sk_daemon:
# link, peer map, outbox, timer, signals; sk_daemon_opts: shared settings
# and the command line). An uninstalled convenience library: it is not part
# of libskylark, which frameworks link.

DAEMON_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon

noinst_LTLIBRARIES += daemon/libskdaemon.la
daemon_libskdaemon_la_SOURCES = \
	daemon/sk_daemon.c daemon/sk_daemon.h \
	daemon/sk_daemon_opts.c daemon/sk_daemon_opts.h \
	daemon/sk_advertise.c daemon/sk_advertise.h \
	daemon/sk_peermap.c daemon/sk_peermap.h
daemon_libskdaemon_la_CPPFLAGS = $(DAEMON_CPPFLAGS)
daemon_libskdaemon_la_CFLAGS = $(AM_CFLAGS) $(NANOMSG_CFLAGS) $(MSGPACK_CFLAGS)
