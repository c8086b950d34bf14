# skylark-sched, the scheduler daemon, and the daemon shell it shares with
# skylark-nodemon (sk_daemon: link, peer map, outbox, timer, signals;
# sk_daemon_opts: shared settings and the command line), which joins
# libskylark here.

client_libskylark_la_SOURCES += \
	client/sk_daemon.c \
	client/sk_daemon_opts.c \
	client/sk_peermap.c
noinst_HEADERS += client/sk_daemon.h client/sk_daemon_opts.h client/sk_peermap.h

# Linked with libskylark statically (-static: no libtool wrapper script),
# so that the built binary is the daemon itself: tests and `skylark
# cluster up` start it, signal it and read its pid directly.
bin_PROGRAMS += scheduler/skylark-sched
scheduler_skylark_sched_SOURCES = scheduler/sched_main.c
scheduler_skylark_sched_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/scheduler
scheduler_skylark_sched_LDFLAGS = $(AM_LDFLAGS) -static
scheduler_skylark_sched_LDADD = scheduler/libsched.la client/libskylark.la $(EV_LIBS)
