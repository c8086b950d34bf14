/*
 * sim_loc.c - racks and data locality in skylark-sim (see sim_loc.h).
 */
#include "sim_loc.h"

#include "sim_jobmap.h"
#include "skylark.h"

#include <stdio.h>
#include <stdlib.h>

struct sim_loc {
    const sim_params *l_p;
    sim_jobmap l_jobs;   /* sim_job by j_seq, arrived and not ended */
    uint64_t l_count[4]; /* launches by sim_loc_kind */
    uint64_t l_extra_us; /* run time added by transfers */
};

int sim_loc_new(const sim_params *p, sim_loc **out)
{
    *out = NULL;
    if (p->p_rack_size == 0)
        return 0;
    sim_loc *l = calloc(1, sizeof *l);
    if (l == NULL)
        return SK_ENOMEM;
    l->l_p = p;
    *out = l;
    return 0;
}

void sim_loc_free(sim_loc *l)
{
    if (l == NULL)
        return;
    sim_jobmap_fini(&l->l_jobs);
    free(l);
}

const char *sim_rack_name(const sim_params *p, uint32_t node, char *buf)
{
    snprintf(buf, 16, "r%u", node / p->p_rack_size);
    return buf;
}

int sim_loc_arrive(sim_loc *l, sim_job *j)
{
    return sim_jobmap_put(&l->l_jobs, j->j_seq, j);
}

void sim_loc_end(sim_loc *l, const sim_job *j)
{
    sim_jobmap_del(&l->l_jobs, j->j_seq);
}

sim_loc_kind sim_loc_classify(const sim_params *p, const sim_job *j, uint32_t t,
                              uint32_t node)
{
    uint32_t n = sim_job_npref(j, t);
    if (n == 0)
        return SIM_LOC_NONE;
    const uint32_t *pref = &j->j_pref[j->j_pref_off[t]];
    sim_loc_kind k = SIM_LOC_CROSS;
    for (uint32_t q = 0; q < n; q++) {
        if (pref[q] == node)
            return SIM_LOC_NODE;
        if (pref[q] / p->p_rack_size == node / p->p_rack_size)
            k = SIM_LOC_RACK;
    }
    return k;
}

sk_time sim_loc_launch(sim_loc *l, uint64_t seq, uint32_t t, uint32_t node)
{
    const sim_job *j = sim_jobmap_get(&l->l_jobs, seq);
    if (j == NULL || t >= j->j_ntasks)
        return 0;
    sim_loc_kind k = sim_loc_classify(l->l_p, j, t, node);
    l->l_count[k]++;
    sk_time extra = k == SIM_LOC_RACK    ? l->l_p->p_remote_rack
                    : k == SIM_LOC_CROSS ? l->l_p->p_remote_cross
                                         : 0;
    l->l_extra_us += (uint64_t)extra;
    return extra;
}

uint32_t sim_loc_racks(const sim_params *p, const sim_job *j, uint32_t t,
                       const char **out, char (*names)[16])
{
    uint32_t n = sim_job_npref(j, t), nr = 0;
    const uint32_t *pref = n > 0 ? &j->j_pref[j->j_pref_off[t]] : NULL;
    for (uint32_t q = 0; q < n; q++) {
        uint32_t r = pref[q] / p->p_rack_size, seen = 0;
        for (uint32_t i = 0; i < q && !seen; i++)
            seen = pref[i] / p->p_rack_size == r;
        if (seen)
            continue;
        out[nr] = sim_rack_name(p, pref[q], names[nr]);
        nr++;
    }
    return nr;
}

uint64_t sim_loc_count(const sim_loc *l, sim_loc_kind k)
{
    return l->l_count[k];
}

void sim_loc_report(const sim_loc *l, FILE *out)
{
    const uint64_t *c = l->l_count;
    uint64_t pref = c[SIM_LOC_NODE] + c[SIM_LOC_RACK] + c[SIM_LOC_CROSS];
    double d = pref > 0 ? (double)pref : 1;
    fprintf(out,
            "locality            racks of %u nodes%s; task runs with "
            "preferences %llu: on a preferred node %llu (%.3f), on a "
            "preferred rack %llu (%.3f), across racks %llu (%.3f); "
            "without %llu; transfer time added %.1f s\n",
            l->l_p->p_rack_size,
            l->l_p->p_hide_prefs ? ", preferences hidden from placers" : "",
            (unsigned long long)pref, (unsigned long long)c[SIM_LOC_NODE],
            (double)c[SIM_LOC_NODE] / d, (unsigned long long)c[SIM_LOC_RACK],
            (double)c[SIM_LOC_RACK] / d, (unsigned long long)c[SIM_LOC_CROSS],
            (double)c[SIM_LOC_CROSS] / d, (unsigned long long)c[SIM_LOC_NONE],
            (double)l->l_extra_us / 1e6);
}
