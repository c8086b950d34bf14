/*
 * test_client_fake.h - a fake daemon for the client API's tests: an
 * sk_link that listens like a scheduler or a node monitor, answers a
 * HELLO with its own as the daemons do, keeps a copy of every message it
 * receives, and sends what a test tells it to.
 */
#ifndef TEST_CLIENT_FAKE_H
#define TEST_CLIENT_FAKE_H

#include "sk_link.h"
#include "sk_proto.h"

#include <ev.h>

#define FAKE_MAX_MSGS 512

typedef struct fake fake;

/* Called for every message received, after it is recorded. */
typedef void (*fake_auto_fn)(fake *f, sk_peer_id from, const sk_msg *msg);

struct fake {
    sk_link *fk_link;
    struct ev_loop *fk_loop;
    char fk_endpoint[64];
    int fk_role;             /* sk_role of our HELLO answers */
    uint64_t fk_incarnation; /* of our HELLO answers (0: 1) */
    sk_peer_id fk_peer;      /* the latest peer that came up */
    int fk_ups, fk_downs;
    sk_msg fk_msgs[FAKE_MAX_MSGS]; /* owned copies, in arrival order */
    int fk_nmsgs;
    fake_auto_fn fk_auto;
    void *fk_arg;
    sk_buf fk_buf;
};

/* fake_start makes f listen on endpoint (tcp://127.0.0.1:free port when
 * NULL) as (trole, name), answering HELLOs as role. Bails out on error. */
void fake_start(fake *f, struct ev_loop *loop, const char *endpoint,
                const char *trole, const char *name, int role);

/* fake_stop destroys the link (the peers see a goodbye) and the copies. */
void fake_stop(fake *f);

/* fake_send sends msg to the latest peer; returns sk_link_send's code. */
int fake_send(fake *f, const sk_msg *msg);

/* fake_count returns how many messages of type arrived. */
int fake_count(const fake *f, sk_msg_type type);

/* fake_last returns the latest message of type, or NULL. */
const sk_msg *fake_last(const fake *f, sk_msg_type type);

/* fake_wait_count runs the loop until n messages of type have arrived or
 * timeout seconds pass; returns 1 if they did. */
int fake_wait_count(fake *f, sk_msg_type type, int n, double timeout);

#endif /* TEST_CLIENT_FAKE_H */
