/*
 * test_constraint.c - the placement constraint language: specs parse to
 * the records they mean, errors name the position that is wrong, records
 * print back to text that parses to the same records, and hostile input
 * (random bytes, mutated specs, limits) gets an error, never a crash or
 * an invalid record.
 */
#include "sk_constraint.h"
#include "sk_rng.h"
#include "skylark.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sk_cspec cs; /* big: not on the stack */
static sk_cspec cs2;

static bool same(const sk_constraint *a, const sk_constraint *b)
{
    return strcmp(a->cn_source, b->cn_source) == 0 &&
           a->cn_count == b->cn_count && a->cn_group == b->cn_group &&
           strcmp(a->cn_label, b->cn_label) == 0 &&
           strcmp(a->cn_target, b->cn_target) == 0 && a->cn_all == b->cn_all &&
           a->cn_min == b->cn_min && a->cn_max == b->cn_max &&
           a->cn_weight == b->cn_weight;
}

/* Every record of cs prints to an item that parses back to it. */
static bool round_trips(void)
{
    for (uint32_t i = 0; i < cs.cs_n; i++) {
        char text[512], err[160];
        if (!sk_constraint_valid(&cs.cs_items[i]))
            return false;
        sk_constraint_format(&cs.cs_items[i], text, sizeof text);
        if (sk_constraint_parse(text, &cs2, err, sizeof err) != 0 ||
            cs2.cs_n != 1 || !same(&cs.cs_items[i], &cs2.cs_items[0])) {
            tap_diag("'%s' does not round-trip: %s", text, err);
            return false;
        }
    }
    return true;
}

static void test_valid(void)
{
    char err[160];
    tap_is_int(sk_constraint_parse("zk=3,NOTIN,NODE,zk", &cs, err, sizeof err),
               0, "YARN's example parses");
    const sk_constraint *c = &cs.cs_items[0];
    tap_ok(cs.cs_n == 1 && strcmp(c->cn_source, "zk") == 0 &&
               c->cn_count == 3 && c->cn_group == SK_GROUP_NODE &&
               strcmp(c->cn_target, "zk") == 0 && !c->cn_all &&
               c->cn_min == 0 && c->cn_max == 0 && c->cn_weight == 0,
           "anti-affinity: 0..0 of zk per node, hard, this job");

    tap_is_int(sk_constraint_parse("hb,in,rack,all/zk:st,CARDINALITY,NODE,st,"
                                   "0,2,SOFT=5:x,CARDINALITY,LABEL=zone,app/y,"
                                   "2,*,HARD",
                                   &cs, err, sizeof err),
               0, "three items, lower-case keywords, namespaces, modes");
    tap_is_int((int)cs.cs_n, 3, "three records");
    c = &cs.cs_items[0];
    tap_ok(c->cn_group == SK_GROUP_RACK && c->cn_all && c->cn_min == 1 &&
               c->cn_max == SK_CARD_ANY,
           "affinity: 1..any of every job's zk per rack");
    c = &cs.cs_items[1];
    tap_ok(c->cn_min == 0 && c->cn_max == 2 && c->cn_weight == 5,
           "cardinality 0..2, soft with weight 5");
    c = &cs.cs_items[2];
    tap_ok(c->cn_group == SK_GROUP_LABEL && strcmp(c->cn_label, "zone") == 0 &&
               !c->cn_all && c->cn_min == 2 && c->cn_max == SK_CARD_ANY &&
               c->cn_weight == 0,
           "label group, app/ namespace, 2..*, hard");
    tap_ok(round_trips(), "the records print back to the same records");

    tap_is_int(sk_constraint_parse(" a , AND( NOTIN,NODE,b : AND(IN,RACK,c:"
                                   "NOTIN,RACK,d)) , SOFT ",
                                   &cs, err, sizeof err),
               0, "nested AND with spaces");
    tap_ok(cs.cs_n == 3 && cs.cs_items[0].cn_weight == 1 &&
               cs.cs_items[2].cn_weight == 1 &&
               strcmp(cs.cs_items[2].cn_source, "a") == 0 &&
               strcmp(cs.cs_items[2].cn_target, "d") == 0,
           "AND's operands become records with the item's tag and mode");
    tap_ok(round_trips(), "and print back");
}

/* spec fails with rc and exactly the message want. */
static void bad(const char *spec, int rc, const char *want)
{
    char err[160];
    int got = sk_constraint_parse(spec, &cs, err, sizeof err);
    tap_ok(got == rc && strcmp(err, want) == 0 && cs.cs_n == 0, "'%s': %s",
           spec, want);
    if (got != rc || strcmp(err, want) != 0)
        tap_diag("got %d '%s'", got, err);
}

