/*
 * sim_cons.c - the tags and constraints columns of skylark-sim's job
 * file (sim_cons.h).
 */
#include "sim_cons.h"
#include "sk_proto.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

void sim_cons_free(sim_cons *c)
{
    if (c == NULL)
        return;
    free(c->sc_off);
    free(c->sc_tagv);
    free(c->sc_text);
    free(c);
}

const char **sim_cons_task_tags(const sim_cons *c, uint32_t t, uint32_t *n)
{
    if (c->sc_off == NULL) {
        *n = c->sc_nsame;
        return c->sc_tagv;
    }
    *n = c->sc_off[t + 1] - c->sc_off[t];
    return &c->sc_tagv[c->sc_off[t]];
}

/* Splits c->sc_text (the tags column, copied) into tags. */
static int split_tags(sim_cons *c, size_t len, uint32_t ntasks, char *err,
                      size_t errlen)
{
    uint32_t lists = 1;
    for (size_t i = 0; i < len; i++)
        lists += c->sc_text[i] == ';';
    if (lists != 1 && lists != ntasks) {
        snprintf(err, errlen,
                 "tags: %u lists separated by ';', expected one (every "
                 "task) or one per task (%u)",
                 lists, ntasks);
        return SK_EINVAL;
    }
    c->sc_tagv = malloc((len / 2 + 2) * sizeof *c->sc_tagv);
    if (lists > 1 &&
        (c->sc_off = malloc((lists + 1) * sizeof *c->sc_off)) == NULL)
        return SK_ENOMEM;
    if (c->sc_tagv == NULL)
        return SK_ENOMEM;
    uint32_t nt = 0, list = 0, inlist = 0;
    if (c->sc_off != NULL)
        c->sc_off[0] = 0;
    char *p = c->sc_text, *end = c->sc_text + len;
    while (p <= end) {
        char *q = p;
        while (q < end && *q != ' ' && *q != ';')
            q++;
        char sep = q < end ? *q : ';';
        *q = '\0';
        if (*p != '\0') {
            if (!sk_tag_valid(p)) {
                snprintf(err, errlen,
                         "tags: '%.64s' (byte %zu) is not 1..%u of "
                         "[A-Za-z0-9_.-]",
                         p, (size_t)(p - c->sc_text) + 1, SK_MAX_TAG_LEN);
                return SK_EINVAL;
            }
            if (++inlist > SK_MAX_TAGS) {
                snprintf(err, errlen, "tags: task %u has more than %u tags",
                         list, SK_MAX_TAGS);
                return SK_EINVAL;
            }
            c->sc_tagv[nt++] = p;
        }
        if (sep == ';') {
            if (c->sc_off != NULL)
                c->sc_off[++list] = nt;
            inlist = 0;
        }
        p = q + 1;
    }
    c->sc_nsame = nt;
    return 0;
}

int sim_cons_parse(const char *tags, size_t ntags, const char *cons,
                   size_t ncons, uint32_t ntasks, sim_cons **out, char *err,
                   size_t errlen)
{
    *out = NULL;
    if (ntags == 0 && ncons == 0)
        return 0;
    if (ncons > SK_MAX_CSPEC_LEN) {
        snprintf(err, errlen, "constraints: longer than %u bytes",
                 SK_MAX_CSPEC_LEN);
        return SK_EINVAL;
    }
    sim_cons *c = calloc(1, sizeof *c);
    if (c == NULL || (c->sc_text = malloc(ntags + 1)) == NULL) {
        sim_cons_free(c);
        return SK_ENOMEM;
    }
    c->sc_ntasks = ntasks;
    if (ntags > 0)
        memcpy(c->sc_text, tags, ntags);
    c->sc_text[ntags] = '\0';
    int rc = split_tags(c, ntags, ntasks, err, errlen);
    if (rc == 0 && ncons > 0) {
        char spec[SK_MAX_CSPEC_LEN + 1], why[200];
        for (size_t i = 0; i < ncons; i++)
            spec[i] = cons[i] == ' ' ? ',' : cons[i];
        spec[ncons] = '\0';
        if (sk_constraint_parse(spec, &c->sc_spec, why, sizeof why) != 0) {
            snprintf(err, errlen, "constraints: %s", why);
            rc = SK_EINVAL;
        }
    }
    if (rc != 0) {
        sim_cons_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void sim_cons_write(FILE *fp, const sim_cons *c)
{
    fputc(',', fp);
    for (uint32_t t = 0; c != NULL && t < (c->sc_off ? c->sc_ntasks : 1); t++) {
        uint32_t n;
        const char **v = sim_cons_task_tags(c, t, &n);
        if (t > 0)
            fputc(';', fp);
        for (uint32_t i = 0; i < n; i++)
            fprintf(fp, "%s%s", i ? " " : "", v[i]);
    }
    fputc(',', fp);
    for (uint32_t i = 0; c != NULL && i < c->sc_spec.cs_n; i++) {
        char text[512];
        sk_constraint_format(&c->sc_spec.cs_items[i], text, sizeof text);
        for (char *p = text; *p != '\0'; p++)
            if (*p == ',')
                *p = ' ';
        fprintf(fp, "%s%s", i ? ":" : "", text);
    }
}
