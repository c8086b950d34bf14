/*
 * sim_work.c - workloads: the job file reader and writer, and the
 * synthetic generator (see sim_work.h for the format).
 */
#include "sim_work.h"
#include "sim_cons.h"

#include "skylark.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NFIELDS 11

/* A piece of a line: [p, p + n). */
typedef struct span {
    const char *p;
    size_t n;
} span;

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' ||
           c == '-';
}

static bool valid_name(const char *s, size_t len, size_t max)
{
    if (len == 0 || len > max)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!name_char(s[i]))
            return false;
    return true;
}

int sim_names_user(sim_names *n, const char *name, size_t len, uint32_t *idx)
{
    if (!valid_name(name, len, SIM_NAME_MAX))
        return SK_EINVAL;
    for (uint32_t i = 0; i < n->n_nusers; i++)
        if (strlen(n->n_users[i].u_name) == len &&
            memcmp(n->n_users[i].u_name, name, len) == 0) {
            *idx = i;
            return 0;
        }
    if (n->n_nusers == SIM_MAX_USERS)
        return SK_ELIMIT;
    sim_user *u = &n->n_users[n->n_nusers];
    memset(u, 0, sizeof *u);
    memcpy(u->u_name, name, len);
    u->u_weight = 1;
    *idx = n->n_nusers++;
    return 0;
}

int sim_names_label(sim_names *n, const char *name, size_t len, uint32_t *idx)
{
    if (!valid_name(name, len, SIM_LABEL_MAX))
        return SK_EINVAL;
    for (uint32_t i = 0; i < n->n_nlabels; i++)
        if (strlen(n->n_labels[i]) == len &&
            memcmp(n->n_labels[i], name, len) == 0) {
            *idx = i;
            return 0;
        }
    if (n->n_nlabels == SIM_MAX_LABELS)
        return SK_ELIMIT;
    memcpy(n->n_labels[n->n_nlabels], name, len);
    n->n_labels[n->n_nlabels][len] = '\0';
    *idx = n->n_nlabels++;
    return 0;
}

void sim_job_free(sim_job *j)
{
    if (j == NULL)
        return;
    free(j->j_dur);
    free(j->j_cut);
    free(j->j_pref_off);
    free(j->j_pref);
    sim_cons_free(j->j_cons);
    free(j);
}

const char *sim_dist_name(sim_dist_kind k)
{
    switch (k) {
    case SIM_DIST_CONST:
        return "const";
    case SIM_DIST_EXP:
        return "exp";
    case SIM_DIST_PARETO:
        return "pareto";
    }
    return "?";
}

uint64_t sim_dist_draw(const sim_dist *d, sk_rng *rng)
{
    double v;
    switch (d->d_kind) {
    case SIM_DIST_EXP:
        v = sk_rng_exponential(rng, d->d_mean);
        break;
    case SIM_DIST_PARETO:
        v = sk_rng_pareto(rng, d->d_shape, d->d_mean);
        break;
    default:
        v = d->d_mean;
        break;
    }
    if (!(v < (double)SIM_MAX_DURATION))
        v = (double)SIM_MAX_DURATION;
    uint64_t us = (uint64_t)llround(v);
    return us > 0 ? us : 1;
}

