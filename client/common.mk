# libskylark: the common pieces (version and errors, logging, configuration,
# seeded randomness, the cores' outbox and arena, the hash map). Other
# client fragments append their sources.
#
# Every object of the library is built once, into the uninstalled
# convenience library libskylark_impl.la, with -fvisibility=hidden: only
# the functions skylark.h marks SK_API are visible outside. The installed
# libskylark.la is that library and nothing else, so the shared library
# exports the API only (tests/test_exports.sh checks it). The daemons, the
# command line, the simulator, the tests, benchmarks and fuzz targets use
# internals (sk_proto_*, sk_transport_*, sk_log_*, sk_link_*...) and link
# libskylark_impl.la, statically.

noinst_LTLIBRARIES += client/libskylark_impl.la
lib_LTLIBRARIES += client/libskylark.la
# Installed as <skylark/skylark.h>, in $(includedir)/skylark.
pkginclude_HEADERS += client/skylark.h
noinst_HEADERS += client/sk_log.h client/sk_config.h client/sk_rng.h client/sk_core.h \
	client/sk_arena.h client/sk_map.h
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA += client/skylark.pc
EXTRA_DIST += client/skylark.pc.in

client_libskylark_impl_la_SOURCES = \
	client/sk_error.c \
	client/sk_endpoint.c \
	client/sk_log.c \
	client/sk_config.c \
	client/sk_rng.c \
	client/sk_core.c \
	client/sk_arena.c \
	client/sk_map.c
client_libskylark_impl_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden \
	$(NANOMSG_CFLAGS) $(MSGPACK_CFLAGS) $(SODIUM_CFLAGS)
client_libskylark_impl_la_LIBADD = $(NANOMSG_LIBS) $(MSGPACK_LIBS) \
	$(SODIUM_LIBS) $(EV_LIBS) -lm

client_libskylark_la_SOURCES =
client_libskylark_la_LIBADD = client/libskylark_impl.la
client_libskylark_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(SK_LT_VERSION)

# The shared library exports the SK_API functions of skylark.h, no more.
TESTS += tests/test_exports.sh
dist_check_SCRIPTS += tests/test_exports.sh
AM_TESTS_ENVIRONMENT += NM='$(NM)'; export NM;

# The installed library, header and skylark.pc, used as a framework would:
# tests/test_install.sh installs into a temporary DESTDIR and builds
# client/examples/upper.c there with pkg-config, with the build's compiler
# and flags.
TESTS += tests/test_install.sh
dist_check_SCRIPTS += tests/test_install.sh
AM_TESTS_ENVIRONMENT += PKG_CONFIG='$(PKG_CONFIG)'; export PKG_CONFIG; \
	INSTALL_TEST_CC='$(CC)'; export INSTALL_TEST_CC; \
	INSTALL_TEST_CFLAGS='$(AM_CFLAGS) $(CFLAGS)'; export INSTALL_TEST_CFLAGS; \
	INSTALL_TEST_LDFLAGS='$(AM_LDFLAGS) $(LDFLAGS)'; export INSTALL_TEST_LDFLAGS;
