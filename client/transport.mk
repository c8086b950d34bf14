# The transport of libskylark: opaque messages between named peers over
# nanomsg in a libev loop (see docs/TRANSPORT.md), its tests and helper.

client_libskylark_impl_la_SOURCES += \
	client/sk_keyfile.c \
	client/sk_tauth.c \
	client/sk_tframe.c \
	client/sk_token.c \
	client/sk_transport.c \
	client/sk_transport_rx.c
noinst_HEADERS += \
	client/sk_keyfile.h \
	client/sk_tauth.h \
	client/sk_tframe.h \
	client/sk_token.h \
	client/sk_transport.h \
	client/sk_transport_impl.h

# Tests. transport_util.c holds the helpers the tests share.
noinst_LIBRARIES += tests/libtransport_util.a
tests_libtransport_util_a_SOURCES = tests/transport_util.c tests/transport_util.h
SK_TRANSPORT_TEST_LDADD = tests/libtransport_util.a $(SK_TEST_LDADD) \
	$(NANOMSG_LIBS) $(EV_LIBS)

check_PROGRAMS += tests/test_transport
TESTS += tests/test_transport
tests_test_transport_SOURCES = tests/test_transport.c
tests_test_transport_CFLAGS = $(AM_CFLAGS) $(NANOMSG_CFLAGS)
tests_test_transport_LDADD = $(SK_TRANSPORT_TEST_LDADD)

check_PROGRAMS += tests/test_transport_auth
TESTS += tests/test_transport_auth
tests_test_transport_auth_SOURCES = tests/test_transport_auth.c
tests_test_transport_auth_CFLAGS = $(AM_CFLAGS) $(NANOMSG_CFLAGS)
tests_test_transport_auth_LDADD = $(SK_TRANSPORT_TEST_LDADD)

check_PROGRAMS += tests/test_transport_token
TESTS += tests/test_transport_token
tests_test_transport_token_SOURCES = tests/test_transport_token.c
tests_test_transport_token_LDADD = $(SK_TRANSPORT_TEST_LDADD)

check_PROGRAMS += tests/test_transport_flush
TESTS += tests/test_transport_flush
tests_test_transport_flush_SOURCES = tests/test_transport_flush.c
tests_test_transport_flush_CFLAGS = $(AM_CFLAGS) $(NANOMSG_CFLAGS)
tests_test_transport_flush_LDADD = $(SK_TRANSPORT_TEST_LDADD)

check_PROGRAMS += tests/test_transport_proc
TESTS += tests/test_transport_proc
tests_test_transport_proc_SOURCES = tests/test_transport_proc.c
tests_test_transport_proc_LDADD = $(SK_TRANSPORT_TEST_LDADD)

# Typed messages over the transport (decode on receipt, counted drops).
client_libskylark_impl_la_SOURCES += client/sk_link.c
noinst_HEADERS += client/sk_link.h

check_PROGRAMS += tests/test_link
TESTS += tests/test_link
tests_test_link_SOURCES = tests/test_link.c
tests_test_link_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_test_link_LDADD = $(SK_TRANSPORT_TEST_LDADD) $(MSGPACK_LIBS)
