/*
 * fc_race.c - the race solver: relaxation and (incremental) cost scaling
 * run side by side on two threads over the same round of changes; the
 * first to finish with an answer wins and the other is stopped.
 *
 * Both start from the same flow and prices: relaxation works on the
 * caller's state, cost scaling on a copy in a second state the graph keeps
 * between solves, over the shared read-only topology. The first thread to
 * return an answer (a flow, or a proof of infeasibility) claims the win
 * and raises the race's own cancel flag; the other notices it at its next
 * look and returns FC_ECANCELED. Both threads are joined before
 * fc_race_solve returns, and the winner's state becomes the caller's:
 * when cost scaling wins, the two states swap places (no copy back).
 *
 * Each solver leaves exactly optimal prices (every residual arc with room
 * has a non-negative reduced cost), so whichever wins, the next round's
 * relaxation finds complementary slackness outside the changes, and the
 * next round's cost scaling finds the prices already refined to
 * 0-optimality: its incremental start only repairs the arcs the changes
 * touched.
 *
 * Relaxation runs alone for a head start before cost scaling joins it. On
 * a machine with few cores, cost scaling beside relaxation slows it by
 * competing for memory bandwidth and the caches (2x on the 12,500-machine
 * rounds of 10 events on this 2-core box), and relaxation is usually the
 * one to win a small round. The head start is twice the time
 * relaxation's last win took (its time varies about twofold from round to
 * round of the same size), capped: a round where relaxation falls into its
 * bad case costs at most the head start more than cost scaling alone
 * would. Once cost scaling has won, both start at once, and relaxation
 * only gets a short try: unless it won within an eighth of cost scaling's
 * last time, it is stopped, and cost scaling goes on alone at full speed.
 * Such a round costs cost scaling's slowdown beside relaxation for that
 * eighth, where running the try first and cost scaling after it would
 * cost the whole eighth (1.12-1.15x cost scaling alone on the 20,000-task
 * load-spreading graph from scratch, against 1.0-1.05x side by side). A
 * try that fails is not repeated at once: cost scaling then runs alone
 * (on the caller's state, without the copy) for one round, after the next
 * failed try two, then four, at most RACE_SKIP_MAX; rounds where
 * relaxation is the slower one by far (100 events and more on the
 * 12,500-machine graph) thus mostly cost what cost scaling alone costs,
 * and a return to small rounds is noticed within RACE_SKIP_MAX rounds.
 * Before any win both start at once.
 *
 * The caller's cancel flag is watched by the calling thread while it waits
 * and passed on to the race's flag.
 */
#include "fc_graph_impl.h"

#include <pthread.h>
#include <time.h>

/* How often the waiting thread looks at the caller's cancel flag. */
#define RACE_WATCH_NS 1000000LL

/* The longest head start relaxation gets. */
#define RACE_HEAD_START_MAX_NS 1000000000LL

/* Relaxation's try after cost scaling won: this fraction of its time. */
#define RACE_TRY_DIVISOR 8

/* The most rounds cost scaling runs alone between two tries. */
#define RACE_SKIP_MAX 8

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
    atomic_bool rc_stop;       /* raised by the winner or the caller's cancel */
    atomic_bool rc_stop_relax; /* rc_stop, or relaxation's try is over */
    atomic_int rc_winner;      /* index of the winning arm, or -1 */
    pthread_mutex_t rc_mu;
    pthread_cond_t rc_cv;
    int rc_finished; /* arms that returned, under rc_mu */
    race_arm rc_arms[2];
};

static void stop_all(race *r)
{
    atomic_store(&r->rc_stop, true);
    atomic_store(&r->rc_stop_relax, true);
}

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
            stop_all(r);
    }
    pthread_mutex_lock(&r->rc_mu);
    r->rc_finished++;
    pthread_cond_signal(&r->rc_cv);
    pthread_mutex_unlock(&r->rc_mu);
    return NULL;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Wait until `want` arms returned, or (when deadline_ns is not 0) until
 * the monotonic clock passes deadline_ns, passing the caller's cancel
 * on. */
static void wait_arms(race *r, const fc_solve_options *opt, int want,
                      int64_t deadline_ns)
{
    pthread_mutex_lock(&r->rc_mu);
    while (r->rc_finished < want) {
        if (fc_cancelled(opt))
            stop_all(r);
        int64_t now = now_ns();
        if (deadline_ns != 0 && now >= deadline_ns)
            break;
        int64_t until = opt->so_cancel != NULL ? now + RACE_WATCH_NS : 0;
        if (deadline_ns != 0 && (until == 0 || deadline_ns < until))
            until = deadline_ns;
        if (until == 0) {
            pthread_cond_wait(&r->rc_cv, &r->rc_mu);
            continue;
        }
        struct timespec ts = {.tv_sec = until / 1000000000LL,
                              .tv_nsec = until % 1000000000LL};
        int rc = pthread_cond_timedwait(&r->rc_cv, &r->rc_mu, &ts);
        (void)rc; /* ETIMEDOUT just means: look again */
    }
    pthread_mutex_unlock(&r->rc_mu);
}

/* Set up the race's lock and its condition on the monotonic clock.
 * Returns 0 or FC_ENOMEM. */
static int race_init(race *r)
{
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return FC_ENOMEM;
    int rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(&r->rc_cv, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0)
        return FC_ENOMEM;
    if (pthread_mutex_init(&r->rc_mu, NULL) != 0) {
        pthread_cond_destroy(&r->rc_cv);
        return FC_ENOMEM;
    }
    return 0;
}

