/*
 * sched_auth.c - who may submit and see what: the scheduler core's side
 * of user credentials (docs/SECURITY.md).
 *
 * A frontend that authenticated with a user token (sk_token.h) is handed
 * to the core with its user by the shell (sched_peer_cred) before any of
 * its input. Its jobs run as that user: a SUBMIT_JOB whose sj_user names
 * someone else is refused, one without sj_user gets the user. Its status
 * tables list its user's jobs only, unless the token is an admin's. Peers
 * the shell says nothing about hold the cluster key (daemons, and tools
 * of the cluster's operator): they are trusted as before.
 */
#include "sched_int.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

/* The credential of a peer that proved a user token. */
typedef struct sched_cred {
    char cr_user[SK_MAX_NAME_LEN + 1];
    int cr_admin; /* an admin's token: sees every job */
} sched_cred;

int sched_peer_cred(sched_core *c, sk_peer peer, const char *user, int admin)
{
    sched_auth_forget(c, peer);
    size_t n = strnlen(user, SK_MAX_NAME_LEN + 1);
    if (n == 0 || n > SK_MAX_NAME_LEN)
        return SK_EINVAL;
    sched_cred *cr = calloc(1, sizeof *cr);
    if (cr == NULL || sk_map_put(&c->c_creds, peer, cr) != 0) {
        free(cr);
        c->c_stats.ss_nomem++;
        return SK_ENOMEM;
    }
    memcpy(cr->cr_user, user, n);
    cr->cr_admin = admin != 0;
    return 0;
}

void sched_auth_forget(sched_core *c, sk_peer peer)
{
    free(sk_map_del(&c->c_creds, peer));
}

void sched_auth_free(sched_core *c)
{
    uint32_t pos = 0;
    sched_cred *cr;
    while ((cr = sk_map_next(&c->c_creds, &pos, NULL)) != NULL)
        free(cr);
    sk_map_free(&c->c_creds);
}

bool sched_auth_submit(sched_core *c, sk_peer from, sk_submit_job *sj)
{
    const sched_cred *cr = sk_map_get(&c->c_creds, from);
    if (cr == NULL)
        return true; /* the cluster key */
    if (sj->sj_user == NULL || sj->sj_user[0] == '\0') {
        sj->sj_user = cr->cr_user;
        return true;
    }
    if (strcmp(sj->sj_user, cr->cr_user) == 0)
        return true;
    c->c_stats.ss_jobs_rejected++;
    c->c_stats.ss_reject_user++;
    sk_msg *m = sched_send(c, from, SK_MSG_JOB_REJECTED);
    if (m != NULL) {
        m->m_job_ack.ja_job = sj->sj_job;
        m->m_job_ack.ja_reason = sk_arena_printf(
            &c->c_scratch,
            "user \"%.64s\" is not the authenticated user \"%s\": a token "
            "submits as its own user only",
            sj->sj_user, cr->cr_user);
    }
    return false;
}

bool sched_auth_sees(const sched_core *c, sk_peer from, const sched_job *j)
{
    const sched_cred *cr = sk_map_get(&c->c_creds, from);
    return cr == NULL || cr->cr_admin ||
           (j->j_user != NULL && strcmp(j->j_user, cr->cr_user) == 0);
}

bool sched_auth_daemon(const sched_core *c, sk_peer from)
{
    return sk_map_get(&c->c_creds, from) == NULL;
}
