/*
 * test_nm_queue.c - the node monitor's reservation queues (nm_queue.h)
 * driven directly: FIFO within a user, weighted fair shares across users
 * (4:2:1 over 700 decisions; start-time fair queueing's bound between any
 * two of 40 users, and a heavy user's lag among light ones), strict priority
 * across levels with a virtual clock each, no credit for idleness, removal from
 * anywhere in a FIFO, the bound on tracked users, and 20,000 random operations
 * checked against a model written from the header's contract.
 */
#include "nm_queue.h"
#include "sk_rng.h"
#include "skylark.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the core queues (a reservation), reduced to what the queue sees. */
typedef struct item {
    nm_qent it_q;
    int it_id;         /* the test's name for it */
    uint32_t it_left;  /* decisions it still wants (a reservation's count) */
    uint64_t it_order; /* push order, for the model's FIFOs */
    bool it_queued;
} item;

static item *item_of(nm_qent *e)
{
    return e == NULL ? NULL : NM_CONTAINER(e, item, it_q);
}

static nm_user *user(nm_queue *q, const char *name)
{
    nm_user *u;
    int rc = nm_queue_user(q, name, &u);
    if (rc != 0)
        tap_bail_out("nm_queue_user(%s): %s", name, sk_strerror(rc));
    return u;
}

static void push(nm_queue *q, nm_user *u, uint8_t prio, item *it, int id,
                 uint32_t left)
{
    it->it_id = id;
    it->it_left = left;
    it->it_queued = true;
    nm_queue_push(q, u, prio, &it->it_q);
}

static void take_out(nm_queue *q, item *it)
{
    nm_queue_remove(q, &it->it_q);
    it->it_queued = false;
}

/* One decision as the core makes it: peek, charge, and the entry leaves
 * the queue when it wants nothing more. Returns the item served, or NULL
 * when every queue is empty. */
static item *serve(nm_queue *q)
{
    item *it = item_of(nm_queue_peek(q));
    if (it == NULL)
        return NULL;
    nm_queue_charge(q, &it->it_q);
    if (--it->it_left == 0)
        take_out(q, it);
    return it;
}

/* Serves n decisions (n < NAMES); says in names[] whose they were ('a' +
 * user index among us[0..nu)), NUL-terminated. */
#define NAMES 128
static void serve_names(nm_queue *q, nm_user *const *us, int nu, int n,
                        char names[NAMES])
{
    if (n >= NAMES)
        tap_bail_out("serve_names: %d decisions do not fit", n);
    int k = 0;
    for (; k < n; k++) {
        item *it = serve(q);
        if (it == NULL)
            break;
        char c = '?';
        for (int i = 0; i < nu; i++)
            if (it->it_q.qe_user == us[i])
                c = (char)('a' + i);
        names[k] = c;
    }
    names[k] = '\0';
}

static void test_empty(void)
{
    nm_queue q;
    nm_queue_init(&q, 4, NULL, 0);
    tap_ok(nm_queue_peek(&q) == NULL && q.q_total == 0 &&
               nm_queue_find(&q, "a") == NULL,
           "a new queue is empty and knows no user");
    nm_user *a = user(&q, "a");
    tap_ok(nm_queue_find(&q, "a") == a && a->us_weight == 1 &&
               strcmp(a->us_name, "a") == 0,
           "a user is tracked once asked for, with weight 1 by default");
    nm_user *again = user(&q, "a");
    tap_ok(again == a && a->us_refs == 2 && q.q_nusers == 1,
           "asking again gives the same user and one more reference");
    nm_queue_fini(&q);
}

/* Two users of equal weight: decisions alternate, each user's entries in
 * the order pushed, whatever the order of the pushes. */
