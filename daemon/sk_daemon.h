/*
 * sk_daemon.h - the shell that makes a daemon of a sans-I/O core
 * (scheduler, node monitor): it owns the sk_link, pairs transport peers
 * with the core's peer references, feeds the core one input at a time
 * with the wall clock, sends what the core put in its outbox in the same
 * loop iteration, keeps one ev_timer at the core's next deadline, and
 * turns SIGTERM and SIGINT into a clean stop.
 *
 * Registration (docs/DAEMONS.md): the side that connects speaks first.
 * When a connection of ours comes up the shell sends our HELLO; when a
 * peer that connected to us sends its HELLO, the shell answers with ours
 * (once per session) and then hands the peer's HELLO to the core
 * (peer_up). Every other message goes to the core as it is; a peer that
 * never said HELLO (the `skylark status` tool) still gets a reference, so
 * the core can answer its STATUS_REQUEST. A peer that proved a user token
 * rather than the cluster key is handed to the core with its user
 * (sk_daemon_on_cred), and its HELLO is refused (counted in
 * daemon.role_refused) unless it registers a frontend: a role comes from
 * the credential. A transport session that ends
 * is the core's peer_down. STATUS_REPLYs the core writes are extended
 * with the shell's, the link's and the transport's counters (keys
 * daemon.*, link.*, transport.*) and the daemon's own (hook dh_status).
 *
 * Metrics (docs/DAEMONS.md): with dc_metrics.mc_listen, the shell serves
 * /metrics (sk_metrics_http.h): its own, the link's and the transport's
 * counters under skylark_daemon_*, skylark_link_* and
 * skylark_transport_*, then the daemon's (hook dh_metrics), rendered on
 * the loop thread when a scrape asks.
 *
 * Costs: per message received, one clock read, one hash lookup, the core,
 * and one encode per message sent; nothing is allocated and nothing is
 * logged on that path but rate-limited complaints (a send that fails, a
 * message for a peer that is gone, an input the core dropped).
 *
 * Threading: the loop's thread only. Hooks run on the loop and must not
 * call into the core while the shell drains its outbox (dh_local).
 */
#ifndef SK_DAEMON_H
#define SK_DAEMON_H

#include "sk_core.h"
#include "sk_link.h"
#include "sk_metrics_http.h"
#include "sk_proto.h"
#include "sk_transport.h"

#include <stdint.h>

struct ev_loop;

/* The core's entry points, with the core as void *. Both cores have this
 * shape; the daemon writes six one-line adapters. */
typedef struct sk_daemon_core {
    void *dc_core;
    void (*dc_peer_up)(void *core, sk_peer peer, const sk_hello *hello,
                       sk_time now);
    void (*dc_peer_down)(void *core, sk_peer peer, sk_time now);
    void (*dc_message)(void *core, sk_peer from, const sk_msg *msg,
                       sk_time now);
    void (*dc_timer)(void *core, sk_time now);
    sk_time (*dc_deadline)(const void *core);
    sk_outbox *(*dc_outbox)(void *core);
} sk_daemon_core;

/* A core's entry point for a peer that proved a user token (sk_token.h)
 * for user, an admin's if admin: called once per session, before any
 * input of the peer. It returns 0, or an error: the shell then ends the
 * peer's session (the core must not have kept anything of it). */
typedef int (*sk_daemon_cred_fn)(void *core, sk_peer peer, const char *user,
                                 int admin);

typedef struct sk_daemon sk_daemon;

/* The daemon's hooks, all optional. */
typedef struct sk_daemon_hooks {
    /* A message the core addressed to the local peer (dc_local), e.g. the
     * node monitor's command executor. Must not call into the core. */
    void (*dh_local)(void *arg, const sk_msg *msg);
    /* After the outbox is drained: feed the core one more input that did
     * not come from the transport (a command's result) and return 1, or
     * return 0 when there is none. */
    int (*dh_pump)(void *arg);
    /* Add key/value pairs to a STATUS_REPLY with sk_daemon_status_add. */
    void (*dh_status)(void *arg, sk_daemon *d);
    /* Append the daemon's metrics (sk_metrics.h) to a scrape; loop
     * thread, between inputs. */
    void (*dh_metrics)(void *arg, sk_metrics_out *o);
    /* The core's count of inputs it dropped as bad (wrong type for the
     * sender, a field out of range...). After each input the shell
     * compares it with the last value and logs an increase: the first
     * and every 1024th, naming the message and the peer. NULL: the core
     * logs its own. */
    uint64_t (*dh_bad_input)(void *arg);
    /* SIGTERM or SIGINT arrived. NULL: the shell stops the loop at once.
     * A daemon that needs time (killing its tasks) stops it later with
     * sk_daemon_stop. */
    void (*dh_signal)(void *arg, int signum);
    void *dh_arg;
} sk_daemon_hooks;

