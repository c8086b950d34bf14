# skylark-nodemon, the node monitor daemon: the core (libnodemon) and its
# built-in command executor in the daemon shell (daemon/daemon.mk).

# Linked with libskylark statically, like skylark-sched (no wrapper).
bin_PROGRAMS += nodemon/skylark-nodemon
nodemon_skylark_nodemon_SOURCES = \
	nodemon/nm_main.c \
	nodemon/nm_metrics.c nodemon/nm_metrics.h
nodemon_skylark_nodemon_CPPFLAGS = $(DAEMON_CPPFLAGS) -I$(top_srcdir)/nodemon
nodemon_skylark_nodemon_LDFLAGS = $(AM_LDFLAGS) -static
nodemon_skylark_nodemon_LDADD = nodemon/libcmdexec.la nodemon/libnodemon.la \
	daemon/libskdaemon.la client/libskylark_impl.la $(EV_LIBS)

# The command executor, for the node monitor, `skylark executor`, its
# tests and bench/launch: tasks as processes, their accounts, cgroups,
# guard and journal. Its users link client/libskylark_impl.la and libev.
noinst_LTLIBRARIES += nodemon/libcmdexec.la
nodemon_libcmdexec_la_SOURCES = \
	nodemon/nm_cmdexec.c nodemon/nm_cmdexec.h \
	nodemon/nm_account.c nodemon/nm_account.h \
	nodemon/nm_cgroup.c nodemon/nm_cgroup.h \
	nodemon/nm_guard.c nodemon/nm_guard.h \
	nodemon/nm_taskexec.c nodemon/nm_taskexec.h \
	nodemon/nm_journal.c nodemon/nm_journal.h
nodemon_libcmdexec_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nodemon \
	-DSK_PKGLIBEXECDIR='"$(pkglibexecdir)"'

# skylark-keeper: the parent of one command task when the node monitor
# keeps a journal (nm_keeper.c); beside skylark-nodemon in a build tree.
pkglibexec_PROGRAMS = nodemon/skylark-keeper
nodemon_skylark_keeper_SOURCES = nodemon/nm_keeper.c
nodemon_skylark_keeper_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nodemon
nodemon_skylark_keeper_LDFLAGS = $(AM_LDFLAGS) -all-static
nodemon_skylark_keeper_LDADD = nodemon/libcmdexec.la

check_PROGRAMS += tests/test_nm_account
TESTS += tests/test_nm_account
tests_test_nm_account_SOURCES = tests/test_nm_account.c nodemon/nm_account.c \
	nodemon/nm_account.h
tests_test_nm_account_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nodemon
tests_test_nm_account_LDADD = $(SK_TEST_LDADD)

check_PROGRAMS += tests/test_nm_journal
TESTS += tests/test_nm_journal
tests_test_nm_journal_SOURCES = tests/test_nm_journal.c
tests_test_nm_journal_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nodemon
tests_test_nm_journal_LDADD = nodemon/libcmdexec.la $(SK_TEST_LDADD)