static void test_fifo(void)
{
    nm_queue q;
    nm_queue_init(&q, 4, NULL, 0);
    nm_user *us[2] = {user(&q, "a"), user(&q, "b")};
    static item a[5], b[5];
    for (int k = 0; k < 5; k++)
        push(&q, us[0], 0, &a[k], k, 1);
    for (int k = 0; k < 5; k++)
        push(&q, us[1], 0, &b[k], 10 + k, 1);
    tap_ok(q.q_total == 10 && us[0]->us_queued == 5 && us[1]->us_queued == 5,
           "ten entries queued, five per user");
    int ids[10];
    char names[11];
    for (int k = 0; k < 10; k++) {
        item *it = serve(&q);
        ids[k] = it != NULL ? it->it_id : -1;
        names[k] = it == NULL ? '-' : it->it_q.qe_user == us[0] ? 'a' : 'b';
    }
    names[10] = '\0';
    tap_is_str(names, "ababababab",
               "equal weights alternate, the older user first on a tie");
    bool fifo = true;
    for (int k = 0; k < 5; k++)
        fifo = fifo && ids[2 * k] == k && ids[2 * k + 1] == 10 + k;
    tap_ok(fifo, "within a user, entries come out in the order pushed");
    tap_ok(nm_queue_peek(&q) == NULL && q.q_total == 0 && us[0]->us_queued == 0,
           "served out, the queue is empty");

    /* An entry that wants several decisions stays at its FIFO's head. */
    static item c[2];
    push(&q, us[0], 0, &c[0], 1, 3);
    push(&q, us[0], 0, &c[1], 2, 1);
    int seq[4];
    for (int k = 0; k < 4; k++) {
        item *it = serve(&q);
        seq[k] = it != NULL ? it->it_id : -1;
    }
    tap_ok(seq[0] == 1 && seq[1] == 1 && seq[2] == 1 && seq[3] == 2 &&
               nm_queue_peek(&q) == NULL,
           "an entry of count 3 is served three times before the next");
    nm_queue_fini(&q);
}

/* Weights 4:2:1, every user backlogged: 700 decisions split 400:200:100,
 * each user within one decision of its share after every decision. */
static void test_shares(void)
{
    static const nm_weight w[] = {{"w4", 4}, {"w2", 2}, {"w1", 1}};
    nm_queue q;
    nm_queue_init(&q, 8, w, 3);
    nm_user *us[3];
    for (int i = 0; i < 3; i++)
        us[i] = user(&q, w[i].nw_user);
    tap_ok(us[0]->us_weight == 4 && us[1]->us_weight == 2 &&
               us[2]->us_weight == 1,
           "users get their configured weights");
    /* 700 entries each, pushed round-robin so that no user is favoured by
     * the order of the pushes; each entry wants one decision. */
    static item it[3][700];
    for (int k = 0; k < 700; k++)
        for (int i = 2; i >= 0; i--)
            push(&q, us[i], 0, &it[i][k], k, 1);
    int served[3] = {0};
    double worst = 0;
    int worst_at = 0;
    bool fifo = true;
    for (int n = 1; n <= 700; n++) {
        item *x = serve(&q);
        int i = 0;
        while (i < 3 && (x == NULL || x->it_q.qe_user != us[i]))
            i++;
        if (i == 3)
            tap_bail_out("decision %d served no user of the test", n);
        fifo = fifo && x->it_id == served[i];
        served[i]++;
        for (int j = 0; j < 3; j++) {
            double dev = fabs(served[j] - n * w[j].nw_weight / 7.0);
            if (dev > worst) {
                worst = dev;
                worst_at = n;
            }
        }
    }
    tap_ok(served[0] == 400 && served[1] == 200 && served[2] == 100,
           "700 decisions at 4:2:1 give 400:200:100 (got %d:%d:%d)", served[0],
           served[1], served[2]);
    tap_ok(worst <= 1.0,
           "after every decision each user is within 1 decision of its "
           "share (worst %.3f, at decision %d)",
           worst, worst_at);
    tap_ok(fifo, "each user's entries in the order pushed");
    tap_ok(q.q_total == 3 * 700 - 700 && us[2]->us_queued == 600,
           "served entries left the queue, the others wait");
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 700; k++)
            if (it[i][k].it_queued)
                take_out(&q, &it[i][k]);
    nm_queue_fini(&q);
}

/* Serves `decisions` decisions to nu users of weights w, all backlogged
 * at level 3 from the start. Returns in *excess the largest amount by
 * which two users' decisions per unit of weight differed beyond SFQ's
 * bound 1/w_i + 1/w_j (<= 0 when it held), and in *lag the largest
 * amount by which a user trailed its ideal share n * w_i / W beyond
 * N * w_i / W (<= 0 when that held); in *lag0 the most user 0 trailed
 * its ideal share by. */
