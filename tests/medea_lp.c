/*
 * medea_lp.c - MEDEA's integer program in CPLEX LP form, solved by glpsol
 * (medea_lp.h). Column numbers in glpsol's solution follow the order of
 * first appearance, so the objective names every column first, in the
 * order of the cols table.
 */
#include "medea_lp.h"
#include "fd_constraint_int.h"
#include "sk_rng.h"
#include "skylark.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct lpw {
    FILE *f;
    const fd_cx *x;
    int32_t *xcol; /* [task * nodes + node]: column of x(t,n), or -1 */
    int32_t *vcol; /* [con * tasks + task]: column of v(c,t), or -1 */
    long cols, rows, terms;
} lpw;

static void term(lpw *w, long long coef, const char *name)
{
    if (coef == 0 && name[0] != 'v' && name[0] != 'x')
        return;
    fprintf(w->f, " %c %lld %s", coef < 0 ? '-' : '+', coef < 0 ? -coef : coef,
            name);
    if (++w->terms % 8 == 0)
        fputc('\n', w->f);
}

static void xname(char *b, size_t n, uint32_t t, uint32_t node)
{
    snprintf(b, n, "x%u_%u", t, node);
}

static void vname(char *b, size_t n, uint32_t c, uint32_t t)
{
    snprintf(b, n, "v%u_%u", c, t);
}

/* Terms sum over nodes of group g (or, g NONE, of no group) of x(u, n)
 * times coef; returns how many were written. */
static long group_terms(lpw *w, const fd_cx_con *c, uint32_t u, int32_t g,
                        long long coef)
{
    char nm[32];
    long k = 0;
    for (uint32_t n = 0; n < w->x->cx_nnodes; n++) {
        int32_t col = w->xcol[(size_t)u * w->x->cx_nnodes + n];
        if (col < 0 || c->cc_gid[n] != g)
            continue;
        xname(nm, sizeof nm, u, n);
        term(w, coef, nm);
        k++;
    }
    return k;
}

/* Rows of constraint ci for subject task t in group g. */
static void con_rows(lpw *w, uint32_t ci, uint32_t t, int32_t g)
{
    const fd_cx *x = w->x;
    const fd_cx_con *c = &x->cx_cons[ci];
    const fd_cx_task *tk = &x->cx_tasks[t];
    bool self = fd_cx_counted(c, tk);
    long long fixed = 0, movable = 0; /* counted tasks in g */
    for (uint32_t u = 0; u < x->cx_ntasks; u++) {
        const fd_cx_task *uk = &x->cx_tasks[u];
        if (!fd_cx_counted(c, uk))
            continue;
        if (!uk->ck_fixed)
            movable++;
        else if (uk->ck_node != FD_CX_NONE && c->cc_gid[uk->ck_node] == g)
            fixed++;
    }
    long long bigm = fixed + movable + 1;
    int32_t v = w->vcol[(size_t)ci * x->cx_ntasks + t];
    char vn[32];
    vname(vn, sizeof vn, ci, t);
    /* y: t in g; a fixed t is in g by construction (y = 1). Row forms:
     * min: cnt - (self + min) y + min v >= 0
     * max: cnt - self y + M y - M v <= max + M */
    for (int side = 0; side < 2; side++) {
        long long bound =
            side == 0 ? (long long)c->cc_min : (long long)c->cc_max;
        if (side == 0 && c->cc_min == 0)
            continue;
        if (side == 1 && (c->cc_max == UINT32_MAX || bound >= fixed + movable))
            continue;
        long long ycoef =
            side == 0 ? -((self ? 1 : 0) + bound) : -(self ? 1 : 0) + bigm;
        long long rhs = side == 0 ? 0 : bound + bigm;
        fprintf(w->f, " r%ld:", w->rows++);
        w->terms = 0;
        long k = 0;
        for (uint32_t u = 0; u < x->cx_ntasks; u++)
            if (!x->cx_tasks[u].ck_fixed && u != t &&
                fd_cx_counted(c, &x->cx_tasks[u]))
                k += group_terms(w, c, u, g, 1);
        if (tk->ck_fixed) /* y = 1, and t is among the fixed in g */
            rhs -= ycoef;
        else /* t's own x in g: counted if self, and y */
            k += group_terms(w, c, t, g, (self ? 1 : 0) + ycoef);
        rhs -= fixed;
        if (v >= 0) {
            term(w, side == 0 ? (long long)c->cc_min : -bigm, vn);
            k++;
        }
        if (k == 0)
            term(w, 0, "x_zero"); /* a row needs a column */
        fprintf(w->f, " %s %lld\n", side == 0 ? ">=" : "<=", rhs);
    }
}

