# The `skylark` command-line tool: a dispatcher and its subcommands. It
# uses libskylark (the client API) and libflowcore (`skylark solve`).

CLI_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli

bin_PROGRAMS += cli/skylark
noinst_HEADERS += cli/sk_cli.h cli/cli_common.h cli/sk_cluster.h \
	cli/cli_json.h
cli_skylark_SOURCES = cli/skylark.c cli/cmd_solve.c \
	cli/cmd_cluster.c cli/cmd_run.c cli/cmd_status.c \
	cli/cmd_load.c cli/cmd_key.c cli/cmd_user.c cli/cmd_flow.c \
	cli/cmd_jobs.c cli/cli_common.c cli/cli_json.c cli/cmd_dashboard.c \
	cli/dash_share.c cli/dash_share.h cli/dash_kept.c cli/dash_kept.h \
	cli/cmd_executor.c
# `skylark executor` runs tasks with the node monitor's command executor.
nodist_cli_skylark_SOURCES = cli/dashboard_page.h
cli_skylark_CPPFLAGS = $(CLI_CPPFLAGS) -I$(top_builddir)/cli \
	-I$(top_srcdir)/daemon -I$(top_srcdir)/nodemon
cli_skylark_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(PTHREAD_CFLAGS)
# daemon/libskdaemon.la: the loopback rules of sk_metrics_http and
# libmicrohttpd, which `skylark dashboard` serves with.
cli_skylark_LDADD = nodemon/libcmdexec.la flowcore/libflowcore.la cli/libskcluster.a \
	daemon/libskdaemon.la client/libskylark_impl.la $(EV_LIBS) -lm \
	$(PTHREAD_LIBS)

# The dashboard's page, compiled in as bytes (no files to find at run
# time); the page itself needs no build step.
cli/skylark-cmd_dashboard.$(OBJEXT): cli/dashboard_page.h
CLEANFILES += cli/dashboard_page.h
EXTRA_DIST += cli/dashboard.html
cli/dashboard_page.h: $(top_srcdir)/cli/dashboard.html
	$(AM_V_GEN)$(MKDIR_P) cli && { \
	  echo '/* Generated from cli/dashboard.html: do not edit. */'; \
	  echo 'static const char DASHBOARD_PAGE[] = {'; \
	  od -An -v -tx1 < $(top_srcdir)/cli/dashboard.html | \
	    sed -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0x00};'; } > $@.tmp && mv $@.tmp $@

# A local cluster of daemons (skylark cluster, bench/short-path).
noinst_LIBRARIES += cli/libskcluster.a
cli_libskcluster_a_SOURCES = cli/sk_cluster.c
cli_libskcluster_a_CPPFLAGS = $(CLI_CPPFLAGS)

# The JSON writer of --json, alone.
check_PROGRAMS += tests/test_cli_json
TESTS += tests/test_cli_json
tests_test_cli_json_SOURCES = tests/test_cli_json.c cli/cli_json.c
tests_test_cli_json_CPPFLAGS = $(CLI_CPPFLAGS)
tests_test_cli_json_LDADD = tests/libtap.a

check_PROGRAMS += tests/test_fc_cli
TESTS += tests/test_fc_cli
tests_test_fc_cli_SOURCES = tests/test_fc_cli.c
tests_test_fc_cli_LDADD = $(FC_TEST_LDADD)

# The summary figures and number parsing of the command line.
check_PROGRAMS += tests/test_cli_common
TESTS += tests/test_cli_common
tests_test_cli_common_SOURCES = tests/test_cli_common.c cli/cli_common.c \
	cli/cli_json.c
tests_test_cli_common_CPPFLAGS = $(CLI_CPPFLAGS)
tests_test_cli_common_LDADD = cli/libskcluster.a client/libskylark_impl.la \
	tests/libtap.a $(EV_LIBS) -lm

# docs/CLIENT.md's synopses against every --help.
check_PROGRAMS += tests/test_cli_docs
TESTS += tests/test_cli_docs
tests_test_cli_docs_SOURCES = tests/test_cli_docs.c
tests_test_cli_docs_LDADD = tests/libtap.a