static void run_backlogged(const nm_weight *w, int nu, int decisions,
                           double *excess, double *lag, double *lag0)
{
    nm_queue q;
    nm_queue_init(&q, (uint32_t)nu, w, (uint32_t)nu);
    nm_user **us = calloc((size_t)nu, sizeof *us);
    item *it = calloc((size_t)nu, sizeof *it);
    int *served = calloc((size_t)nu, sizeof *served);
    if (us == NULL || it == NULL || served == NULL)
        tap_bail_out("out of memory");
    double wsum = 0;
    for (int i = 0; i < nu; i++) {
        us[i] = user(&q, w[i].nw_user);
        push(&q, us[i], 3, &it[i], i, (uint32_t)decisions + 1);
        wsum += w[i].nw_weight;
    }
    *excess = -1e9;
    *lag = -1e9;
    *lag0 = 0;
    for (int n = 1; n <= decisions; n++) {
        item *x = serve(&q);
        if (x == NULL)
            tap_bail_out("the queue ran dry at decision %d", n);
        served[x->it_id]++;
        for (int i = 0; i < nu; i++) {
            double wi = w[i].nw_weight;
            double short_by = n * wi / wsum - served[i];
            if (i == 0 && short_by > *lag0)
                *lag0 = short_by;
            short_by -= nu * wi / wsum;
            *lag = short_by > *lag ? short_by : *lag;
            for (int j = i + 1; j < nu; j++) {
                double wj = w[j].nw_weight;
                double e =
                    fabs(served[i] / wi - served[j] / wj) - (1 / wi + 1 / wj);
                *excess = e > *excess ? e : *excess;
            }
        }
    }
    for (int i = 0; i < nu; i++)
        take_out(&q, &it[i]);
    nm_queue_fini(&q);
    free(us);
    free(it);
    free(served);
}

/* SFQ's bounds for 40 users of weights 1..20, and for one user of weight
 * 100 among 100 of weight 1, whose tags come due together: the heavy user
 * then trails its ideal share by 50 decisions, as nm_queue.h says. */
static void test_sfq_bound(void)
{
    enum { NU = 40 };
    static nm_weight w[101];
    sk_rng rng;
    sk_rng_seed(&rng, 7);
    for (int i = 0; i < NU; i++) {
        snprintf(w[i].nw_user, sizeof w[i].nw_user, "u%02d", i);
        w[i].nw_weight = 1 + (uint32_t)sk_rng_below(&rng, 20);
    }
    double excess, lag, heavy;
    run_backlogged(w, NU, 20000, &excess, &lag, &heavy);
    tap_ok(excess <= 1e-9,
           "40 users, 20,000 decisions: every pair within SFQ's bound "
           "(closest approach %.3f)",
           excess);
    tap_ok(lag <= 1e-9,
           "and no user trails its share by more than N * w / W (closest "
           "approach %.3f)",
           lag);

    snprintf(w[0].nw_user, sizeof w[0].nw_user, "heavy");
    w[0].nw_weight = 100;
    for (int i = 1; i <= 100; i++) {
        snprintf(w[i].nw_user, sizeof w[i].nw_user, "light%d", i);
        w[i].nw_weight = 1;
    }
    run_backlogged(w, 101, 2000, &excess, &lag, &heavy);
    tap_ok(excess <= 1e-9,
           "weight 100 among 100 of weight 1: every pair "
           "within SFQ's bound (closest approach %.3f)",
           excess);
    /* N * w / W = 101 * 100 / 200 = 50.5. */
    tap_ok(lag <= 1e-9 && heavy >= 50 - 1e-9,
           "the heavy user trails its ideal share by %.1f decisions at worst, "
           "N * w / W = 50.5 (no user beyond its N * w / W: %.3f)",
           heavy, lag);
}

/* Strict priority: a lower level number always goes first, also when it
 * arrives while a higher one is being served; each level keeps its own
 * virtual clock. */
