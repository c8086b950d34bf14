# The `skylark` command-line tool: a dispatcher and its subcommands.

bin_PROGRAMS += client/skylark
noinst_HEADERS += client/sk_cli.h
client_skylark_SOURCES = client/skylark.c client/cmd_solve.c
client_skylark_LDADD = flowcore/libflowcore.la

check_PROGRAMS += tests/test_fc_cli
TESTS += tests/test_fc_cli
tests_test_fc_cli_SOURCES = tests/test_fc_cli.c
tests_test_fc_cli_LDADD = $(FC_TEST_LDADD)
