/*
 * sk_advertise.h - the endpoints a daemon advertises in its HELLO
 * (he_addrs): where peers on other hosts reach it. The endpoint it binds
 * is not always one: tcp://0.0.0.0:P reaches nothing, and a peer told
 * "127.0.0.1" would call itself.
 */
#ifndef SK_ADVERTISE_H
#define SK_ADVERTISE_H

#include "sk_proto.h"

/* sk_advertise fills out[0..max) with the endpoints a daemon listening on
 * listen advertises, and returns how many (>= 1 when max >= 1):
 * - for a wildcard host ("*" or 0.0.0.0, as in tcp://0.0.0.0:P): tcp://A:P for
 * each IPv4 address A of an interface that is up and not loopback, in the order
 * of getifaddrs, at most max; tcp://127.0.0.1:P when there is no such address
 * (then only this host can reach the daemon anyway);
 * - for an interface name, tcp://eth0:P (nanomsg binds its addresses):
 *   tcp://A:P for each IPv4 address of that interface, at most max;
 * - anything else (an address, a host name, ipc://PATH): listen itself,
 *   as given: a specific address is the one its peers reach.
 * Costs one getifaddrs(3) for a wildcard or an interface name, nothing
 * otherwise. Any thread. */
int sk_advertise(const char *listen, char out[][SK_MAX_ADDR_LEN + 1], int max);

#endif /* SK_ADVERTISE_H */
