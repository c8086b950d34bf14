# Cost scaling (Goldberg's push-relabel, from scratch and incremental) and
# its tests.

flowcore_libflowcore_impl_la_SOURCES += flowcore/fc_costscale.c

check_PROGRAMS += tests/test_fc_costscale
TESTS += tests/test_fc_costscale
tests_test_fc_costscale_SOURCES = tests/test_fc_costscale.c
tests_test_fc_costscale_LDADD = $(FC_TEST_LDADD)
