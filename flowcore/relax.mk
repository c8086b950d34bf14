# Relaxation (Bertsekas-Tseng RELAX), the race solver (relaxation against
# cost scaling on two threads), relaxation with a work budget (cost scaling
# after it), and their tests.

flowcore_libflowcore_impl_la_SOURCES += flowcore/fc_relax.c \
	flowcore/fc_race.c flowcore/fc_budget.c

check_PROGRAMS += tests/test_fc_relax
TESTS += tests/test_fc_relax
tests_test_fc_relax_SOURCES = tests/test_fc_relax.c
tests_test_fc_relax_LDADD = $(FC_TEST_LDADD)

check_PROGRAMS += tests/test_fc_race
TESTS += tests/test_fc_race
tests_test_fc_race_SOURCES = tests/test_fc_race.c
tests_test_fc_race_LDADD = $(FC_TEST_IMPL_LDADD)

check_PROGRAMS += tests/test_fc_budget
TESTS += tests/test_fc_budget
tests_test_fc_budget_SOURCES = tests/test_fc_budget.c
tests_test_fc_budget_LDADD = $(FC_TEST_LDADD)
