/*
 * fc_race.c - the race solver: relaxation and (incremental) cost scaling
 * run side by side on two threads over the same round of changes; the
 * first to finish with an answer wins and the other is stopped.
 *
 * Both start from the same flow and prices: relaxation works on the
 * caller's state, cost scaling on a private copy, over the shared read-only
 * topology. The first thread to return an answer (a flow, or a proof of
 * infeasibility) claims the win and raises the race's own cancel flag; the
 * other notices it at its next look and returns FC_ECANCELED. Both threads
 * are joined before fc_race_solve returns, and the winner's state becomes
 * the caller's (cost scaling's is copied back). Cost scaling's copy of the
 * state lives in scratch memory the graph keeps between solves.
 *
 * Each solver leaves exactly optimal prices (every residual arc with room
 * has a non-negative reduced cost), so whichever wins, the next round's
 * relaxation finds complementary slackness outside the changes, and the
 * next round's cost scaling finds the prices already refined to
 * 0-optimality: its incremental start only repairs the arcs the changes
 * touched.
 *
 * The caller's cancel flag is watched by the calling thread while it waits
 * and passed on to the race's flag.
 */
#include "fc_graph_impl.h"

#include <pthread.h>
#include <time.h>

/* How often the waiting thread looks at the caller's cancel flag. */
#define RACE_WATCH_NS 1000000L

typedef struct race race;

/* One contestant. */
typedef struct race_arm {
    race *ra_race;
    int ra_index;
    fc_algorithm ra_alg;
    fc_flow_state *ra_st;
    fc_solve_options ra_opt; /* the caller's, with the race's cancel flag */
    uint64_t ra_work;
    int ra_rc;
} race_arm;

struct race {
    const fc_graph *rc_g;
    fc_scratch *rc_scratch;
    atomic_bool rc_stop;  /* raised by the winner or the caller's cancel */
    atomic_int rc_winner; /* index of the winning arm, or -1 */
    pthread_mutex_t rc_mu;
    pthread_cond_t rc_cv;
    int rc_finished; /* arms that returned, under rc_mu */
    race_arm rc_arms[2];
};

static void *arm_main(void *arg)
{
    race_arm *a = arg;
    race *r = a->ra_race;
    if (a->ra_alg == FC_ALG_RELAX)
        a->ra_rc = fc_relax_solve(r->rc_g, a->ra_st, &a->ra_opt, r->rc_scratch,
                                  &a->ra_work);
    else
        a->ra_rc = fc_cs_solve(r->rc_g, a->ra_st, &a->ra_opt, r->rc_scratch,
                               &a->ra_work);
    if (a->ra_rc == 0 || a->ra_rc == FC_EINFEASIBLE) {
        int none = -1;
        if (atomic_compare_exchange_strong(&r->rc_winner, &none, a->ra_index))
            atomic_store(&r->rc_stop, true);
    }
    pthread_mutex_lock(&r->rc_mu);
    r->rc_finished++;
    pthread_cond_signal(&r->rc_cv);
    pthread_mutex_unlock(&r->rc_mu);
    return NULL;
}

/* Wait until both arms returned, passing the caller's cancel on. */
static void wait_arms(race *r, const fc_solve_options *opt)
{
    pthread_mutex_lock(&r->rc_mu);
    while (r->rc_finished < 2) {
        if (opt->so_cancel == NULL) {
            pthread_cond_wait(&r->rc_cv, &r->rc_mu);
            continue;
        }
        if (fc_cancelled(opt))
            atomic_store(&r->rc_stop, true);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += RACE_WATCH_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        int rc = pthread_cond_timedwait(&r->rc_cv, &r->rc_mu, &until);
        (void)rc; /* ETIMEDOUT just means: look at the flag again */
    }
    pthread_mutex_unlock(&r->rc_mu);
}

/* Lay a flow state for g out in the race's scratch block. Returns 0 or
 * FC_ENOMEM. */
static int spare_state(const fc_graph *g, fc_scratch *scratch,
                       fc_flow_state *st)
{
    size_t m = 2 * (size_t)g->g_abound + 1, n = (size_t)g->g_nbound + 1;
    char *p = fc_scratch_get(&scratch[FC_SCRATCH_RACE], (m + 2 * n) * 8);
    if (p == NULL)
        return FC_ENOMEM;
    st->fs_rescap = (int64_t *)p;
    st->fs_excess = st->fs_rescap + m;
    st->fs_price = st->fs_excess + n;
    return 0;
}

int fc_race_solve(const fc_graph *g, fc_flow_state *st,
                  const fc_solve_options *opt, fc_scratch *scratch,
                  fc_algorithm *winner, uint64_t *work)
{
    fc_flow_state cs_st;
    if (spare_state(g, scratch, &cs_st) != 0)
        return FC_ENOMEM;
    fc_flow_state_copy(g, &cs_st, st);

    race r;
    r.rc_g = g;
    r.rc_scratch = scratch;
    atomic_init(&r.rc_stop, fc_cancelled(opt));
    atomic_init(&r.rc_winner, -1);
    r.rc_finished = 0;
    if (pthread_mutex_init(&r.rc_mu, NULL) != 0)
        return FC_ENOMEM;
    if (pthread_cond_init(&r.rc_cv, NULL) != 0) {
        pthread_mutex_destroy(&r.rc_mu);
        return FC_ENOMEM;
    }
    static const fc_algorithm algs[2] = {FC_ALG_RELAX, FC_ALG_COST_SCALING};
    fc_flow_state *states[2] = {st, &cs_st};
    pthread_t threads[2];
    int started = 0;
    for (int i = 0; i < 2; i++) {
        race_arm *a = &r.rc_arms[i];
        a->ra_race = &r;
        a->ra_index = i;
        a->ra_alg = algs[i];
        a->ra_st = states[i];
        a->ra_opt = *opt;
        a->ra_opt.so_algorithm = algs[i];
        a->ra_opt.so_cancel = &r.rc_stop;
        a->ra_work = 0;
        a->ra_rc = FC_ECANCELED;
        if (pthread_create(&threads[i], NULL, arm_main, a) != 0)
            break;
        started++;
    }
    if (started == 0) {
        /* No thread to be had: relaxation alone, on this thread. */
        pthread_cond_destroy(&r.rc_cv);
        pthread_mutex_destroy(&r.rc_mu);
        *winner = FC_ALG_RELAX;
        return fc_relax_solve(g, st, opt, scratch, work);
    }
    if (started == 1) {
        /* Cost scaling's thread did not start: relaxation runs alone. */
        pthread_mutex_lock(&r.rc_mu);
        r.rc_finished++;
        pthread_mutex_unlock(&r.rc_mu);
    }
    wait_arms(&r, opt);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_cond_destroy(&r.rc_cv);
    pthread_mutex_destroy(&r.rc_mu);

    int w = atomic_load(&r.rc_winner);
    *work += r.rc_arms[0].ra_work + r.rc_arms[1].ra_work;
    int rc;
    if (w < 0) {
        /* Nobody answered: relaxation's state (in place) respects the
         * capacities, which is all a cancelled solve promises. */
        rc = FC_ECANCELED;
        if (!fc_cancelled(opt) && (r.rc_arms[0].ra_rc == FC_ENOMEM ||
                                   r.rc_arms[1].ra_rc == FC_ENOMEM))
            rc = FC_ENOMEM;
        *winner = FC_ALG_RACE;
    } else {
        rc = r.rc_arms[w].ra_rc;
        *winner = algs[w];
        if (w == 1)
            fc_flow_state_copy(g, st, &cs_st);
    }
    return rc;
}
