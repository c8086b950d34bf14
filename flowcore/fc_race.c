/*
 * fc_race.c - the race solver: relaxation and (incremental) cost scaling
 * run side by side over the same round of changes; the first to finish
 * with an answer wins and the other is stopped.
 *
 * Both start from the same flow and prices: relaxation works on the
 * caller's state, on the calling thread; cost scaling works on a copy in a
 * second state the graph keeps between solves, on a thread of its own,
 * over the shared read-only topology. The first to return an answer (a
 * flow, or a proof of infeasibility) claims the win and raises the race's
 * own cancel flag; the other notices it at its next look and returns
 * FC_ECANCELED. Cost scaling's thread is joined before fc_race_solve
 * returns, and the winner's state becomes the caller's: when cost scaling
 * wins, the two states swap places (no copy back).
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
 * would. Relaxation keeps that time itself: wherever it looks at its
 * cancel flag it also calls the race's poll, which starts cost scaling's
 * thread once the head start is over. A round that relaxation wins within
 * it thus starts no thread at all; starting one and waking the caller
 * from it cost about 0.3 ms a round, 8% of relaxation's 4 ms on the
 * 1,000-machine Quincy graph at 50% load.
 *
 * Once cost scaling has won, both start at once, and relaxation only gets
 * a short try: unless it won within an eighth of cost scaling's last time,
 * the poll stops it, and cost scaling goes on alone at full speed. Such a
 * round costs cost scaling's slowdown beside relaxation for that eighth,
 * where running the try first and cost scaling after it would cost the
 * whole eighth (1.12-1.15x cost scaling alone on the 20,000-task
 * load-spreading graph from scratch, against 1.0-1.05x side by side). A
 * try that fails is not repeated at once: cost scaling then runs alone
 * (on the caller's state, without the copy) for one round, after the next
 * failed try two, then four, at most RACE_SKIP_MAX; rounds where
 * relaxation is the slower one by far (100 events and more on the
 * 12,500-machine graph) thus mostly cost what cost scaling alone costs,
 * and a return to small rounds is noticed within RACE_SKIP_MAX rounds.
 * Before any win both start at once.
 *
 * The caller's cancel flag is watched by the poll while relaxation runs,
 * and by the calling thread while it waits for cost scaling; either
 * passes it on to the race's flag.
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
    const fc_solve_options *rc_caller; /* the caller's options */
    fc_flow_state *rc_spare;           /* cost scaling's state */
    fc_cancel rc_stop;    /* raised by the winner or the caller's cancel */
    atomic_int rc_winner; /* index of the winning arm, or -1 */
    pthread_mutex_t rc_mu;
    pthread_cond_t rc_cv;
    int rc_finished; /* arms that returned, under rc_mu */
    /* the calling thread's own (its poll runs inside relaxation) */
    fc_poll rc_poll;
    int64_t rc_cs_at;       /* start cost scaling then, if not 0 */
    int64_t rc_relax_until; /* end relaxation's try then, if not 0 */
    bool rc_try_cut;        /* relaxation's try ended unanswered */
    bool rc_cs_running;     /* cost scaling's thread was started */
    int64_t rc_cs_start;
    pthread_t rc_cs_thread;
    race_arm rc_arms[2];
};

