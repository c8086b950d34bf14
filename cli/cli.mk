# The `skylark` command-line tool: a dispatcher and its subcommands. It
# uses libskylark (the client API) and libflowcore (`skylark solve`).

CLI_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli

bin_PROGRAMS += cli/skylark
noinst_HEADERS += cli/sk_cli.h cli/cli_common.h cli/sk_cluster.h
cli_skylark_SOURCES = cli/skylark.c cli/cmd_solve.c \
	cli/cmd_cluster.c cli/cmd_run.c cli/cmd_status.c \
	cli/cmd_load.c cli/cli_common.c
cli_skylark_CPPFLAGS = $(CLI_CPPFLAGS)
cli_skylark_LDADD = flowcore/libflowcore.la cli/libskcluster.a \
	client/libskylark_impl.la $(EV_LIBS) -lm

# A local cluster of daemons (skylark cluster, bench/short-path).
noinst_LIBRARIES += cli/libskcluster.a
cli_libskcluster_a_SOURCES = cli/sk_cluster.c
cli_libskcluster_a_CPPFLAGS = $(CLI_CPPFLAGS)

check_PROGRAMS += tests/test_fc_cli
TESTS += tests/test_fc_cli
tests_test_fc_cli_SOURCES = tests/test_fc_cli.c
tests_test_fc_cli_LDADD = $(FC_TEST_LDADD)

# The demo's path with the real tool and daemons, scaled down.
check_PROGRAMS += tests/test_cli_cluster
TESTS += tests/test_cli_cluster
tests_test_cli_cluster_SOURCES = tests/test_cli_cluster.c
tests_test_cli_cluster_LDADD = tests/libtap.a
