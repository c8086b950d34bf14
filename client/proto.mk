# libskylark: the wire protocol (msgpack messages, their limits, encoders
# and decoders) and its tests.

client_libskylark_la_SOURCES += \
	client/sk_proto_buf.c \
	client/sk_proto_codec.c \
	client/sk_proto_msgs.c
noinst_HEADERS += client/sk_proto.h client/sk_proto_schema.h