# The demo's path with the real tool and daemons, scaled down.
check_PROGRAMS += tests/test_cli_cluster
TESTS += tests/test_cli_cluster
tests_test_cli_cluster_SOURCES = tests/test_cli_cluster.c
tests_test_cli_cluster_LDADD = tests/libcli_run.a tests/libtap.a

# Running the tool in tests: stdout and stderr apart, timed, signalled.
noinst_LIBRARIES += tests/libcli_run.a
tests_libcli_run_a_SOURCES = tests/cli_run.c tests/cli_run.h

# What the tool refuses, and how fast: bad addresses, the wrong kind of
# daemon, peers that never answer, timeouts and signals.
check_PROGRAMS += tests/test_cli_refusals
TESTS += tests/test_cli_refusals
tests_test_cli_refusals_SOURCES = tests/test_cli_refusals.c
tests_test_cli_refusals_CFLAGS = $(AM_CFLAGS) $(NANOMSG_CFLAGS)
tests_test_cli_refusals_LDADD = tests/libcli_run.a $(DH_TEST_LDADD)
EXTRA_tests_test_cli_refusals_DEPENDENCIES = $(DH_TEST_DEPS) cli/skylark

# The flow path's options of run and load on the wire, through the real
# tool and a fake scheduler that spells what it got.
check_PROGRAMS += tests/test_cli_flow
TESTS += tests/test_cli_flow
tests_test_cli_flow_SOURCES = tests/test_cli_flow.c \
	tests/test_client_fake.c tests/test_client_fake.h
tests_test_cli_flow_LDADD = tests/libcli_run.a $(CLIENT_TEST_LDADD)
EXTRA_tests_test_cli_flow_DEPENDENCIES = cli/skylark

# skylark status --json and cluster status --json against a local
# cluster, read back by python3 and checked against the text output.
check_PROGRAMS += tests/test_cli_status_json
TESTS += tests/test_cli_status_json
tests_test_cli_status_json_SOURCES = tests/test_cli_status_json.c
tests_test_cli_status_json_LDADD = tests/libcli_run.a tests/libtap.a
EXTRA_tests_test_cli_status_json_DEPENDENCIES = $(DH_TEST_DEPS) cli/skylark

# skylark dashboard against a local cluster running a job: its JSON read
# by python3 against `cluster status --json`, its page run by headless
# Chromium (skipped without Debian chromium).
check_PROGRAMS += tests/test_dashboard
TESTS += tests/test_dashboard
tests_test_dashboard_SOURCES = tests/test_dashboard.c tests/http_get.c \
	tests/http_get.h
tests_test_dashboard_LDADD = tests/libcli_run.a $(DH_TEST_LDADD)
EXTRA_tests_test_dashboard_DEPENDENCIES = $(DH_TEST_DEPS) cli/skylark \
	flowcore/flowd/skylark-flowd

# The dashboard's kept sessions against real node monitors: reused,
# redone after the node monitors drop them, one killed, closed; and the
# fair share's fallback to them without flowd.
check_PROGRAMS += tests/test_dash_kept
TESTS += tests/test_dash_kept
tests_test_dash_kept_SOURCES = tests/test_dash_kept.c cli/dash_kept.c \
	cli/dash_share.c cli/cli_common.c cli/cli_json.c
tests_test_dash_kept_CPPFLAGS = $(CLI_CPPFLAGS) -I$(top_srcdir)/tests
tests_test_dash_kept_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
tests_test_dash_kept_LDADD = cli/libskcluster.a $(DH_TEST_LDADD) \
	$(PTHREAD_LIBS) -lm
EXTRA_tests_test_dash_kept_DEPENDENCIES = $(DH_TEST_DEPS)

# skylark flow dump|explain, jobs and cancel against real daemons: flowd
# with a long job handed over by a test client, a scheduler with a
# frontend's job to cancel.
check_PROGRAMS += tests/test_cli_flowops
TESTS += tests/test_cli_flowops
tests_test_cli_flowops_SOURCES = tests/test_cli_flowops.c
tests_test_cli_flowops_CFLAGS = $(AM_CFLAGS) $(NANOMSG_CFLAGS)
tests_test_cli_flowops_LDADD = tests/libcli_run.a $(DH_TEST_LDADD)
EXTRA_tests_test_cli_flowops_DEPENDENCIES = $(DH_TEST_DEPS) cli/skylark
