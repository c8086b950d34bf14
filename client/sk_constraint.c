/*
 * sk_constraint.c - the placement constraint language: a recursive
 * descent parser over a one-token lookahead scanner, the printer, and
 * the validity rules (sk_constraint.h has the grammar).
 */
#include "sk_constraint.h"
#include "skylark.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAX_AND_DEPTH 4 /* AND( AND( ... ) ): bounded recursion */

typedef enum tok_kind {
    T_END,
    T_NAME, /* [A-Za-z0-9_.-]+ */
    T_PUNCT /* one of = , : ( ) / * */
} tok_kind;

typedef struct cp {
    const char *p_spec;
    size_t p_len;
    size_t p_at;     /* next byte to scan */
    tok_kind p_kind; /* the current token */
    size_t p_tpos;   /* its position (0-based) */
    size_t p_tlen;
    char *p_names; /* where names are copied */
    size_t p_nused;
    sk_cspec *p_out;
    char *p_err;
    size_t p_errlen;
    int p_rc;
} cp;

static bool name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
}

bool sk_tag_valid(const char *s)
{
    if (s == NULL || s[0] == '\0')
        return false;
    size_t n = 0;
    for (; s[n] != '\0'; n++)
        if (n >= SK_MAX_TAG_LEN || !name_char(s[n]))
            return false;
    return true;
}

bool sk_constraint_valid(const sk_constraint *c)
{
    if (!sk_tag_valid(c->cn_source) || !sk_tag_valid(c->cn_target) ||
        c->cn_group > SK_GROUP_MAX)
        return false;
    bool label = c->cn_group == SK_GROUP_LABEL;
    if (label ? !sk_tag_valid(c->cn_label)
              : c->cn_label != NULL && c->cn_label[0] != '\0')
        return false;
    return c->cn_min <= c->cn_max && c->cn_min <= SK_MAX_TASKS &&
           (c->cn_max <= SK_MAX_TASKS || c->cn_max == SK_CARD_ANY) &&
           c->cn_count <= SK_MAX_TASKS && c->cn_weight <= SK_MAX_WEIGHT;
}

/* ---- scanner ----------------------------------------------------------- */

