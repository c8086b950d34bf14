/*
 * sk_advertise.c - the endpoints a daemon advertises (sk_advertise.h).
 */
#include "sk_advertise.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

/* Adds tcp://A:port for the IPv4 addresses of the interfaces that are up
 * and either named ifname, or (ifname NULL) not loopback. */
static int from_interfaces(const char *ifname, const char *port,
                           char out[][SK_MAX_ADDR_LEN + 1], int max)
{
    struct ifaddrs *all;
    if (getifaddrs(&all) != 0)
        return 0;
    int n = 0;
    for (struct ifaddrs *i = all; i != NULL && n < max; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
            !(i->ifa_flags & IFF_UP))
            continue;
        if (ifname != NULL ? strcmp(i->ifa_name, ifname) != 0
                           : (i->ifa_flags & IFF_LOOPBACK) != 0)
            continue;
        char a[INET_ADDRSTRLEN];
        const struct sockaddr_in *sin = (const void *)i->ifa_addr;
        if (inet_ntop(AF_INET, &sin->sin_addr, a, sizeof a) == NULL)
            continue;
        snprintf(out[n++], SK_MAX_ADDR_LEN + 1, "tcp://%s:%s", a, port);
    }
    freeifaddrs(all);
    return n;
}

int sk_advertise(const char *listen, char out[][SK_MAX_ADDR_LEN + 1], int max)
{
    if (max < 1)
        return 0;
    const char *host = strncmp(listen, "tcp://", 6) == 0 ? listen + 6 : NULL;
    const char *colon = host != NULL ? strrchr(host, ':') : NULL;
    char name[IF_NAMESIZE + 1] = "";
    size_t len = colon != NULL ? (size_t)(colon - host) : 0;
    if (colon != NULL && len < sizeof name) {
        memcpy(name, host, len);
        name[len] = '\0';
    }
    int n = 0;
    if (strcmp(name, "*") == 0 || strcmp(name, "0.0.0.0") == 0) {
        n = from_interfaces(NULL, colon + 1, out, max);
        if (n == 0)
            snprintf(out[n++], SK_MAX_ADDR_LEN + 1, "tcp://127.0.0.1:%s",
                     colon + 1);
        return n;
    }
    /* An interface name: not an address or a host name that resolves. */
    if (name[0] != '\0' && if_nametoindex(name) != 0)
        n = from_interfaces(name, colon + 1, out, max);
    if (n == 0)
        snprintf(out[n++], SK_MAX_ADDR_LEN + 1, "%s", listen);
    return n;
}
