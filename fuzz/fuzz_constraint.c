/*
 * fuzz_constraint.c - libFuzzer target for the placement constraint
 * parser: any input must either be refused with an error naming a
 * position inside it (or just past its end), or give valid records that
 * print back to text parsing to the same records.
 */
#include "sk_constraint.h"
#include "skylark.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sk_cspec cs, again;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char spec[SK_MAX_CSPEC_LEN + 2];
    size_t n = size < sizeof spec - 1 ? size : sizeof spec - 1;
    memcpy(spec, data, n);
    spec[n] = '\0';
    n = strlen(spec);
    char err[200];
    int rc = sk_constraint_parse(spec, &cs, err, sizeof err);
    if (rc != 0) {
        unsigned pos = 0;
        if ((rc != SK_EINVAL && rc != SK_ELIMIT) ||
            sscanf(err, "at %u: ", &pos) != 1 || pos < 1 || pos > n + 1 ||
            cs.cs_n != 0)
            abort();
        return 0;
    }
    for (uint32_t i = 0; i < cs.cs_n; i++) {
        char text[512];
        const sk_constraint *a = &cs.cs_items[i];
        if (!sk_constraint_valid(a))
            abort();
        sk_constraint_format(a, text, sizeof text);
        if (sk_constraint_parse(text, &again, err, sizeof err) != 0 ||
            again.cs_n != 1)
            abort();
        const sk_constraint *b = &again.cs_items[0];
        if (strcmp(a->cn_source, b->cn_source) != 0 ||
            strcmp(a->cn_target, b->cn_target) != 0 ||
            strcmp(a->cn_label, b->cn_label) != 0 ||
            a->cn_count != b->cn_count || a->cn_group != b->cn_group ||
            a->cn_all != b->cn_all || a->cn_min != b->cn_min ||
            a->cn_max != b->cn_max || a->cn_weight != b->cn_weight)
            abort();
    }
    return 0;
}