static void *arm_main(void *arg)
{
    race_arm *a = arg;
    race *r = a->ra_race;
    if (a->ra_alg == FC_ALG_RELAX)
        a->ra_rc = fc_relax_solve(r->rc_g, a->ra_st, &a->ra_opt, &r->rc_poll,
                                  r->rc_scratch, &a->ra_work);
    else
        a->ra_rc = fc_cs_solve(r->rc_g, a->ra_st, &a->ra_opt, r->rc_scratch,
                               &a->ra_work);
    if (a->ra_rc == 0 || a->ra_rc == FC_EINFEASIBLE) {
        int none = -1;
        if (atomic_compare_exchange_strong(&r->rc_winner, &none, a->ra_index))
            fc_cancel_set(&r->rc_stop, true);
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

/* Give arm i its contestant, state and options. */
static void setup_arm(race *r, int i, fc_algorithm alg, fc_flow_state *st)
{
    race_arm *a = &r->rc_arms[i];
    a->ra_race = r;
    a->ra_index = i;
    a->ra_alg = alg;
    a->ra_st = st;
    a->ra_opt = *r->rc_caller;
    a->ra_opt.so_algorithm = alg;
    a->ra_opt.so_cancel = &r->rc_stop;
    a->ra_work = 0;
    a->ra_rc = FC_ECANCELED;
}

/* Start cost scaling on its thread, at time now; if no thread is to be
 * had, relaxation goes on alone. */
static void start_cs(race *r, int64_t now)
{
    setup_arm(r, 1, FC_ALG_COST_SCALING, r->rc_spare);
    r->rc_cs_start = now;
    r->rc_cs_running =
        pthread_create(&r->rc_cs_thread, NULL, arm_main, &r->rc_arms[1]) == 0;
}

/* The poll relaxation calls wherever it looks at its cancel flag: passes
 * the caller's cancel on, starts cost scaling when the head start is
 * over, and stops relaxation when its try is. */
static bool race_poll(void *arg)
{
    race *r = arg;
    if (fc_cancelled(r->rc_caller)) {
        fc_cancel_set(&r->rc_stop, true);
        return true;
    }
    if (r->rc_cs_at == 0 && r->rc_relax_until == 0)
        return false;
    int64_t now = now_ns();
    if (r->rc_cs_at != 0 && now >= r->rc_cs_at) {
        r->rc_cs_at = 0;
        start_cs(r, now);
    }
    if (r->rc_relax_until != 0 && now >= r->rc_relax_until) {
        r->rc_try_cut = true;
        return true;
    }
    return false;
}

/* Wait until cost scaling's arm returned, passing the caller's cancel
 * on. */
static void wait_cs(race *r)
{
    pthread_mutex_lock(&r->rc_mu);
    while (r->rc_finished < 2) {
        if (fc_cancelled(r->rc_caller))
            fc_cancel_set(&r->rc_stop, true);
        if (r->rc_caller->so_cancel == NULL) {
            pthread_cond_wait(&r->rc_cv, &r->rc_mu);
            continue;
        }
        int64_t until = now_ns() + RACE_WATCH_NS;
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

/* Cost scaling on the caller's state, on this thread; its time is noted
 * as a win's. */
static int cs_alone(const fc_graph *g, fc_flow_state *st,
                    const fc_solve_options *opt, fc_scratch *scratch,
                    fc_race_hint *hint, fc_algorithm *winner, uint64_t *work)
{
    int64_t start = now_ns();
    int rc = fc_cs_solve(g, st, opt, scratch, work);
    /* Cancelled, nobody answered, as in a race. */
    *winner = rc == FC_ECANCELED ? FC_ALG_RACE : FC_ALG_COST_SCALING;
    if (rc == 0 || rc == FC_EINFEASIBLE)
        hint->rh_cs_ns = now_ns() - start;
    return rc;
}

/* Note what the round taught: who won, how fast, and whether
 * relaxation's try failed. */
static void learn(const race *r, int w, int64_t start, fc_race_hint *hint)
{
    int64_t now = now_ns();
    if (w == 0) {
        int64_t twice = 2 * (now - start);
        hint->rh_relax_ns =
            twice < RACE_HEAD_START_MAX_NS ? twice : RACE_HEAD_START_MAX_NS;
        hint->rh_cs_ns = 0;
        hint->rh_backoff = 0;
    } else if (w == 1) {
        hint->rh_relax_ns = 0;
        hint->rh_cs_ns = now - r->rc_cs_start;
        if (!r->rc_try_cut)
            hint->rh_backoff = 0;
        else if (hint->rh_backoff < RACE_SKIP_MAX)
            hint->rh_backoff = hint->rh_backoff ? 2 * hint->rh_backoff : 1;
        hint->rh_skip = hint->rh_backoff;
    }
}

int fc_race_solve(const fc_graph *g, fc_flow_state *st, fc_flow_state *spare,
                  const fc_solve_options *opt, fc_scratch *scratch,
                  fc_race_hint *hint, fc_algorithm *winner, uint64_t *work)
{
    bool only_a_try = hint->rh_relax_ns == 0 && hint->rh_cs_ns > 0;
    if (only_a_try && hint->rh_skip > 0) {
        hint->rh_skip--;
        return cs_alone(g, st, opt, scratch, hint, winner, work);
    }
    race r = {.rc_g = g,
              .rc_scratch = scratch,
              .rc_caller = opt,
              .rc_spare = spare,
              .rc_poll = {race_poll, &r}};
    atomic_init(&r.rc_stop.cn_stop, fc_cancelled(opt));
    atomic_init(&r.rc_winner, -1);
    if (race_init(&r) != 0)
        return FC_ENOMEM;
    fc_flow_state_copy(g, spare, st);
    int64_t start = now_ns();
    if (hint->rh_relax_ns > 0) {
        r.rc_cs_at = start + hint->rh_relax_ns;
    } else {
        start_cs(&r, start);
        if (only_a_try && !r.rc_cs_running) {
            /* No thread for cost scaling: it runs here, without the try. */
            pthread_cond_destroy(&r.rc_cv);
            pthread_mutex_destroy(&r.rc_mu);
            return cs_alone(g, st, opt, scratch, hint, winner, work);
        }
        if (only_a_try)
            r.rc_relax_until = start + hint->rh_cs_ns / RACE_TRY_DIVISOR;
    }
    setup_arm(&r, 0, FC_ALG_RELAX, st);
    arm_main(&r.rc_arms[0]);
    if (r.rc_cs_running) {
        wait_cs(&r);
        pthread_join(r.rc_cs_thread, NULL);
    }
    pthread_cond_destroy(&r.rc_cv);
    pthread_mutex_destroy(&r.rc_mu);

    int w = atomic_load(&r.rc_winner);
    *work += r.rc_arms[0].ra_work + r.rc_arms[1].ra_work;
    learn(&r, w, start, hint);
    if (w < 0) {
        /* Nobody answered: relaxation's state (in place) respects the
         * capacities, which is all a cancelled solve promises. */
        *winner = FC_ALG_RACE;
        if (!fc_cancelled(opt) && (r.rc_arms[0].ra_rc == FC_ENOMEM ||
                                   r.rc_arms[1].ra_rc == FC_ENOMEM))
            return FC_ENOMEM;
        return FC_ECANCELED;
    }
    *winner = w == 0 ? FC_ALG_RELAX : FC_ALG_COST_SCALING;
    if (w == 1) {
        fc_flow_state won = *spare;
        *spare = *st;
        *st = won;
    }
    return r.rc_arms[w].ra_rc;
}