static void test_priority(void)
{
    nm_queue q;
    nm_queue_init(&q, 8, NULL, 0);
    nm_user *us[3] = {user(&q, "a"), user(&q, "b"), user(&q, "c")};
    static item e[5];
    push(&q, us[0], 5, &e[0], 1, 1);
    push(&q, us[1], 7, &e[1], 2, 1);
    push(&q, us[2], 2, &e[2], 3, 1);
    push(&q, us[1], 0, &e[3], 4, 1);
    push(&q, us[0], 2, &e[4], 5, 1);
    tap_ok(q.q_levels[2].lv_len == 2 && q.q_levels[0].lv_len == 1 &&
               us[1]->us_queued == 2,
           "entries are counted by level and by user");
    int order[5];
    for (int k = 0; k < 5; k++) {
        item *it = serve(&q);
        order[k] = it != NULL ? it->it_id : -1;
    }
    tap_ok(order[0] == 4 && order[1] == 5 && order[2] == 3 && order[3] == 1 &&
               order[4] == 2,
           "levels 0, 2, 2, 5, 7 in that order (got %d %d %d %d %d)", order[0],
           order[1], order[2], order[3], order[4]);

    /* A level-1 entry pushed while level 3 is being served goes next. */
    static item lo[10], hi;
    for (int k = 0; k < 10; k++)
        push(&q, us[k % 3], 3, &lo[k], 100 + k, 1);
    serve(&q);
    serve(&q);
    push(&q, us[2], 1, &hi, 999, 1);
    item *next = serve(&q);
    tap_ok(next == &hi, "an arriving level-1 entry overtakes level 3");
    int level3 = 0;
    while ((next = serve(&q)) != NULL)
        level3 += next->it_id >= 100 && next->it_id < 110;
    tap_is_int(level3, 8, "then level 3 is served out");

    nm_queue_fini(&q);

    /* Decisions at level 1 cost nothing at level 0. */
    nm_queue_init(&q, 8, NULL, 0);
    us[0] = user(&q, "a");
    us[1] = user(&q, "b");
    static item busy, a0[10], b0[10];
    push(&q, us[0], 1, &busy, 50, 50);
    char names[NAMES];
    serve_names(&q, us, 3, 50, names);
    for (int k = 0; k < 10; k++) {
        push(&q, us[0], 0, &a0[k], k, 1);
        push(&q, us[1], 0, &b0[k], k, 1);
    }
    serve_names(&q, us, 3, 20, names);
    tap_is_str(names, "abababababababababab",
               "50 decisions for a at level 1 do not slow a at level 0");
    nm_queue_fini(&q);
}

/* Idleness earns no credit: a user arriving (or coming back) after others
 * were served gets its share from then on, not a burst. */
static void test_no_credit(void)
{
    nm_queue q;
    nm_queue_init(&q, 8, NULL, 0);
    nm_user *us[2] = {user(&q, "a"), user(&q, "b")};
    static item a, b, a2;
    push(&q, us[0], 0, &a, 1, 1000);
    char names[NAMES];
    serve_names(&q, us, 2, 100, names);
    push(&q, us[1], 0, &b, 2, 1000);
    serve_names(&q, us, 2, 20, names);
    int nb = 0;
    for (int k = 0; names[k] != '\0'; k++)
        nb += names[k] == 'b';
    tap_ok(nb >= 9 && nb <= 11,
           "a newcomer after 100 decisions gets %d of the next 20, not all",
           nb);

    take_out(&q, &a); /* a goes idle while b is served */
    serve_names(&q, us, 2, 100, names);
    push(&q, us[0], 0, &a2, 3, 1000);
    serve_names(&q, us, 2, 20, names);
    int na = 0;
    for (int k = 0; names[k] != '\0'; k++)
        na += names[k] == 'a';
    tap_ok(na >= 9 && na <= 11,
           "a user back after 100 decisions away gets %d of the next 20", na);
    take_out(&q, &b);
    take_out(&q, &a2);
    nm_queue_fini(&q);
}

/* nm_queue_remove (a cancel) takes an entry out from anywhere: it is never
 * served, and the counts and the other users' order stay right. */
static void test_remove(void)
{
    nm_queue q;
    nm_queue_init(&q, 8, NULL, 0);
    nm_user *us[3] = {user(&q, "a"), user(&q, "b"), user(&q, "c")};
    static item a[4], b[2];
    for (int k = 0; k < 4; k++)
        push(&q, us[0], 0, &a[k], k, 1);
    push(&q, us[1], 0, &b[0], 10, 1);
    push(&q, us[1], 0, &b[1], 11, 1);
    take_out(&q, &a[1]); /* the middle of a's FIFO */
    take_out(&q, &b[0]); /* the head of b's */
    tap_ok(q.q_total == 4 && us[0]->us_queued == 3 && us[1]->us_queued == 1 &&
               q.q_levels[0].lv_len == 4,
           "removed entries leave the counts");
    int ids[5];
    for (int k = 0; k < 5; k++) {
        item *it = serve(&q);
        ids[k] = it != NULL ? it->it_id : -1;
    }
    tap_ok(ids[0] == 0 && ids[1] == 11 && ids[2] == 2 && ids[3] == 3 &&
               ids[4] == -1,
           "what was removed is never served: 0 11 2 3 (got %d %d %d %d)",
           ids[0], ids[1], ids[2], ids[3]);

    /* Removing a user's last entry takes the user out of its level; the
     * level's last entry, the level. */
    static item c0, lv5, lv6;
    push(&q, us[2], 4, &c0, 20, 5);
    push(&q, us[0], 5, &lv5, 21, 1);
    push(&q, us[1], 6, &lv6, 22, 1);
    take_out(&q, &c0);
    tap_ok(item_of(nm_queue_peek(&q)) == &lv5,
           "with level 4 emptied by a removal, level 5 is next");
    take_out(&q, &lv5);
    tap_ok(item_of(nm_queue_peek(&q)) == &lv6, "then level 6");
    take_out(&q, &lv6);
    tap_ok(nm_queue_peek(&q) == NULL && q.q_total == 0 && q.q_busy == 0,
           "with everything removed, nothing is queued");
    tap_ok(us[2]->us_refs == 1,
           "a removed entry gives back its reference to the user");
    nm_queue_fini(&q);
}

