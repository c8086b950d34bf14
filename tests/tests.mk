# The TAP helper and the tests of libskylark's common pieces. Each module's
# fragment adds its own tests beside these.

noinst_LIBRARIES += tests/libtap.a
tests_libtap_a_SOURCES = tests/tap.c tests/tap.h

# Tests of libskylark link the library and the TAP helper.
SK_TEST_LDADD = client/libskylark_impl.la tests/libtap.a

check_PROGRAMS += tests/test_common
TESTS += tests/test_common
tests_test_common_SOURCES = tests/test_common.c
tests_test_common_LDADD = $(SK_TEST_LDADD)

# The hash map and the arena of libskylark's internal part.
check_PROGRAMS += tests/test_map
TESTS += tests/test_map
tests_test_map_SOURCES = tests/test_map.c
tests_test_map_LDADD = $(SK_TEST_LDADD)

check_PROGRAMS += tests/test_arena
TESTS += tests/test_arena
tests_test_arena_SOURCES = tests/test_arena.c
tests_test_arena_LDADD = $(SK_TEST_LDADD)
