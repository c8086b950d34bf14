# The `skylark` command-line tool: a dispatcher and its subcommands.

bin_PROGRAMS += client/skylark
noinst_HEADERS += client/sk_cli.h client/cli_common.h client/sk_cluster.h
client_skylark_SOURCES = client/skylark.c client/cmd_solve.c \
	client/cmd_cluster.c client/cmd_run.c client/cmd_status.c \
	client/cmd_load.c client/cli_common.c
client_skylark_LDADD = flowcore/libflowcore.la client/libskcluster.a \
	client/libskylark.la $(EV_LIBS) -lm

# A local cluster of daemons (skylark cluster, bench/short-path).
noinst_LIBRARIES += client/libskcluster.a
client_libskcluster_a_SOURCES = client/sk_cluster.c

check_PROGRAMS += tests/test_fc_cli
TESTS += tests/test_fc_cli
tests_test_fc_cli_SOURCES = tests/test_fc_cli.c
tests_test_fc_cli_LDADD = $(FC_TEST_LDADD)

# The demo's path with the real tool and daemons, scaled down.
check_PROGRAMS += tests/test_cli_cluster
TESTS += tests/test_cli_cluster
tests_test_cli_cluster_SOURCES = tests/test_cli_cluster.c
tests_test_cli_cluster_LDADD = tests/libtap.a