/* At most max_users users are tracked; users nothing references are
 * forgotten, the one idle for longest first, to make room. */
static void test_user_bound(void)
{
    nm_queue q;
    nm_queue_init(&q, 3, NULL, 0);
    nm_user *a = user(&q, "a"), *b = user(&q, "b"), *c = user(&q, "c");
    nm_user *d;
    tap_is_int(nm_queue_user(&q, "d", &d), SK_ELIMIT,
               "a fourth user while three are referenced: SK_ELIMIT");
    tap_ok(q.q_nusers == 3 && nm_queue_find(&q, "d") == NULL,
           "and it is not tracked");
    nm_user_unref(&q, b);
    nm_user_unref(&q, a);
    tap_is_int(nm_queue_user(&q, "d", &d), 0,
               "with two users idle, a fourth is taken");
    tap_ok(nm_queue_find(&q, "b") == NULL && nm_queue_find(&q, "a") == a &&
               q.q_nusers == 3,
           "the user idle for longest (b) made room, a is kept");

    /* A user with a queued entry is referenced by it. */
    static item e;
    push(&q, c, 2, &e, 1, 1);
    nm_user_unref(&q, c);
    nm_user *x, *y;
    tap_is_int(nm_queue_user(&q, "x", &x), 0, "a fifth user takes a's place");
    tap_is_int(nm_queue_user(&q, "y", &y), SK_ELIMIT,
               "a user with a queued entry is never forgotten");
    take_out(&q, &e);
    tap_ok(nm_queue_user(&q, "y", &y) == 0 && nm_queue_find(&q, "c") == NULL,
           "once its entry is removed it can be");

    /* A forgotten user comes back with its configured weight. */
    nm_queue_fini(&q);
    static const nm_weight w[] = {{"heavy", 9}};
    nm_queue_init(&q, 1, w, 1);
    nm_user *h = user(&q, "heavy");
    nm_user_unref(&q, h);
    nm_user *l = user(&q, "light");
    nm_user_unref(&q, l);
    h = user(&q, "heavy");
    tap_ok(h->us_weight == 9 && q.q_nusers == 1,
           "a user tracked again has its configured weight");
    nm_queue_fini(&q);
}

/* ---- a model of the contract ------------------------------------------ */

enum { MU = 12, MITEMS = 400, MOPS = 20000 };

/* The header's SFQ, written out plainly: per user and level a start and a
 * finish tag, per level a virtual time; the lowest busy level goes, and
 * in it the FIFO with the smallest start tag, the older user on a tie. */
typedef struct model {
    double m_start[MU][SK_PRIORITIES];
    double m_finish[MU][SK_PRIORITIES];
    uint32_t m_len[MU][SK_PRIORITIES];
    double m_vtime[SK_PRIORITIES];
} model;

static item mitems[MITEMS];
static int mitem_user[MITEMS];

static int model_user_of(nm_user *const *us, const nm_user *u)
{
    for (int i = 0; i < MU; i++)
        if (us[i] == u)
            return i;
    return -1;
}

/* The item the model would serve next, or NULL. */
static item *model_next(const model *m)
{
    for (unsigned p = 0; p < SK_PRIORITIES; p++) {
        int best = -1;
        for (int i = 0; i < MU; i++)
            if (m->m_len[i][p] > 0 &&
                (best < 0 || m->m_start[i][p] < m->m_start[best][p]))
                best = i;
        if (best < 0)
            continue;
        item *head = NULL;
        for (int k = 0; k < MITEMS; k++)
            if (mitems[k].it_queued && mitem_user[k] == best &&
                mitems[k].it_q.qe_prio == p &&
                (head == NULL || mitems[k].it_order < head->it_order))
                head = &mitems[k];
        return head;
    }
    return NULL;
}