static void test_errors(void)
{
    bad("", SK_EINVAL, "at 1: expected a source tag, got the end");
    bad("zk=3,NOTIN,NOD,zk", SK_EINVAL,
        "at 12: expected NODE, RACK or LABEL=KEY, got 'NOD'");
    bad("zk=0,NOTIN,NODE,zk", SK_EINVAL,
        "at 4: the task count must be "
        "1..100000");
    bad("zk,NEAR,NODE,zk", SK_EINVAL,
        "at 4: expected IN, NOTIN, CARDINALITY or AND, got 'NEAR'");
    bad("zk,IN,NODE,zk,soft=0", SK_EINVAL, "at 20: the weight must be 1..1000");
    bad("zk,IN,NODE,zk,MAYBE", SK_EINVAL,
        "at 15: expected HARD or SOFT, got 'MAYBE'");
    bad("zk,CARDINALITY,NODE,zk,3,2", SK_EINVAL,
        "at 26: the maximum 2 is below the minimum 3");
    bad("zk,CARDINALITY,NODE,zk,x,2", SK_EINVAL,
        "at 24: expected the minimum, got 'x'");
    bad("zk,IN,NODE,zk;hb", SK_EINVAL, "at 14: unexpected ';'");
    bad("zk,IN,NODE,zk\x01", SK_EINVAL, "at 14: unexpected byte 0x01");
    bad("zk,IN,NODE,zk:", SK_EINVAL,
        "at 15: expected a source tag, got the "
        "end");
    bad("zk,IN,NODE,zk hb", SK_EINVAL,
        "at 15: expected ':' or the end, got "
        "'hb'");
    bad("zk,AND(IN,NODE,a", SK_EINVAL, "at 17: expected ')', got the end");
    bad("zk,IN,LABEL=,a", SK_EINVAL, "at 13: expected a label key, got ','");
    bad("zk,IN,NODE,some/a", SK_EINVAL,
        "at 16: expected ':' or the end, got "
        "'/'");
    bad("a,AND(AND(AND(AND(AND(IN,NODE,a))))))", SK_EINVAL,
        "at 19: AND nested over 4 deep");

    char spec[SK_MAX_CSPEC_LEN + 2];
    memset(spec, 'a', sizeof spec - 1);
    spec[sizeof spec - 1] = '\0';
    bad(spec, SK_ELIMIT, "at 4097: the spec is over 4096 bytes");
    memset(spec, 'a', 70);
    strcpy(spec + 70, ",IN,NODE,a");
    bad(spec, SK_EINVAL, "at 1: a source tag is over 63 bytes");
    /* 33 records */
    size_t n = (size_t)sprintf(spec, "a,AND(IN,NODE,b");
    for (int i = 1; i < 33; i++)
        n += (size_t)sprintf(spec + n, ":IN,NODE,b");
    sprintf(spec + n, ")");
    bad(spec, SK_ELIMIT, "at 327: more than 32 constraints");
    char tiny[8];
    tap_is_int(sk_constraint_parse("zk,IN,X,zk", &cs, tiny, sizeof tiny),
               SK_EINVAL, "a short error buffer is truncated, not overrun");
    tap_ok(strlen(tiny) == 7, "and NUL-terminated");
}

/* Random bytes and mutated specs: 0 with valid records that round-trip,
 * or an error whose position lies within the spec (or just past it). */
static void test_hostile(void)
{
    static const char *seeds[] = {
        "zk=3,NOTIN,NODE,zk",
        "hb,IN,RACK,all/zk:st,CARDINALITY,NODE,st,0,2,SOFT=5",
        "a,AND(NOTIN,NODE,b:AND(IN,RACK,c:NOTIN,LABEL=z,d)),SOFT",
        "x,CARDINALITY,LABEL=zone,app/y,2,*,HARD",
    };
    static const char alphabet[] = "=,:()/* aAzZ09_.-INOTRDCHSFLBEK\x01\xff";
    sk_rng rng;
    sk_rng_seed(&rng, 23);
    int ok = 0, errs = 0, wrong = 0;
    for (int iter = 0; iter < 20000; iter++) {
        char spec[128];
        size_t len;
        if (iter % 4 == 0) {
            len = sk_rng_below(&rng, sizeof spec);
            for (size_t i = 0; i < len; i++)
                spec[i] = (char)(1 + sk_rng_below(&rng, 255));
        } else {
            const char *s = seeds[sk_rng_below(&rng, 4)];
            len = strlen(s);
            memcpy(spec, s, len);
            for (int m = 1 + (int)sk_rng_below(&rng, 3); m > 0; m--) {
                size_t at = sk_rng_below(&rng, len + 1);
                char ch = alphabet[sk_rng_below(&rng, sizeof alphabet - 1)];
                switch (sk_rng_below(&rng, 3)) {
                case 0: /* replace */
                    if (at < len)
                        spec[at] = ch;
                    break;
                case 1: /* insert */
                    if (len + 1 < sizeof spec) {
                        memmove(spec + at + 1, spec + at, len - at);
                        spec[at] = ch;
                        len++;
                    }
                    break;
                default: /* delete */
                    if (at < len) {
                        memmove(spec + at, spec + at + 1, len - at - 1);
                        len--;
                    }
                }
            }
        }
        spec[len] = '\0';
        len = strlen(spec);
        char err[160];
        int rc = sk_constraint_parse(spec, &cs, err, sizeof err);
        if (rc == 0) {
            ok++;
            if (cs.cs_n == 0 || !round_trips())
                wrong++;
        } else {
            errs++;
            unsigned pos = 0;
            if ((rc != SK_EINVAL && rc != SK_ELIMIT) ||
                sscanf(err, "at %u: ", &pos) != 1 || pos < 1 || pos > len + 1 ||
                cs.cs_n != 0) {
                if (wrong++ < 3)
                    tap_diag("'%s': %d '%s'", spec, rc, err);
            }
        }
    }
    tap_diag("hostile: %d parsed, %d refused", ok, errs);
    tap_ok(wrong == 0, "20000 hostile specs: valid records or a positioned "
                       "error");
    tap_ok(ok > 100 && errs > 100, "both outcomes were exercised");
}

int main(void)
{
    tap_plan_lazy();
    test_valid();
    test_errors();
    test_hostile();
    tap_done();
    return tap_exit_status();
}
