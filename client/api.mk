# The client API of libskylark (skylark.h): frontends submit jobs and get
# their tasks' outcomes, executors run a framework's tasks, and any program
# can ask a daemon for its status. Its tests run against fake peers built
# on sk_link, without daemons.

client_libskylark_impl_la_SOURCES += \
	client/sk_apiutil.c \
	client/sk_frontend.c \
	client/sk_frontend_job.c \
	client/sk_executor.c \
	client/sk_status.c \
	client/sk_toolcall.c \
	client/sk_admin.c
noinst_HEADERS += \
	client/sk_apiutil.h \
	client/sk_toolcall.h \
	client/sk_status_msg.h \
	client/sk_frontend_int.h

check_PROGRAMS += tests/test_client_endpoint
TESTS += tests/test_client_endpoint
tests_test_client_endpoint_SOURCES = tests/test_client_endpoint.c
tests_test_client_endpoint_LDADD = $(SK_TEST_LDADD)

CLIENT_TEST_LDADD = $(SK_TRANSPORT_TEST_LDADD)

check_PROGRAMS += tests/test_client_frontend
TESTS += tests/test_client_frontend
tests_test_client_frontend_SOURCES = tests/test_client_frontend.c \
	tests/test_client_fake.c tests/test_client_fake.h
tests_test_client_frontend_LDADD = $(CLIENT_TEST_LDADD)

check_PROGRAMS += tests/test_client_executor
TESTS += tests/test_client_executor
tests_test_client_executor_SOURCES = tests/test_client_executor.c \
	tests/test_client_fake.c tests/test_client_fake.h
tests_test_client_executor_LDADD = $(CLIENT_TEST_LDADD)

check_PROGRAMS += tests/test_client_status
TESTS += tests/test_client_status
tests_test_client_status_SOURCES = tests/test_client_status.c \
	tests/test_client_fake.c tests/test_client_fake.h
tests_test_client_status_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
tests_test_client_status_LDADD = $(CLIENT_TEST_LDADD) $(PTHREAD_LIBS)

# An example framework using both sides of the API. It includes
# <skylark/skylark.h> as installed and links the installed library
# (tests/test_install.sh builds it so, with pkg-config); here it gets a
# copy of the public header under that name, and no other header.
noinst_PROGRAMS += client/examples/upper
client_examples_upper_SOURCES = client/examples/upper.c
client_examples_upper_CPPFLAGS = -I$(top_builddir)/client/examples/include
client_examples_upper_LDADD = client/libskylark.la $(EV_LIBS)
client/examples/include/skylark/skylark.h: $(top_srcdir)/client/skylark.h
	$(AM_V_GEN)$(MKDIR_P) client/examples/include/skylark && \
	cp $(top_srcdir)/client/skylark.h $@
$(client_examples_upper_OBJECTS): client/examples/include/skylark/skylark.h
CLEANFILES += client/examples/include/skylark/skylark.h