/* Records the first error: "at POS: ...", POS 1-based. */
__attribute__((format(printf, 4, 5))) static int fail(cp *p, int rc, size_t pos,
                                                      const char *fmt, ...)
{
    if (p->p_rc != 0)
        return p->p_rc;
    p->p_rc = rc;
    if (p->p_errlen > 0) {
        int n = snprintf(p->p_err, p->p_errlen, "at %zu: ", pos + 1);
        if (n >= 0 && (size_t)n < p->p_errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->p_err + n, p->p_errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return rc;
}

/* Moves to the next token. A byte that starts no token is an error. */
static int next(cp *p)
{
    while (p->p_at < p->p_len && p->p_spec[p->p_at] == ' ')
        p->p_at++;
    p->p_tpos = p->p_at;
    if (p->p_at >= p->p_len) {
        p->p_kind = T_END;
        p->p_tlen = 0;
        return 0;
    }
    char ch = p->p_spec[p->p_at];
    if (name_char(ch)) {
        size_t e = p->p_at;
        while (e < p->p_len && name_char(p->p_spec[e]))
            e++;
        p->p_kind = T_NAME;
        p->p_tlen = e - p->p_at;
        p->p_at = e;
        return 0;
    }
    if (strchr("=,:()/*", ch) != NULL) {
        p->p_kind = T_PUNCT;
        p->p_tlen = 1;
        p->p_at++;
        return 0;
    }
    if ((unsigned char)ch < 0x20 || (unsigned char)ch >= 0x7f)
        return fail(p, SK_EINVAL, p->p_at, "unexpected byte 0x%02x",
                    (unsigned char)ch);
    return fail(p, SK_EINVAL, p->p_at, "unexpected '%c'", ch);
}

/* What the current token is, for error messages. */
static const char *shown(cp *p, char *buf, size_t size)
{
    if (p->p_kind == T_END)
        return "the end";
    int len = p->p_tlen > 24 ? 24 : (int)p->p_tlen;
    snprintf(buf, size, "'%.*s%s'", len, p->p_spec + p->p_tpos,
             p->p_tlen > 24 ? "..." : "");
    return buf;
}

static int expected(cp *p, const char *what)
{
    char b[40];
    return fail(p, SK_EINVAL, p->p_tpos, "expected %s, got %s", what,
                shown(p, b, sizeof b));
}

static bool is_punct(const cp *p, char ch)
{
    return p->p_kind == T_PUNCT && p->p_spec[p->p_tpos] == ch;
}

static bool is_word(const cp *p, const char *w)
{
    return p->p_kind == T_NAME && p->p_tlen == strlen(w) &&
           strncasecmp(p->p_spec + p->p_tpos, w, p->p_tlen) == 0;
}

static int punct(cp *p, char ch)
{
    char what[8];
    snprintf(what, sizeof what, "'%c'", ch);
    return is_punct(p, ch) ? next(p) : expected(p, what);
}

/* The current token as a tag (copied, NUL-terminated) into *out. */
static int tag(cp *p, const char *what, const char **out)
{
    if (p->p_kind != T_NAME)
        return expected(p, what);
    if (p->p_tlen > SK_MAX_TAG_LEN)
        return fail(p, SK_EINVAL, p->p_tpos, "%s is over %u bytes", what,
                    SK_MAX_TAG_LEN);
    char *d = p->p_names + p->p_nused;
    memcpy(d, p->p_spec + p->p_tpos, p->p_tlen);
    d[p->p_tlen] = '\0';
    p->p_nused += p->p_tlen + 1;
    *out = d;
    return next(p);
}

/* The current token as a number in [lo, hi]. */
static int number(cp *p, const char *what, uint32_t lo, uint32_t hi,
                  uint32_t *out)
{
    if (p->p_kind != T_NAME)
        return expected(p, what);
    uint64_t v = 0;
    for (size_t i = 0; i < p->p_tlen; i++) {
        char ch = p->p_spec[p->p_tpos + i];
        if (ch < '0' || ch > '9')
            return expected(p, what);
        v = v * 10 + (uint64_t)(ch - '0');
        if (v > hi)
            break;
    }
    if (v < lo || v > hi)
        return fail(p, SK_EINVAL, p->p_tpos, "%s must be %u..%u", what, lo, hi);
    *out = (uint32_t)v;
    return next(p);
}

/* ---- parser ------------------------------------------------------------ */

static int group(cp *p, sk_constraint *c)
{
    c->cn_label = "";
    if (is_word(p, "NODE"))
        c->cn_group = SK_GROUP_NODE;
    else if (is_word(p, "RACK"))
        c->cn_group = SK_GROUP_RACK;
    else if (is_word(p, "LABEL")) {
        c->cn_group = SK_GROUP_LABEL;
        int rc = next(p);
        if (rc == 0)
            rc = punct(p, '=');
        return rc != 0 ? rc : tag(p, "a label key", &c->cn_label);
    } else
        return expected(p, "NODE, RACK or LABEL=KEY");
    return next(p);
}

static int target(cp *p, sk_constraint *c)
{
    int rc;
    if ((is_word(p, "all") || is_word(p, "app")) && p->p_at < p->p_len &&
        p->p_spec[p->p_at] == '/') {
        c->cn_all = is_word(p, "all");
        if ((rc = next(p)) != 0 || (rc = next(p)) != 0)
            return rc;
    }
    return tag(p, "a target tag", &c->cn_target);
}

/* A new record at position pos. */
static int leaf(cp *p, size_t pos, sk_constraint **out)
{
    if (p->p_out->cs_n >= SK_MAX_CONSTRAINTS)
        return fail(p, SK_ELIMIT, pos, "more than %u constraints",
                    SK_MAX_CONSTRAINTS);
    *out = &p->p_out->cs_items[p->p_out->cs_n++];
    memset(*out, 0, sizeof **out);
    return 0;
}

static int expr(cp *p, int depth)
{
    size_t pos = p->p_tpos;
    sk_constraint *c = NULL;
    int rc;
    if (is_word(p, "AND")) {
        if (depth >= MAX_AND_DEPTH)
            return fail(p, SK_EINVAL, pos, "AND nested over %d deep",
                        MAX_AND_DEPTH);
        if ((rc = next(p)) != 0 || (rc = punct(p, '(')) != 0 ||
            (rc = expr(p, depth + 1)) != 0)
            return rc;
        while (is_punct(p, ':'))
            if ((rc = next(p)) != 0 || (rc = expr(p, depth + 1)) != 0)
                return rc;
        return punct(p, ')');
    }
    bool in = is_word(p, "IN"), notin = is_word(p, "NOTIN");
    bool card = is_word(p, "CARDINALITY");
    if (!in && !notin && !card)
        return expected(p, "IN, NOTIN, CARDINALITY or AND");
    if ((rc = leaf(p, pos, &c)) != 0 || (rc = next(p)) != 0 ||
        (rc = punct(p, ',')) != 0 || (rc = group(p, c)) != 0 ||
        (rc = punct(p, ',')) != 0 || (rc = target(p, c)) != 0)
        return rc;
    c->cn_min = in ? 1 : 0;
    c->cn_max = in ? SK_CARD_ANY : 0;
    if (!card)
        return 0;
    if ((rc = punct(p, ',')) != 0 ||
        (rc = number(p, "the minimum", 0, SK_MAX_TASKS, &c->cn_min)) != 0 ||
        (rc = punct(p, ',')) != 0)
        return rc;
    size_t maxpos = p->p_tpos;
    if (is_punct(p, '*')) {
        c->cn_max = SK_CARD_ANY;
        return next(p);
    }
    if ((rc = number(p, "the maximum or '*'", 0, SK_MAX_TASKS, &c->cn_max)) !=
        0)
        return rc;
    if (c->cn_max < c->cn_min)
        return fail(p, SK_EINVAL, maxpos,
                    "the maximum %u is below the "
                    "minimum %u",
                    c->cn_max, c->cn_min);
    return 0;
}

static int item(cp *p)
{
    const char *source;
    uint32_t count = 0, weight = 0;
    int rc;
    if ((rc = tag(p, "a source tag", &source)) != 0)
        return rc;
    if (is_punct(p, '=') &&
        ((rc = next(p)) != 0 ||
         (rc = number(p, "the task count", 1, SK_MAX_TASKS, &count)) != 0))
        return rc;
    uint32_t first = p->p_out->cs_n;
    if ((rc = punct(p, ',')) != 0 || (rc = expr(p, 0)) != 0)
        return rc;
    if (is_punct(p, ',')) {
        if ((rc = next(p)) != 0)
            return rc;
        if (is_word(p, "HARD")) {
            if ((rc = next(p)) != 0)
                return rc;
        } else if (is_word(p, "SOFT")) {
            weight = 1;
            if ((rc = next(p)) != 0)
                return rc;
            if (is_punct(p, '=') &&
                ((rc = next(p)) != 0 ||
                 (rc = number(p, "the weight", 1, SK_MAX_WEIGHT, &weight)) !=
                     0))
                return rc;
        } else
            return expected(p, "HARD or SOFT");
    }
    for (uint32_t i = first; i < p->p_out->cs_n; i++) {
        p->p_out->cs_items[i].cn_source = source;
        p->p_out->cs_items[i].cn_count = count;
        p->p_out->cs_items[i].cn_weight = weight;
    }
    return 0;
}

int sk_constraint_parse(const char *spec, sk_cspec *out, char *err,
                        size_t errlen)
{
    cp p = {.p_spec = spec != NULL ? spec : "",
            .p_names = out->cs_names,
            .p_out = out,
            .p_err = err,
            .p_errlen = errlen};
    out->cs_n = 0;
    if (errlen > 0)
        err[0] = '\0';
    p.p_len = strnlen(p.p_spec, SK_MAX_CSPEC_LEN + 1);
    if (p.p_len > SK_MAX_CSPEC_LEN)
        return fail(&p, SK_ELIMIT, SK_MAX_CSPEC_LEN,
                    "the spec is over %u "
                    "bytes",
                    SK_MAX_CSPEC_LEN);
    int rc = next(&p);
    while (rc == 0 && (rc = item(&p)) == 0 && p.p_kind != T_END)
        rc = is_punct(&p, ':') ? next(&p) : expected(&p, "':' or the end");
    if (rc != 0)
        out->cs_n = 0;
    return rc;
}

int sk_constraint_format(const sk_constraint *c, char *buf, size_t size)
{
    char count[16] = "", group[80], card[32] = "", mode[24] = "";
    if (c->cn_count > 0)
        snprintf(count, sizeof count, "=%u", c->cn_count);
    if (c->cn_group == SK_GROUP_LABEL)
        snprintf(group, sizeof group, "LABEL=%s", c->cn_label);
    else
        snprintf(group, sizeof group, "%s",
                 c->cn_group == SK_GROUP_RACK ? "RACK" : "NODE");
    const char *op = "CARDINALITY";
    if (c->cn_min == 0 && c->cn_max == 0)
        op = "NOTIN";
    else if (c->cn_min == 1 && c->cn_max == SK_CARD_ANY)
        op = "IN";
    else if (c->cn_max == SK_CARD_ANY)
        snprintf(card, sizeof card, ",%u,*", c->cn_min);
    else
        snprintf(card, sizeof card, ",%u,%u", c->cn_min, c->cn_max);
    if (c->cn_weight > 0)
        snprintf(mode, sizeof mode, ",SOFT=%u", c->cn_weight);
    return snprintf(buf, size, "%s%s,%s,%s,%s%s%s%s", c->cn_source, count, op,
                    group, c->cn_all ? "all/" : "", c->cn_target, card, mode);
}