/* A hard cap of a tag towards itself in the job (every counted task is
 * constrained) allows at most max + 1 of them in a group: rows implied by
 * the big-M ones for 0/1 solutions, which tighten the relaxation that
 * glpsol's branch and bound starts from (without them some instances of
 * 10 nodes ran past a minute). */
static void cap_cuts(lpw *w, uint32_t ci)
{
    const fd_cx *x = w->x;
    const fd_cx_con *c = &x->cx_cons[ci];
    if (c->cc_weight != 0 || c->cc_all || c->cc_source != c->cc_target ||
        c->cc_min != 0 || c->cc_max == UINT32_MAX)
        return;
    for (uint32_t g = 0; g < c->cc_ngroups; g++) {
        long long fixed = 0, k = 0;
        for (uint32_t u = 0; u < x->cx_ntasks; u++) {
            const fd_cx_task *uk = &x->cx_tasks[u];
            if (uk->ck_fixed && fd_cx_counted(c, uk) &&
                uk->ck_node != FD_CX_NONE &&
                c->cc_gid[uk->ck_node] == (int32_t)g)
                fixed++;
        }
        fprintf(w->f, " r%ld:", w->rows++);
        w->terms = 0;
        for (uint32_t u = 0; u < x->cx_ntasks; u++)
            if (!x->cx_tasks[u].ck_fixed && fd_cx_counted(c, &x->cx_tasks[u]))
                k += group_terms(w, c, u, (int32_t)g, 1);
        if (k == 0)
            term(w, 0, "x_zero");
        long long rhs = (long long)c->cc_max + 1 - fixed;
        fprintf(w->f, " <= %lld\n", rhs > 0 ? rhs : 0);
    }
}

long long medea_lp_wait_cost(const fd_cx *x)
{
    long long w = 1;
    for (uint32_t c = 0; c < x->cx_ncons; c++)
        for (uint32_t t = 0; t < x->cx_ntasks; t++)
            if (fd_cx_subject(&x->cx_cons[c], &x->cx_tasks[t]))
                w += x->cx_cons[c].cc_weight;
    return w;
}