static void test_model(void)
{
    static nm_weight w[MU];
    static model m;
    sk_rng rng;
    sk_rng_seed(&rng, 2024);
    for (int i = 0; i < MU; i++) {
        snprintf(w[i].nw_user, sizeof w[i].nw_user, "m%d", i);
        w[i].nw_weight = 1 + (uint32_t)sk_rng_below(&rng, 8);
    }
    nm_queue q;
    nm_queue_init(&q, MU, w, MU);
    nm_user *us[MU];
    for (int i = 0; i < MU; i++)
        us[i] = user(&q, w[i].nw_user); /* creation order = index */

    int pushes = 0, removes = 0, decisions = 0;
    int wrong_next = 0, wrong_counts = 0;
    uint64_t order = 0;
    uint32_t total = 0;
    for (int op = 0; op < MOPS; op++) {
        uint64_t r = sk_rng_below(&rng, 100);
        if (r < 40 && total < MITEMS) {
            int k;
            do
                k = (int)sk_rng_below(&rng, MITEMS);
            while (mitems[k].it_queued);
            int i = (int)sk_rng_below(&rng, MU);
            /* Mostly the first levels, so that levels compete. */
            uint8_t p = (uint8_t)(sk_rng_below(&rng, 4) == 0
                                      ? sk_rng_below(&rng, SK_PRIORITIES)
                                      : sk_rng_below(&rng, 3));
            mitem_user[k] = i;
            mitems[k].it_order = order++;
            push(&q, us[i], p, &mitems[k], k,
                 1 + (uint32_t)sk_rng_below(&rng, 3));
            if (m.m_len[i][p]++ == 0) {
                if (m.m_start[i][p] < m.m_vtime[p])
                    m.m_start[i][p] = m.m_vtime[p];
                if (m.m_start[i][p] < m.m_finish[i][p])
                    m.m_start[i][p] = m.m_finish[i][p];
            }
            total++;
            pushes++;
        } else if (r < 55 && total > 0) {
            /* Cancel a queued entry chosen at random. */
            int k;
            do
                k = (int)sk_rng_below(&rng, MITEMS);
            while (!mitems[k].it_queued);
            m.m_len[mitem_user[k]][mitems[k].it_q.qe_prio]--;
            take_out(&q, &mitems[k]);
            total--;
            removes++;
        } else {
            item *want = model_next(&m);
            item *got = item_of(nm_queue_peek(&q));
            if (got != want) {
                if (wrong_next++ < 3)
                    tap_diag("op %d: queue serves item %d, model %d", op,
                             got ? got->it_id : -1, want ? want->it_id : -1);
                want = got; /* follow the queue, to count later errors */
            }
            if (want == NULL)
                continue;
            int i = model_user_of(us, want->it_q.qe_user);
            unsigned p = want->it_q.qe_prio;
            m.m_vtime[p] = m.m_start[i][p];
            m.m_finish[i][p] = m.m_start[i][p] + 1.0 / w[i].nw_weight;
            m.m_start[i][p] = m.m_finish[i][p];
            bool leaves = want->it_left == 1;
            serve(&q);
            if (leaves) {
                m.m_len[i][p]--;
                total--;
            }
            decisions++;
        }
        uint32_t queued_u = 0;
        int ui = op % MU;
        for (unsigned p = 0; p < SK_PRIORITIES; p++)
            queued_u += m.m_len[ui][p];
        if (q.q_total != total || us[ui]->us_queued != queued_u)
            wrong_counts++;
    }
    tap_ok(wrong_next == 0,
           "%d pushes, %d removals, %d decisions: every decision as the "
           "model's (%d differ)",
           pushes, removes, decisions, wrong_next);
    tap_is_int(wrong_counts, 0, "queued counts agree with the model");
    for (int k = 0; k < MITEMS; k++)
        if (mitems[k].it_queued)
            take_out(&q, &mitems[k]);
    tap_ok(nm_queue_peek(&q) == NULL && q.q_total == 0,
           "with every entry removed the queue is empty");
    nm_queue_fini(&q);
}

int main(void)
{
    tap_timeout(60);
    tap_plan_lazy();
    test_empty();
    test_fifo();
    test_shares();
    test_sfq_bound();
    test_priority();
    test_no_credit();
    test_remove();
    test_user_bound();
    test_model();
    tap_done();
    return tap_exit_status();
}
