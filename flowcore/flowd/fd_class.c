/*
 * fd_class.c - equivalence classes of jobs: jobs whose tasks ask for the
 * same resources and carry the same labels share one class, so that a
 * policy that must look at where a task fits (multires) or may go
 * (labels) builds arcs per class and node, not per task and node. A
 * class lives while a live job refers to it; at most fdc_max_classes
 * exist (a job that would make one more is refused).
 */
#include "fd_int.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool same(const fd_class *k, const sk_submit_job *sj,
                 char *const *sorted)
{
    if (k->k_res.r_cpu_milli != sj->sj_res.r_cpu_milli ||
        k->k_res.r_mem_mb != sj->sj_res.r_mem_mb ||
        k->k_nlabels != sj->sj_nlabels)
        return false;
    for (uint32_t i = 0; i < k->k_nlabels; i++)
        if (strcmp(k->k_labels[i], sorted[i]) != 0)
            return false;
    return true;
}

static void class_dirty(fd_core *c, fd_class *k)
{
    if (!k->k_dirty) {
        k->k_dirty = true;
        fd_list_push(&c->c_dirty_classes, &k->k_dirty_link);
    }
}

int fd_class_ref(fd_core *c, const sk_submit_job *sj, fd_class **out)
{
    char *sorted[SK_MAX_LABELS];
    uint32_t nl = sj->sj_nlabels;
    if (nl > SK_MAX_LABELS)
        return SK_ELIMIT;
    if (nl > 0) { /* sj_labels may be NULL without labels */
        memcpy(sorted, sj->sj_labels, nl * sizeof *sorted);
        qsort(sorted, nl, sizeof *sorted, cmp_str);
    }
    for (uint32_t i = 0; i < c->c_classes.sl_len; i++) {
        fd_class *k = fd_slots_get(&c->c_classes, i);
        if (k != NULL && same(k, sj, sorted)) {
            if (k->k_refs++ == 0)
                class_dirty(c, k); /* revived before its removal */
            *out = k;
            return 0;
        }
    }
    if (c->c_nclasses >= (uint64_t)c->c_cfg.fdc_max_classes)
        return SK_ELIMIT;
    fd_class *k = calloc(1, sizeof *k);
    if (k == NULL)
        return SK_ENOMEM;
    if (nl > 0 && (k->k_labels = calloc(nl, sizeof *k->k_labels)) == NULL) {
        free(k);
        return SK_ENOMEM;
    }
    for (uint32_t i = 0; i < nl; i++) {
        if ((k->k_labels[i] = strdup(sorted[i])) == NULL) {
            k->k_nlabels = i;
            fd_class_free(c, k);
            return SK_ENOMEM;
        }
    }
    k->k_nlabels = nl;
    k->k_res = sj->sj_res;
    k->k_slot = UINT32_MAX;
    if (fd_slots_take(&c->c_classes, k, &k->k_slot) != 0) {
        fd_class_free(c, k);
        return SK_ENOMEM;
    }
    k->k_refs = 1;
    c->c_nclasses++;
    class_dirty(c, k);
    *out = k;
    return 0;
}

void fd_class_unref(fd_core *c, fd_class *k)
{
    if (k != NULL && --k->k_refs == 0)
        class_dirty(c, k); /* removed at the next sync */
}

void fd_class_free(fd_core *c, fd_class *k)
{
    fd_list_remove(&k->k_dirty_link);
    if (k->k_slot != UINT32_MAX) {
        fd_slots_give(&c->c_classes, k->k_slot);
        c->c_nclasses--;
    }
    for (uint32_t i = 0; i < k->k_nlabels; i++)
        free(k->k_labels[i]);
    free(k->k_labels);
    free(k);
}

bool fd_class_fits_labels(const fd_class *k, const fd_node *n)
{
    for (uint32_t i = 0; i < k->k_nlabels; i++) {
        bool found = false;
        for (uint32_t j = 0; j < n->n_nlabels && !found; j++)
            found = strcmp(k->k_labels[i], n->n_labels[j]) == 0;
        if (!found)
            return false;
    }
    return true;
}