long medea_lp_write(const fd_cx *x, FILE *f)
{
    uint32_t nt = x->cx_ntasks, nn = x->cx_nnodes, nc = x->cx_ncons;
    lpw w = {.f = f, .x = x};
    w.xcol = malloc(((size_t)nt * nn + 1) * sizeof *w.xcol);
    w.vcol = malloc(((size_t)nc * nt + 1) * sizeof *w.vcol);
    if (w.xcol == NULL || w.vcol == NULL) {
        free(w.xcol);
        free(w.vcol);
        return -1;
    }
    char nm[32];
    fprintf(f,
            "\\ MEDEA placement program: %u nodes, %u tasks, %u "
            "constraints\nMinimize\n obj:",
            nn, nt, nc);
    for (uint32_t t = 0; t < nt; t++)
        for (uint32_t n = 0; n < nn; n++) {
            bool on = !x->cx_tasks[t].ck_fixed && x->cx_room[n] > 0;
            w.xcol[(size_t)t * nn + n] = on ? (int32_t)w.cols++ : -1;
            if (on) {
                xname(nm, sizeof nm, t, n);
                term(&w, -medea_lp_wait_cost(x), nm);
            }
        }
    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t t = 0; t < nt; t++) {
            bool on = x->cx_cons[c].cc_weight > 0 &&
                      fd_cx_subject(&x->cx_cons[c], &x->cx_tasks[t]);
            w.vcol[(size_t)c * nt + t] = on ? (int32_t)w.cols++ : -1;
            if (on) {
                vname(nm, sizeof nm, c, t);
                term(&w, x->cx_cons[c].cc_weight, nm);
            }
        }
    term(&w, 0, "x_zero");
    w.cols++;
    fprintf(f, "\nSubject To\n");
    for (uint32_t t = 0; t < nt; t++) { /* one node at most */
        if (x->cx_tasks[t].ck_fixed)
            continue;
        fprintf(f, " r%ld:", w.rows++);
        w.terms = 0;
        for (uint32_t n = 0; n < nn; n++)
            if (w.xcol[(size_t)t * nn + n] >= 0) {
                xname(nm, sizeof nm, t, n);
                term(&w, 1, nm);
            }
        term(&w, 0, "x_zero");
        fprintf(f, " <= 1\n");
    }
    for (uint32_t n = 0; n < nn; n++) { /* room */
        if (x->cx_room[n] == 0)
            continue;
        fprintf(f, " r%ld:", w.rows++);
        w.terms = 0;
        for (uint32_t t = 0; t < nt; t++)
            if (w.xcol[(size_t)t * nn + n] >= 0) {
                xname(nm, sizeof nm, t, n);
                term(&w, 1, nm);
            }
        term(&w, 0, "x_zero");
        fprintf(f, " <= %u\n", x->cx_room[n]);
    }
    for (uint32_t ci = 0; ci < nc; ci++)
        cap_cuts(&w, ci);
    for (uint32_t ci = 0; ci < nc; ci++) {
        const fd_cx_con *c = &x->cx_cons[ci];
        for (uint32_t t = 0; t < nt; t++) {
            const fd_cx_task *tk = &x->cx_tasks[t];
            if (!fd_cx_subject(c, tk))
                continue;
            if (tk->ck_fixed) {
                if (tk->ck_node != FD_CX_NONE &&
                    c->cc_gid[tk->ck_node] != FD_CX_NONE)
                    con_rows(&w, ci, t, c->cc_gid[tk->ck_node]);
                continue;
            }
            for (uint32_t g = 0; g < c->cc_ngroups; g++)
                con_rows(&w, ci, t, (int32_t)g);
            if (c->cc_min > 0) { /* on a node of no group: counts 0 */
                fprintf(f, " r%ld:", w.rows++);
                w.terms = 0;
                group_terms(&w, c, t, FD_CX_NONE, 1);
                int32_t v = w.vcol[(size_t)ci * nt + t];
                if (v >= 0) {
                    vname(nm, sizeof nm, ci, t);
                    term(&w, -1, nm);
                }
                term(&w, 0, "x_zero");
                fprintf(f, " <= 0\n");
            }
        }
    }
    fprintf(f, "Bounds\n x_zero = 0\nBinary\n");
    w.terms = 0;
    for (uint32_t t = 0; t < nt; t++)
        for (uint32_t n = 0; n < nn; n++)
            if (w.xcol[(size_t)t * nn + n] >= 0) {
                xname(nm, sizeof nm, t, n);
                fprintf(f, " %s%s", nm, ++w.terms % 8 == 0 ? "\n" : "");
            }
    for (uint32_t c = 0; c < nc; c++)
        for (uint32_t t = 0; t < nt; t++)
            if (w.vcol[(size_t)c * nt + t] >= 0) {
                vname(nm, sizeof nm, c, t);
                fprintf(f, " %s%s", nm, ++w.terms % 8 == 0 ? "\n" : "");
            }
    fprintf(f, "\nEnd\n");
    free(w.xcol);
    free(w.vcol);
    return ferror(f) ? -1 : w.rows;
}

