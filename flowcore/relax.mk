# Relaxation (Bertsekas-Tseng RELAX) and its tests.

flowcore_libflowcore_la_SOURCES += flowcore/fc_relax.c

check_PROGRAMS += tests/test_fc_relax
TESTS += tests/test_fc_relax
tests_test_fc_relax_SOURCES = tests/test_fc_relax.c
tests_test_fc_relax_LDADD = $(FC_TEST_LDADD)
