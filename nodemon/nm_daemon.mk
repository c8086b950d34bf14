# skylark-nodemon, the node monitor daemon: the core (libnodemon) and its
# built-in command executor in the daemon shell (daemon/daemon.mk).

# Linked with libskylark statically, like skylark-sched (no wrapper).
bin_PROGRAMS += nodemon/skylark-nodemon
nodemon_skylark_nodemon_SOURCES = \
	nodemon/nm_main.c \
	nodemon/nm_metrics.c nodemon/nm_metrics.h \
	nodemon/nm_cmdexec.c nodemon/nm_cmdexec.h \
	nodemon/nm_account.c nodemon/nm_account.h \
	nodemon/nm_cgroup.c nodemon/nm_cgroup.h \
	nodemon/nm_guard.c nodemon/nm_guard.h
nodemon_skylark_nodemon_CPPFLAGS = $(DAEMON_CPPFLAGS) -I$(top_srcdir)/nodemon
nodemon_skylark_nodemon_LDFLAGS = $(AM_LDFLAGS) -static
nodemon_skylark_nodemon_LDADD = nodemon/libnodemon.la daemon/libskdaemon.la \
	client/libskylark_impl.la $(EV_LIBS)

check_PROGRAMS += tests/test_nm_account
TESTS += tests/test_nm_account
tests_test_nm_account_SOURCES = tests/test_nm_account.c nodemon/nm_account.c \
	nodemon/nm_account.h
tests_test_nm_account_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nodemon
tests_test_nm_account_LDADD = $(SK_TEST_LDADD)