/* Settings of a shell. */
typedef struct sk_daemon_config {
    sk_transport_config dc_transport; /* identity and limits */
    const char *dc_listen;            /* endpoint to bind, or NULL */
    const char *const *dc_connect;    /* endpoints to connect to */
    uint32_t dc_nconnect;
    sk_hello dc_hello; /* ours; its strings must outlive the shell. With
                          dc_listen, its he_addrs are replaced by
                          sk_advertise(dc_listen) (sk_advertise.h) */
    sk_peer dc_local;  /* a core reference served by dh_local, or 0 */
    sk_metrics_config dc_metrics; /* mc_listen NULL or "": no /metrics */
} sk_daemon_config;

/* sk_daemon_now returns the wall clock in microseconds since the epoch,
 * the time every core input is stamped with. */
sk_time sk_daemon_now(void);

/* sk_daemon_create makes the link on loop, binds dc_listen, connects to
 * every dc_connect endpoint, starts the signal watchers and logs
 * "listening on ENDPOINT", and with dc_metrics serves /metrics. cfg, core
 * and hooks are copied (not the strings they point to; the metrics token
 * is). Returns 0; SK_EIO when an endpoint or the metrics address cannot
 * be bound or connected (logged); SK_EINVAL or SK_ENOMEM. */
int sk_daemon_create(struct ev_loop *loop, const sk_daemon_config *cfg,
                     const sk_daemon_core *core, const sk_daemon_hooks *hooks,
                     sk_daemon **out);

/* sk_daemon_on_cred sets the core's entry point for peers with a user
 * token. Without one (the default) such peers reach the core as any
 * other, but their HELLOs are still refused unless they register a
 * frontend. Call it before the loop runs. */
void sk_daemon_on_cred(sk_daemon *d, sk_daemon_cred_fn fn);

/* sk_daemon_run runs the loop until sk_daemon_stop. */
void sk_daemon_run(sk_daemon *d);

/* sk_daemon_stop makes sk_daemon_run return (from a callback too). */
void sk_daemon_stop(sk_daemon *d);

/* sk_daemon_destroy stops /metrics, says goodbye to every peer and frees
 * the shell. The
 * core is not told anything. NULL is a no-op. */
void sk_daemon_destroy(sk_daemon *d);

/* sk_daemon_down_goodbye tells, during dc_peer_down only, whether the
 * peer ended its session cleanly (it said goodbye: it is leaving) rather
 * than being lost (timeout, reset, replaced); 0 elsewhere. */
int sk_daemon_down_goodbye(const sk_daemon *d);

/* sk_daemon_pump lets the daemon hand the core inputs of its own: it runs
 * dh_pump until it returns 0, sending the outbox after each input, then
 * re-arms the deadline timer. For callbacks outside the shell's (a child
 * exited). */
void sk_daemon_pump(sk_daemon *d);

/* sk_daemon_reset_peer ends the transport session of the peer the core
 * knows as ref, as a message that cannot be sent does: before the loop
 * next sleeps both sides see the peer leave (the core gets dc_peer_down
 * then, not during this call), and a peer that connected to us comes
 * back on a new session with a new HELLO. For a core that has written a
 * peer off while its session lives (flowd's node timeout). Returns 0,
 * SK_ENOTFOUND (no such peer) or SK_ESTATE (its session is ending). */
int sk_daemon_reset_peer(sk_daemon *d, sk_peer ref);

/* sk_daemon_status_add adds one pair to the STATUS_REPLY being extended
 * (only from dh_status); key and value are copied. Pairs past
 * SK_MAX_STATUS_KV are dropped. */
void sk_daemon_status_add(sk_daemon *d, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* SK_DAEMON_H */