/* Start arm i on its thread. Returns true if it runs. */
static bool start_arm(race *r, int i, fc_algorithm alg, fc_flow_state *st,
                      const fc_solve_options *opt, pthread_t *thread)
{
    race_arm *a = &r->rc_arms[i];
    a->ra_race = r;
    a->ra_index = i;
    a->ra_alg = alg;
    a->ra_st = st;
    a->ra_opt = *opt;
    a->ra_opt.so_algorithm = alg;
    a->ra_opt.so_cancel = alg == FC_ALG_RELAX ? &r->rc_stop_relax : &r->rc_stop;
    a->ra_work = 0;
    a->ra_rc = FC_ECANCELED;
    return pthread_create(thread, NULL, arm_main, a) == 0;
}

/* A round without relaxation, after its failed try: cost scaling on the
 * caller's state, on this thread; its time is noted as a win's. */
static int cs_alone(const fc_graph *g, fc_flow_state *st,
                    const fc_solve_options *opt, fc_scratch *scratch,
                    fc_race_hint *hint, fc_algorithm *winner, uint64_t *work)
{
    int64_t start = now_ns();
    int rc = fc_cs_solve(g, st, opt, scratch, work);
    /* Cancelled, nobody answered, as in a race. */
    *winner = rc == FC_ECANCELED ? FC_ALG_RACE : FC_ALG_COST_SCALING;
    if (rc == 0 || rc == FC_EINFEASIBLE) {
        hint->rh_cs_ns = now_ns() - start;
        hint->rh_skip--;
    }
    return rc;
}

int fc_race_solve(const fc_graph *g, fc_flow_state *st, fc_flow_state *spare,
                  const fc_solve_options *opt, fc_scratch *scratch,
                  fc_race_hint *hint, fc_algorithm *winner, uint64_t *work)
{
    bool only_a_try = hint->rh_relax_ns == 0 && hint->rh_cs_ns > 0;
    if (only_a_try && hint->rh_skip > 0)
        return cs_alone(g, st, opt, scratch, hint, winner, work);
    fc_flow_state_copy(g, spare, st);

    race r;
    r.rc_g = g;
    r.rc_scratch = scratch;
    atomic_init(&r.rc_stop, fc_cancelled(opt));
    atomic_init(&r.rc_stop_relax, fc_cancelled(opt));
    atomic_init(&r.rc_winner, -1);
    r.rc_finished = 0;
    r.rc_arms[1].ra_rc = FC_ECANCELED;
    r.rc_arms[1].ra_work = 0;
    if (race_init(&r) != 0)
        return FC_ENOMEM;
    int64_t start = now_ns();
    pthread_t threads[2];
    if (!start_arm(&r, 0, FC_ALG_RELAX, st, opt, &threads[0])) {
        /* No thread to be had: relaxation alone, on this thread. */
        pthread_cond_destroy(&r.rc_cv);
        pthread_mutex_destroy(&r.rc_mu);
        *winner = FC_ALG_RELAX;
        return fc_relax_solve(g, st, opt, scratch, work);
    }
    if (!only_a_try && hint->rh_relax_ns > 0)
        wait_arms(&r, opt, 1, start + hint->rh_relax_ns);
    int started = 1;
    bool relax_stopped = false;
    int64_t cs_start = now_ns();
    if (atomic_load(&r.rc_winner) < 0 && !fc_cancelled(opt)) {
        if (start_arm(&r, 1, FC_ALG_COST_SCALING, spare, opt, &threads[1])) {
            started = 2;
        } else if (only_a_try) {
            /* No thread: relaxation's try is over, cost scaling runs on
             * this one. */
            atomic_store(&r.rc_stop_relax, true);
            wait_arms(&r, opt, 1, 0);
            relax_stopped = true;
            arm_main(&r.rc_arms[1]);
        }
        /* else relaxation runs alone */
    }
    if (only_a_try && started == 2) {
        wait_arms(&r, opt, 1, cs_start + hint->rh_cs_ns / RACE_TRY_DIVISOR);
        if (atomic_load(&r.rc_winner) < 0) {
            atomic_store(&r.rc_stop_relax, true);
            relax_stopped = true;
        }
    }
    wait_arms(&r, opt, started, 0);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_cond_destroy(&r.rc_cv);
    pthread_mutex_destroy(&r.rc_mu);

    int w = atomic_load(&r.rc_winner);
    *work += r.rc_arms[0].ra_work + r.rc_arms[1].ra_work;
    if (w == 0) {
        int64_t twice = 2 * (now_ns() - start);
        hint->rh_relax_ns =
            twice < RACE_HEAD_START_MAX_NS ? twice : RACE_HEAD_START_MAX_NS;
        hint->rh_cs_ns = 0;
        hint->rh_backoff = 0;
    } else if (w == 1) {
        hint->rh_relax_ns = 0;
        hint->rh_cs_ns = now_ns() - cs_start;
        if (!relax_stopped)
            hint->rh_backoff = 0;
        else if (hint->rh_backoff < RACE_SKIP_MAX)
            hint->rh_backoff = hint->rh_backoff ? 2 * hint->rh_backoff : 1;
        hint->rh_skip = hint->rh_backoff;
    }
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
        rc = r.rc_arms[w == 1].ra_rc;
        *winner = w == 0 ? FC_ALG_RELAX : FC_ALG_COST_SCALING;
        if (w == 1) {
            fc_flow_state won = *spare;
            *spare = *st;
            *st = won;
        }
    }
    return rc;
}