const char *medea_lp_glpsol(void)
{
    static const char *paths[] = {"/usr/bin/glpsol", "/usr/local/bin/glpsol"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (access(paths[i], X_OK) == 0)
            return paths[i];
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int medea_lp_solve(fd_cx *x, const char *dir, int tmlim, medea_lp_result *out,
                   char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *glpsol = medea_lp_glpsol();
    if (glpsol == NULL) {
        snprintf(err, errlen, "glpsol not found (Debian glpk-utils)");
        return -1;
    }
    char lp[512], sol[512], cmd[1400];
    snprintf(lp, sizeof lp, "%s/medea.lp", dir);
    snprintf(sol, sizeof sol, "%s/medea.sol", dir);
    FILE *f = fopen(lp, "w");
    if (f == NULL) {
        snprintf(err, errlen, "cannot write %s", lp);
        return -1;
    }
    out->lr_rows = medea_lp_write(x, f);
    if (fclose(f) != 0 || out->lr_rows < 0) {
        snprintf(err, errlen, "cannot write %s", lp);
        return -1;
    }
    unlink(sol);
    snprintf(cmd, sizeof cmd, "%s --lp %s -w %s --tmlim %d >%s/glpsol.log 2>&1",
             glpsol, lp, sol, tmlim, dir);
    double t0 = now_s();
    int st = system(cmd);
    out->lr_seconds = now_s() - t0;
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(err, errlen, "glpsol failed (status %d), see %s/glpsol.log",
                 st, dir);
        return -1;
    }
    f = fopen(sol, "r");
    if (f == NULL) {
        snprintf(err, errlen, "glpsol wrote no solution, see %s/glpsol.log",
                 dir);
        return -1;
    }
    uint32_t nt = x->cx_ntasks, nn = x->cx_nnodes;
    for (uint32_t t = 0; t < nt; t++)
        if (!x->cx_tasks[t].ck_fixed)
            x->cx_tasks[t].ck_node = FD_CX_NONE;
    char line[256];
    long rows = 0, col = 0, todo = 0;
    for (uint32_t t = 0; t < nt; t++)
        todo += !x->cx_tasks[t].ck_fixed;
    while (fgets(line, sizeof line, f) != NULL) {
        char status;
        double obj, val;
        long j;
        if (sscanf(line, "s mip %ld %ld %c %lf", &rows, &out->lr_cols, &status,
                   &obj) == 4) {
            out->lr_optimal = status == 'o';
            out->lr_feasible = status == 'o' || status == 'f';
            out->lr_objective =
                obj + (double)medea_lp_wait_cost(x) * (double)todo;
        } else if (sscanf(line, "j %ld %lf", &j, &val) == 2 && val > 0.5) {
            /* columns 1.. in the objective's order: x(t,n) first */
            col = 0;
            for (uint32_t t = 0; t < nt; t++)
                for (uint32_t n = 0; n < nn; n++)
                    if (!x->cx_tasks[t].ck_fixed && x->cx_room[n] > 0 &&
                        ++col == j)
                        x->cx_tasks[t].ck_node = (int32_t)n;
        }
    }
    fclose(f);
    /* in fd_cx_eval's units: FD_CX_UNPLACED a waiting task */
    long unplaced = 0;
    for (uint32_t t = 0; t < nt; t++)
        unplaced +=
            !x->cx_tasks[t].ck_fixed && x->cx_tasks[t].ck_node == FD_CX_NONE;
    out->lr_objective += (double)unplaced * ((double)FD_CX_UNPLACED -
                                             (double)medea_lp_wait_cost(x));
    if (!out->lr_feasible) {
        snprintf(err, errlen, "glpsol found no solution, see %s/glpsol.log",
                 dir);
        return -1;
    }
    return 0;
}

void medea_gen_free(medea_inst *mi)
{
    free(mi->mi_room);
    free(mi->mi_rack);
    free(mi->mi_gnode);
    free(mi->mi_zone);
    free(mi->mi_tags);
    free(mi->mi_tasks);
    memset(mi, 0, sizeof *mi);
}

static fd_cx_con con(uint32_t job, uint32_t src, uint32_t dst, bool all,
                     uint32_t min, uint32_t max, uint32_t w, uint8_t grp,
                     const int32_t *gid, uint32_t ng)
{
    fd_cx_con c = {.cc_job = job,
                   .cc_source = src,
                   .cc_target = dst,
                   .cc_all = all,
                   .cc_min = min,
                   .cc_max = max,
                   .cc_weight = w,
                   .cc_group = grp,
                   .cc_gid = gid,
                   .cc_ngroups = ng};
    return c;
}

int medea_gen(medea_inst *mi, uint64_t seed, uint32_t nodes, uint32_t tasks,
              uint32_t maxroom)
{
    memset(mi, 0, sizeof *mi);
    sk_rng r;
    sk_rng_seed(&r, seed);
    uint32_t racks = (nodes + 3) / 4;
    mi->mi_room = calloc(nodes, sizeof *mi->mi_room);
    mi->mi_rack = calloc(nodes, sizeof *mi->mi_rack);
    mi->mi_gnode = calloc(nodes, sizeof *mi->mi_gnode);
    mi->mi_zone = calloc(nodes, sizeof *mi->mi_zone);
    mi->mi_tags = calloc(tasks + 1, sizeof *mi->mi_tags);
    mi->mi_tasks = calloc(tasks + 1, sizeof *mi->mi_tasks);
    if (mi->mi_room == NULL || mi->mi_rack == NULL || mi->mi_gnode == NULL ||
        mi->mi_zone == NULL || mi->mi_tags == NULL || mi->mi_tasks == NULL) {
        medea_gen_free(mi);
        return -1;
    }
    uint32_t zones = 3;
    for (uint32_t n = 0; n < nodes; n++) {
        mi->mi_room[n] = 1 + (uint32_t)sk_rng_below(&r, maxroom);
        mi->mi_rack[n] = (int32_t)(n / 4);
        mi->mi_gnode[n] = (int32_t)n;
        mi->mi_zone[n] = sk_rng_below(&r, 3) == 0
                             ? FD_CX_NONE
                             : (int32_t)sk_rng_below(&r, zones);
    }
    /* the shares of the four applications */
    uint32_t nz = tasks / 5 < nodes / 2 ? tasks / 5 : nodes / 2;
    uint32_t nh = tasks * 3 / 10,
             nd = zones * 2 < tasks / 10 ? zones * 2 : tasks / 10;
    uint32_t ns = tasks - nz - nh - nd;
    uint32_t running = nz / 3;
    for (uint32_t t = 0; t < tasks; t++) {
        fd_cx_task *k = &mi->mi_tasks[t];
        uint32_t job = t < nz ? 0 : t < nz + nh ? 1 : t < nz + nh + ns ? 2 : 3;
        mi->mi_tags[t] = job;
        k->ck_job = job;
        k->ck_tags = &mi->mi_tags[t];
        k->ck_ntags = 1;
        k->ck_node = FD_CX_NONE;
        if (job == 0 && t < running) { /* running zk, on distinct nodes */
            uint32_t n = (uint32_t)(t * (nodes / (running ? running : 1)));
            k->ck_fixed = true;
            k->ck_node = (int32_t)n;
            mi->mi_room[n] -= mi->mi_room[n] > 1 ? 1 : 0;
        }
    }
    uint32_t stcap = 1 + (uint32_t)sk_rng_below(&r, 3);
    fd_cx_con *c = mi->mi_cons;
    c[0] = con(0, 0, 0, false, 0, 0, 0, SK_GROUP_NODE, mi->mi_gnode, nodes);
    c[1] =
        con(1, 1, 0, true, 1, UINT32_MAX, 0, SK_GROUP_RACK, mi->mi_rack, racks);
    c[2] = con(1, 1, 1, false, 0, 1, 3, SK_GROUP_NODE, mi->mi_gnode, nodes);
    c[3] = con(2, 2, 2, false, 0, stcap, 0, SK_GROUP_RACK, mi->mi_rack, racks);
    c[4] = con(2, 2, 1, true, 0, 0, 2, SK_GROUP_NODE, mi->mi_gnode, nodes);
    c[5] = con(3, 3, 3, false, 0, 1, 0, SK_GROUP_LABEL, mi->mi_zone, zones);
    mi->mi_x = (fd_cx){.cx_nnodes = nodes,
                       .cx_room = mi->mi_room,
                       .cx_rack = mi->mi_rack,
                       .cx_nracks = racks,
                       .cx_tasks = mi->mi_tasks,
                       .cx_ntasks = tasks,
                       .cx_cons = mi->mi_cons,
                       .cx_ncons = 6,
                       .cx_ntags = 4};
    return 0;
}