/* parse_u64 reads a whole span of decimal digits. */
static bool parse_u64(span s, uint64_t max, uint64_t *out)
{
    if (s.n == 0 || s.n > 20)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (s.p[i] < '0' || s.p[i] > '9')
            return false;
        uint64_t d = (uint64_t)(s.p[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

/* parse_double reads a whole span as a finite number. */
static bool parse_double(span s, double *out)
{
    char buf[64];
    if (s.n == 0 || s.n >= sizeof buf)
        return false;
    memcpy(buf, s.p, s.n);
    buf[s.n] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end != '\0' || errno != 0 || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* next_piece splits s at the first sep: the piece before it in *piece, s
 * moves past it. Returns false when s was exhausted before. */
static bool next_piece(span *s, char sep, span *piece, bool *more)
{
    if (!*more)
        return false;
    const char *e = memchr(s->p, sep, s->n);
    if (e == NULL) {
        *piece = *s;
        s->p += s->n;
        s->n = 0;
        *more = false;
        return true;
    }
    piece->p = s->p;
    piece->n = (size_t)(e - s->p);
    s->n -= piece->n + 1;
    s->p = e + 1;
    return true;
}

int sim_dist_parse(const char *text, size_t len, sim_dist *out)
{
    span s = {text, len}, kind, a, b;
    bool more = true;
    if (!next_piece(&s, ':', &kind, &more) || !next_piece(&s, ':', &a, &more))
        return SK_EINVAL;
    sim_dist d = {0};
    if (kind.n == 6 && memcmp(kind.p, "pareto", 6) == 0) {
        if (!next_piece(&s, ':', &b, &more) || more ||
            !parse_double(a, &d.d_shape) || !parse_double(b, &d.d_mean) ||
            !(d.d_shape > 1 && d.d_shape <= 100))
            return SK_EINVAL;
        d.d_kind = SIM_DIST_PARETO;
    } else {
        if (more || !parse_double(a, &d.d_mean))
            return SK_EINVAL;
        if (kind.n == 5 && memcmp(kind.p, "const", 5) == 0)
            d.d_kind = SIM_DIST_CONST;
        else if (kind.n == 3 && memcmp(kind.p, "exp", 3) == 0)
            d.d_kind = SIM_DIST_EXP;
        else
            return SK_EINVAL;
    }
    if (!(d.d_mean >= 1 && d.d_mean <= (double)SIM_MAX_DURATION))
        return SK_EINVAL;
    *out = d;
    return 0;
}

/* ---- the generator ---------------------------------------------------- */

int sim_src_gen(sim_src *s, const sim_gen *g, sim_names *names, uint64_t seed,
                char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (!(g->g_load > 0 && g->g_load <= 100) || g->g_tasks == 0 ||
        g->g_tasks > 100000 || g->g_slots == 0 || g->g_dist.d_kind == 0) {
        snprintf(err, errlen,
                 "generator: load must be in (0, 100], tasks in 1..100000");
        return SK_EINVAL;
    }
    if (g->g_pref_share > 0 && (g->g_pref_count == 0 || g->g_pref_count > 16 ||
                                g->g_pref_count > g->g_nodes)) {
        snprintf(err, errlen,
                 "generator: preferred nodes per task must be in 1..16 "
                 "and at most the number of nodes");
        return SK_EINVAL;
    }
    if (names->n_nusers == 0) {
        uint32_t idx;
        sim_names_user(names, "user", 4, &idx);
    }
    s->s_gen = *g;
    s->s_names = names;
    s->s_nodes = g->g_nodes;
    s->s_next_id = 1;
    sk_rng_seed(&s->s_rng, seed);
    return 0;
}

static uint32_t pick_user(sim_src *s)
{
    const sim_names *n = s->s_names;
    double total = 0;
    for (uint32_t i = 0; i < n->n_nusers; i++)
        total += n->n_users[i].u_share;
    if (!(total > 0))
        return (uint32_t)sk_rng_below(&s->s_rng, n->n_nusers);
    double x = sk_rng_double(&s->s_rng) * total;
    for (uint32_t i = 0; i < n->n_nusers; i++) {
        x -= n->n_users[i].u_share;
        if (x < 0)
            return i;
    }
    return n->n_nusers - 1;
}

/* rand_prefs gives every task of j k distinct random nodes. */
static int rand_prefs(sim_src *s, sim_job *j, uint32_t k)
{
    j->j_pref_off = malloc((j->j_ntasks + 1) * sizeof *j->j_pref_off);
    j->j_pref = malloc((size_t)j->j_ntasks * k * sizeof *j->j_pref);
    if (j->j_pref_off == NULL || j->j_pref == NULL)
        return SK_ENOMEM;
    for (uint32_t t = 0; t <= j->j_ntasks; t++)
        j->j_pref_off[t] = t * k;
    for (uint32_t t = 0; t < j->j_ntasks; t++) {
        uint32_t *p = &j->j_pref[t * k];
        for (uint32_t i = 0; i < k; i++) {
            uint32_t v;
            bool dup;
            do {
                v = (uint32_t)sk_rng_below(&s->s_rng, s->s_nodes);
                dup = false;
                for (uint32_t q = 0; q < i; q++)
                    dup |= p[q] == v;
            } while (dup);
            p[i] = v;
        }
    }
    return 0;
}

static int gen_next(sim_src *s, sim_job **out)
{
    const sim_gen *g = &s->s_gen;
    double rate = g->g_load * (double)g->g_slots /
                  ((double)g->g_tasks * g->g_dist.d_mean); /* jobs per us */
    if (s->s_seq > 0)
        s->s_clock += sk_rng_exponential(&s->s_rng, 1.0 / rate);
    sim_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return SK_ENOMEM;
    j->j_seq = s->s_seq++;
    j->j_id = s->s_next_id++;
    j->j_arrival = (sk_time)llround(s->s_clock);
    j->j_user = pick_user(s);
    j->j_prio = s->s_names->n_users[j->j_user].u_prio;
    j->j_ntasks = g->g_tasks;
    j->j_dur = malloc(g->g_tasks * sizeof *j->j_dur);
    if (j->j_dur == NULL) {
        sim_job_free(j);
        return SK_ENOMEM;
    }
    for (uint32_t t = 0; t < g->g_tasks; t++)
        j->j_dur[t] = sim_dist_draw(&g->g_dist, &s->s_rng);
    for (uint32_t i = 0; i < g->g_nlabel_reqs; i++)
        if (sk_rng_double(&s->s_rng) < g->g_label_share[i])
            j->j_labels[j->j_nlabels++] = (uint8_t)g->g_label[i];
    if (g->g_pref_share > 0 && sk_rng_double(&s->s_rng) < g->g_pref_share &&
        rand_prefs(s, j, g->g_pref_count) != 0) {
        sim_job_free(j);
        return SK_ENOMEM;
    }
    *out = j;
    return 1;
}

/* ---- the job file ----------------------------------------------------- */

int sim_src_file(sim_src *s, const char *path, sim_names *names, uint32_t nodes,
                 uint64_t seed, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->s_file_mode = true;
    s->s_names = names;
    s->s_nodes = nodes;
    s->s_path = path;
    sk_rng_seed(&s->s_rng, seed);
    if (strcmp(path, "-") == 0) {
        s->s_fp = stdin;
    } else if ((s->s_fp = fopen(path, "r")) == NULL) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return SK_ESYS;
    }
    return 0;
}

void sim_src_close(sim_src *s)
{
    if (s->s_fp != NULL && s->s_fp != stdin)
        fclose(s->s_fp);
    free(s->s_line);
    s->s_fp = NULL;
    s->s_line = NULL;
}

/* bad writes "path:line: field: message" into err. */
static int bad(const sim_src *s, char *err, size_t errlen, const char *field,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int bad(const sim_src *s, char *err, size_t errlen, const char *field,
               const char *fmt, ...)
{
    int n = snprintf(err, errlen, "%s:%" PRIu64 ": %s: ", s->s_path,
                     s->s_lineno, field);
    if (n >= 0 && (size_t)n < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return SK_EPROTO;
}

static int parse_durations(sim_src *s, sim_job *j, span f, char *err,
                           size_t errlen)
{
    j->j_dur = malloc(j->j_ntasks * sizeof *j->j_dur);
    if (j->j_dur == NULL)
        return SK_ENOMEM;
    const char *colon = memchr(f.p, ':', f.n);
    if (colon != NULL) {
        sim_dist d;
        if (sim_dist_parse(f.p, f.n, &d) != 0)
            return bad(s, err, errlen, "durations",
                       "expected const:US, exp:MEAN_US, "
                       "pareto:SHAPE:MEAN_US (shape in (1, 100], mean "
                       ">= 1) or a list, got '%.*s'",
                       (int)(f.n > 60 ? 60 : f.n), f.p);
        for (uint32_t t = 0; t < j->j_ntasks; t++)
            j->j_dur[t] = sim_dist_draw(&d, &s->s_rng);
        return 0;
    }
    bool more = true;
    span piece;
    uint32_t t = 0;
    while (next_piece(&f, ';', &piece, &more)) {
        if (t == j->j_ntasks)
            return bad(s, err, errlen, "durations",
                       "more durations than the %u tasks", j->j_ntasks);
        bool cut = piece.n > 0 && piece.p[piece.n - 1] == '+';
        if (cut)
            piece.n--;
        if (!parse_u64(piece, SIM_MAX_DURATION, &j->j_dur[t]))
            return bad(s, err, errlen, "durations",
                       "task %u: expected microseconds (0..%llu, '+' for "
                       "cut short), got '%.*s'",
                       t, (unsigned long long)SIM_MAX_DURATION,
                       (int)(piece.n > 40 ? 40 : piece.n), piece.p);
        if (cut) {
            if (j->j_cut == NULL && (j->j_cut = calloc(j->j_ntasks, 1)) == NULL)
                return SK_ENOMEM;
            j->j_cut[t] = 1;
            j->j_ncut++;
        }
        t++;
    }
    if (t != j->j_ntasks)
        return bad(s, err, errlen, "durations", "%u durations for %u tasks", t,
                   j->j_ntasks);
    return 0;
}

static int parse_labels(sim_src *s, sim_job *j, span f, char *err,
                        size_t errlen)
{
    if (f.n == 0)
        return 0;
    bool more = true;
    span piece;
    while (next_piece(&f, ';', &piece, &more)) {
        if (j->j_nlabels == SIM_JOB_LABELS)
            return bad(s, err, errlen, "labels", "more than %u labels",
                       SIM_JOB_LABELS);
        uint32_t idx;
        int rc = sim_names_label(s->s_names, piece.p, piece.n, &idx);
        if (rc == SK_ELIMIT)
            return bad(s, err, errlen, "labels",
                       "more than %u distinct labels in the run",
                       SIM_MAX_LABELS);
        if (rc != 0)
            return bad(s, err, errlen, "labels",
                       "'%.*s' is not 1..%u of [A-Za-z0-9_.:-]",
                       (int)(piece.n > 40 ? 40 : piece.n), piece.p,
                       SIM_LABEL_MAX);
        j->j_labels[j->j_nlabels++] = (uint8_t)idx;
    }
    return 0;
}

static int parse_prefs(sim_src *s, sim_job *j, span f, char *err, size_t errlen)
{
    if (f.n == 0)
        return 0;
    if (f.n > 5 && memcmp(f.p, "rand:", 5) == 0) {
        uint64_t k;
        if (!parse_u64((span){f.p + 5, f.n - 5}, 16, &k) || k == 0 ||
            k > s->s_nodes)
            return bad(s, err, errlen, "preferred",
                       "rand:K needs K in 1..16 and at most the %u nodes",
                       s->s_nodes);
        return rand_prefs(s, j, (uint32_t)k);
    }
    j->j_pref_off = calloc(j->j_ntasks + 1, sizeof *j->j_pref_off);
    uint32_t cap = j->j_ntasks, len = 0;
    j->j_pref = malloc(cap * sizeof *j->j_pref);
    if (j->j_pref_off == NULL || j->j_pref == NULL)
        return SK_ENOMEM;
    bool more = true;
    span task;
    uint32_t t = 0;
    while (next_piece(&f, ';', &task, &more)) {
        if (t == j->j_ntasks)
            return bad(s, err, errlen, "preferred",
                       "entries for more than the %u tasks", j->j_ntasks);
        bool tmore = task.n > 0;
        span node;
        uint32_t n = 0;
        while (next_piece(&task, ' ', &node, &tmore)) {
            uint64_t v;
            if (!parse_u64(node, UINT32_MAX, &v) || v >= s->s_nodes)
                return bad(s, err, errlen, "preferred",
                           "task %u: '%.*s' is not a node index below %u", t,
                           (int)(node.n > 20 ? 20 : node.n), node.p,
                           s->s_nodes);
            if (++n > 16)
                return bad(s, err, errlen, "preferred",
                           "task %u: more than 16 preferred nodes", t);
            if (len == cap) {
                cap *= 2;
                uint32_t *p = realloc(j->j_pref, cap * sizeof *p);
                if (p == NULL)
                    return SK_ENOMEM;
                j->j_pref = p;
            }
            j->j_pref[len++] = (uint32_t)v;
        }
        j->j_pref_off[++t] = len;
    }
    if (t != j->j_ntasks)
        return bad(s, err, errlen, "preferred",
                   "%u entries for %u tasks (use ';' between tasks)", t,
                   j->j_ntasks);
    return 0;
}

static int parse_line(sim_src *s, span line, sim_job *j, char *err,
                      size_t errlen)
{
    static const char *names[NFIELDS] = {
        "arrival_us", "job",    "user",      "priority", "class",      "tasks",
        "durations",  "labels", "preferred", "tags",     "constraints"};
    span f[NFIELDS] = {{0}};
    bool more = true;
    uint32_t n = 0;
    span piece;
    while (next_piece(&line, ',', &piece, &more)) {
        if (n == NFIELDS)
            return bad(s, err, errlen, "line", "more than %u fields", NFIELDS);
        f[n++] = piece;
    }
    if (n < 7)
        return bad(s, err, errlen, "line",
                   "%u fields, expected 7 to %u (%s,...)", n, NFIELDS,
                   names[0]);
    uint64_t v;
    if (!parse_u64(f[0], UINT64_MAX / 2, &v))
        return bad(s, err, errlen, names[0], "not an integer");
    if (v < s->s_last)
        return bad(s, err, errlen, names[0],
                   "%llu is before the previous job's %llu: the file must "
                   "be in time order",
                   (unsigned long long)v, (unsigned long long)s->s_last);
    j->j_arrival = v;
    if (!parse_u64(f[1], UINT64_MAX, &j->j_id))
        return bad(s, err, errlen, names[1], "not an unsigned integer");
    int rc = sim_names_user(s->s_names, f[2].p, f[2].n, &j->j_user);
    if (rc == SK_ELIMIT)
        return bad(s, err, errlen, names[2], "more than %u users",
                   SIM_MAX_USERS);
    if (rc != 0)
        return bad(s, err, errlen, names[2],
                   "'%.*s' is not 1..%u of [A-Za-z0-9_.:-]",
                   (int)(f[2].n > 40 ? 40 : f[2].n), f[2].p, SIM_NAME_MAX);
    if (!parse_u64(f[3], 7, &v))
        return bad(s, err, errlen, names[3], "not in 0..7");
    j->j_prio = (uint8_t)v;
    if (f[4].n == 5 && memcmp(f[4].p, "short", 5) == 0)
        j->j_long = false;
    else if (f[4].n == 4 && memcmp(f[4].p, "long", 4) == 0)
        j->j_long = true;
    else
        return bad(s, err, errlen, names[4], "expected short or long");
    if (!parse_u64(f[5], 100000, &v) || v == 0)
        return bad(s, err, errlen, names[5], "not in 1..100000");
    j->j_ntasks = (uint32_t)v;
    if ((rc = parse_durations(s, j, f[6], err, errlen)) != 0)
        return rc;
    if ((rc = parse_labels(s, j, f[7], err, errlen)) != 0)
        return rc;
    if ((rc = parse_prefs(s, j, f[8], err, errlen)) != 0)
        return rc;
    char why[320];
    rc = sim_cons_parse(f[9].p, f[9].n, f[10].p, f[10].n, j->j_ntasks,
                        &j->j_cons, why, sizeof why);
    if (rc == SK_EINVAL)
        return bad(s, err, errlen, "tags/constraints", "%s", why);
    return rc;
}

/* read_line reads one line into s->s_line, at most SIM_MAX_LINE_BYTES
 * (a longer one is not buffered whole). Returns its length with the
 * newline, 0 at the end of the file, -1 on a read error, -2 when too
 * long. */
static ssize_t read_line(sim_src *s)
{
    size_t len = 0;
    int c;
    while ((c = getc(s->s_fp)) != EOF) {
        if (len == SIM_MAX_LINE_BYTES)
            return -2;
        if (len + 1 >= s->s_linecap) {
            size_t cap = s->s_linecap ? s->s_linecap * 2 : 4096;
            char *line = realloc(s->s_line, cap);
            if (line == NULL)
                return -1;
            s->s_line = line;
            s->s_linecap = cap;
        }
        s->s_line[len++] = (char)c;
        if (c == '\n')
            break;
    }
    if (ferror(s->s_fp))
        return -1;
    return (ssize_t)len;
}

static bool is_header(span line)
{
    static const char hdr[] = "arrival_us,";
    return line.n >= sizeof hdr - 1 && memcmp(line.p, hdr, sizeof hdr - 1) == 0;
}

int sim_src_next(sim_src *s, sim_job **out, char *err, size_t errlen)
{
    if (!s->s_file_mode)
        return gen_next(s, out);
    for (;;) {
        errno = 0;
        ssize_t len = read_line(s);
        if (len == 0)
            return 0;
        s->s_lineno++;
        if (len == -2)
            return bad(s, err, errlen, "line", "longer than %u bytes",
                       SIM_MAX_LINE_BYTES);
        if (len < 0) {
            snprintf(err, errlen, "%s:%" PRIu64 ": %s", s->s_path, s->s_lineno,
                     strerror(errno ? errno : EIO));
            return errno == ENOMEM ? SK_ENOMEM : SK_EPROTO;
        }
        span line = {s->s_line, (size_t)len};
        while (line.n > 0 &&
               (line.p[line.n - 1] == '\n' || line.p[line.n - 1] == '\r'))
            line.n--;
        if (memchr(line.p, '\0', line.n) != NULL)
            return bad(s, err, errlen, "line", "contains a NUL byte");
        if (line.n == 0 || line.p[0] == '#' || is_header(line))
            continue;
        sim_job *j = calloc(1, sizeof *j);
        if (j == NULL)
            return SK_ENOMEM;
        int rc = parse_line(s, line, j, err, errlen);
        if (rc != 0) {
            sim_job_free(j);
            if (rc == SK_ENOMEM)
                snprintf(err, errlen, "%s:%" PRIu64 ": out of memory",
                         s->s_path, s->s_lineno);
            return rc;
        }
        j->j_seq = s->s_seq++;
        s->s_last = j->j_arrival;
        *out = j;
        return 1;
    }
}

/* ---- writing ---------------------------------------------------------- */

int sim_jobs_header(FILE *fp, const char *comment)
{
    fprintf(fp, "# skylark-sim job file, format 1 (sim/sim_work.h)\n");
    if (comment != NULL && comment[0] != '\0')
        fprintf(fp, "# %s\n", comment);
    fprintf(fp, "arrival_us,job,user,priority,class,tasks,durations,labels,"
                "preferred\n");
    return ferror(fp) ? SK_ESYS : 0;
}

int sim_job_write(FILE *fp, const sim_job *j, const sim_names *names)
{
    fprintf(fp, "%llu,%llu,%s,%u,%s,%u,", (unsigned long long)j->j_arrival,
            (unsigned long long)j->j_id, names->n_users[j->j_user].u_name,
            j->j_prio, j->j_long ? "long" : "short", j->j_ntasks);
    for (uint32_t t = 0; t < j->j_ntasks; t++)
        fprintf(fp, "%s%llu%s", t ? ";" : "", (unsigned long long)j->j_dur[t],
                j->j_cut != NULL && j->j_cut[t] ? "+" : "");
    fputc(',', fp);
    for (uint32_t i = 0; i < j->j_nlabels; i++)
        fprintf(fp, "%s%s", i ? ";" : "", names->n_labels[j->j_labels[i]]);
    fputc(',', fp);
    if (j->j_pref_off != NULL)
        for (uint32_t t = 0; t < j->j_ntasks; t++) {
            if (t > 0)
                fputc(';', fp);
            for (uint32_t k = j->j_pref_off[t]; k < j->j_pref_off[t + 1]; k++)
                fprintf(fp, "%s%u", k > j->j_pref_off[t] ? " " : "",
                        j->j_pref[k]);
        }
    if (j->j_cons != NULL)
        sim_cons_write(fp, j->j_cons);
    fputc('\n', fp);
    return ferror(fp) ? SK_ESYS : 0;
}
