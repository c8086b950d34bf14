/*
 * sched_users.c - per-user budgets: the jobs in flight and the bytes of
 * job specs each user holds at a scheduler, whatever frontends they come
 * from ([sched] max_user_jobs, max_user_bytes), so that one user cannot
 * take what every user shares by opening more frontends. The user is
 * the job's (the authenticated one when the frontend holds a token,
 * sched_auth.c).
 */
#include "sched_int.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

/* What one user holds. Users are kept while they have jobs in flight,
 * in c_users by the hash of their name (chained on collision). */
struct sched_user {
    uint64_t u_hash;
    sched_user *u_next;
    uint32_t u_jobs;
    uint64_t u_bytes;
    char u_name[];
};

static sched_user *find(const sched_core *c, const char *name, uint64_t h)
{
    for (sched_user *u = sk_map_get(&c->c_users, h); u != NULL; u = u->u_next)
        if (strcmp(u->u_name, name) == 0)
            return u;
    return NULL;
}

const char *sched_user_over(sched_core *c, const char *user, size_t bytes)
{
    const sched_config *cfg = &c->c_cfg;
    const sched_user *u = find(c, user, sched_name_hash(user));
    if (u == NULL)
        return (uint64_t)bytes > (uint64_t)cfg->sc_max_user_bytes
                   ? sk_arena_printf(&c->c_scratch,
                                     "a job of %zu bytes is over the budget "
                                     "of one user (%lld, [sched] "
                                     "max_user_bytes)",
                                     bytes, (long long)cfg->sc_max_user_bytes)
                   : NULL;
    if (u->u_jobs >= (uint64_t)cfg->sc_max_user_jobs)
        return sk_arena_printf(&c->c_scratch,
                               "user \"%.64s\" has %u jobs in flight, its "
                               "limit ([sched] max_user_jobs)",
                               user, u->u_jobs);
    if (u->u_bytes + bytes > (uint64_t)cfg->sc_max_user_bytes)
        return sk_arena_printf(&c->c_scratch,
                               "user \"%.64s\" holds %llu bytes of jobs; %zu "
                               "more is over its budget of %lld ([sched] "
                               "max_user_bytes)",
                               user, (unsigned long long)u->u_bytes, bytes,
                               (long long)cfg->sc_max_user_bytes);
    return NULL;
}

int sched_user_charge(sched_core *c, sched_job *j)
{
    uint64_t h = sched_name_hash(j->j_user);
    sched_user *u = find(c, j->j_user, h);
    if (u == NULL) {
        size_t n = strlen(j->j_user);
        u = calloc(1, sizeof *u + n + 1);
        sched_user *head = sk_map_get(&c->c_users, h);
        if (u == NULL || (head == NULL && sk_map_put(&c->c_users, h, u) != 0)) {
            free(u);
            return SK_ENOMEM;
        }
        memcpy(u->u_name, j->j_user, n + 1);
        u->u_hash = h;
        if (head != NULL) {
            u->u_next = head->u_next;
            head->u_next = u;
        }
    }
    u->u_jobs++;
    u->u_bytes += j->j_bytes;
    j->j_quser = u;
    return 0;
}

void sched_user_release(sched_core *c, sched_job *j)
{
    sched_user *u = j->j_quser;
    if (u == NULL)
        return;
    j->j_quser = NULL;
    u->u_jobs--;
    u->u_bytes -= j->j_bytes;
    if (u->u_jobs > 0)
        return;
    sched_user *head = sk_map_get(&c->c_users, u->u_hash);
    if (head == u) {
        if (u->u_next != NULL)
            sk_map_put(&c->c_users, u->u_hash, u->u_next);
        else
            sk_map_del(&c->c_users, u->u_hash);
    } else {
        while (head->u_next != u)
            head = head->u_next;
        head->u_next = u->u_next;
    }
    free(u);
}
