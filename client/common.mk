# libskylark: the common pieces (version and errors, logging, configuration,
# seeded randomness, the cores' outbox and arena, the hash map). Other client
# fragments append their sources.

lib_LTLIBRARIES += client/libskylark.la
include_HEADERS += client/skylark.h
noinst_HEADERS += client/sk_log.h client/sk_config.h client/sk_rng.h client/sk_core.h \
	client/sk_arena.h client/sk_map.h
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA += client/skylark.pc
EXTRA_DIST += client/skylark.pc.in

client_libskylark_la_SOURCES = \
	client/sk_error.c \
	client/sk_log.c \
	client/sk_config.c \
	client/sk_rng.c \
	client/sk_core.c \
	client/sk_arena.c \
	client/sk_map.c
client_libskylark_la_CFLAGS = $(AM_CFLAGS) $(NANOMSG_CFLAGS) $(MSGPACK_CFLAGS) $(INIH_CFLAGS)
client_libskylark_la_LIBADD = $(NANOMSG_LIBS) $(MSGPACK_LIBS) $(INIH_LIBS) $(EV_LIBS) -lm
client_libskylark_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(SK_LT_VERSION)
