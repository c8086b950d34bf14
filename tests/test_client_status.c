/*
 * test_client_status.c - sk_status_fetch against a fake daemon on another
 * thread: the key/value pairs and the table come back as the daemon sent
 * them, the table only when asked for, the request id is echoed (a reply
 * to another request is ignored), and a daemon that is not there costs
 * the timeout and no more.
 */
#include "sk_apiutil.h"
#include "sk_log.h"
#include "sk_proto.h"
#include "skylark.h"
#include "tap.h"
#include "test_client_fake.h"
#include "transport_util.h"

#include <ev.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_int stop_fake;

static void answer(fake *f, sk_peer_id from, const sk_msg *msg)
{
    if (msg->m_type != SK_MSG_STATUS_REQUEST)
        return;
    sk_status_kv kv[2] = {{"slots_total", "4"}, {"queued", "17"}};
    const char *cols[] = {"user", "slot_s"};
    const char *c0[] = {"ana", "1.5"}, *c1[] = {"bob", "0.25"};
    sk_status_row rows[2] = {{c0, 2}, {c1, 2}};
    sk_msg m = {.m_type = SK_MSG_STATUS_REPLY};
    sk_status_reply *r = &m.m_status_reply;
    r->sr_role = SK_ROLE_NODEMON;
    r->sr_name = "n3";
    r->sr_time_us = 12345;
    r->sr_kv = kv;
    r->sr_nkv = 2;
    if (msg->m_status_request.sq_table) {
        r->sr_columns = cols;
        r->sr_ncolumns = 2;
        r->sr_rows = rows;
        r->sr_nrows = 2;
    }
    /* First a reply to another request, which must be ignored. */
    r->sr_request = msg->m_status_request.sq_request + 1;
    r->sr_name = "wrong";
    sk_link_send(f->fk_link, from, &m);
    r->sr_request = msg->m_status_request.sq_request;
    r->sr_name = "n3";
    sk_link_send(f->fk_link, from, &m);
}

static void poll_stop(struct ev_loop *l, ev_timer *w, int revents)
{
    if (atomic_load(&stop_fake))
        ev_break(l, EVBREAK_ALL);
}

static void *fake_thread(void *arg)
{
    fake *f = arg;
    ev_timer w;
    ev_timer_init(&w, poll_stop, 0.01, 0.01);
    ev_timer_start(f->fk_loop, &w);
    ev_run(f->fk_loop, 0);
    ev_timer_stop(f->fk_loop, &w);
    return NULL;
}

int main(void)
{
    tap_timeout(30);
    tap_plan(6);
    sk_log_set_level(SK_LOG_OFF);
    struct ev_loop *floop = ev_loop_new(EVFLAG_AUTO);
    fake f;
    fake_start(&f, floop, NULL, "nodemon", "n3", SK_ROLE_NODEMON);
    f.fk_auto = answer;
    char ep[64];
    snprintf(ep, sizeof ep, "%s", f.fk_endpoint);
    pthread_t th;
    pthread_create(&th, NULL, fake_thread, &f);

    sk_status *s = NULL;
    int rc = sk_status_fetch(ep, 5, 1, &s);
    tap_ok(rc == 0 && strcmp(sk_status_role(s), "nodemon") == 0 &&
               strcmp(sk_status_name(s), "n3") == 0 &&
               sk_status_time_us(s) == 12345,
           "the answer to our request, not another one, comes back");
    tap_ok(rc == 0 && sk_status_nkv(s) == 2 &&
               strcmp(sk_status_key(s, 1), "queued") == 0 &&
               strcmp(sk_status_value(s, 1), "17") == 0 &&
               strcmp(sk_status_get(s, "slots_total"), "4") == 0 &&
               sk_status_get(s, "nope") == NULL && sk_status_key(s, 2) == NULL,
           "key/value pairs, by index and by key");
    tap_ok(rc == 0 && sk_status_ncolumns(s) == 2 && sk_status_nrows(s) == 2 &&
               strcmp(sk_status_column(s, 1), "slot_s") == 0 &&
               strcmp(sk_status_cell(s, 1, 0), "bob") == 0 &&
               strcmp(sk_status_cell(s, 0, 1), "1.5") == 0 &&
               sk_status_cell(s, 2, 0) == NULL,
           "the table");
    sk_status_free(s);
    rc = sk_status_fetch(ep, 5, 0, &s);
    tap_ok(rc == 0 && sk_status_nrows(s) == 0 && sk_status_nkv(s) == 2,
           "no table unless asked for");
    sk_status_free(s);

    char dead[64];
    snprintf(dead, sizeof dead, "tcp://127.0.0.1:%d", tu_free_port());
    uint64_t t0 = sk_wall_us();
    rc = sk_status_fetch(dead, 0.3, 0, &s);
    double took = (double)(sk_wall_us() - t0) / 1e6;
    tap_ok(rc == SK_ETIMEDOUT && took >= 0.29 && took < 2,
           "no daemon: SK_ETIMEDOUT after the timeout (%.2f s)", took);
    tap_is_int(sk_status_fetch(dead, 0, 0, &s), SK_EINVAL,
               "a zero timeout is refused");

    atomic_store(&stop_fake, 1);
    pthread_join(th, NULL);
    fake_stop(&f);
    ev_loop_destroy(floop);
    return tap_exit_status();
}
