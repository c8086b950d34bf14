# libskylark: the wire protocol (msgpack messages, their limits, encoders
# and decoders) and its tests.

client_libskylark_impl_la_SOURCES += \
	client/sk_constraint.c \
	client/sk_proto_buf.c \
	client/sk_proto_codec.c \
	client/sk_proto_msgs.c
noinst_HEADERS += client/sk_constraint.h client/sk_proto.h \
	client/sk_proto_schema.h

# Random valid messages and their comparison, shared by the protocol's
# tests, the fuzz corpus generator and benchmarks.
noinst_LIBRARIES += tests/libprotogen.a
tests_libprotogen_a_SOURCES = tests/test_proto_gen.c tests/test_proto_gen.h

PROTO_TEST_LDADD = tests/libprotogen.a $(SK_TEST_LDADD)

check_PROGRAMS += tests/test_proto
TESTS += tests/test_proto
tests_test_proto_SOURCES = tests/test_proto.c
tests_test_proto_LDADD = $(PROTO_TEST_LDADD)

check_PROGRAMS += tests/test_proto_reject
TESTS += tests/test_proto_reject
tests_test_proto_reject_SOURCES = tests/test_proto_reject.c
tests_test_proto_reject_LDADD = $(PROTO_TEST_LDADD) -lm

# The placement constraint language (sk_constraint.c).
check_PROGRAMS += tests/test_constraint
TESTS += tests/test_constraint
tests_test_constraint_SOURCES = tests/test_constraint.c
tests_test_constraint_LDADD = $(SK_TEST_LDADD)

if ENABLE_FUZZING
# The constraint parser under libFuzzer (`make fuzz`); seeds in
# fuzz/corpus/fuzz_constraint/.
noinst_PROGRAMS += fuzz/fuzz_constraint
fuzz_fuzz_constraint_SOURCES = fuzz/fuzz_constraint.c
fuzz_fuzz_constraint_LDADD = client/libskylark_impl.la
fuzz_fuzz_constraint_LDFLAGS = $(FUZZER_LINK)
endif
