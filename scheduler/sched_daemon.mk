# skylark-sched, the scheduler daemon: the core (libsched) in the daemon
# shell (daemon/daemon.mk).

# Linked with libskylark statically (-static: no libtool wrapper script),
# so that the built binary is the daemon itself: tests and `skylark
# cluster up` start it, signal it and read its pid directly.
bin_PROGRAMS += scheduler/skylark-sched
scheduler_skylark_sched_SOURCES = scheduler/sched_main.c \
	scheduler/sched_metrics.c scheduler/sched_metrics.h
scheduler_skylark_sched_CPPFLAGS = $(DAEMON_CPPFLAGS) -I$(top_srcdir)/scheduler
scheduler_skylark_sched_LDFLAGS = $(AM_LDFLAGS) -static
scheduler_skylark_sched_LDADD = scheduler/libsched.la daemon/libskdaemon.la \
	client/libskylark_impl.la $(EV_LIBS)
