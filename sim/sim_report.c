/*
 * sim_report.c - the summary of a point, as text and as a CSV row (see
 * sim_report.h).
 */
#include "sim_report.h"

#include "sim_flow.h"
#include "sim_theory.h"

#include <math.h>
#include <string.h>
#include <sys/resource.h>

double sim_point_closed_form(const sim_params *p)
{
    if (p->p_jobs_file != NULL || p->p_gen.g_nlabel_reqs > 0 ||
        p->p_gen.g_pref_share > 0)
        return NAN;
    double rho = p->p_gen.g_load;
    uint32_t m = p->p_gen.g_tasks, t = p->p_slots;
    switch (p->p_strategy) {
    case SIM_RANDOM:
        return sim_theory_random(rho, m, t);
    case SIM_PERTASK:
        return sim_theory_pertask(rho, m, p->p_ratio, t);
    case SIM_BATCH:
        return sim_theory_batch(rho, m, p->p_ratio, t);
    default:
        return NAN;
    }
}

static const char *delay_name(sim_delay_kind k)
{
    return k == SIM_DELAY_UNIFORM ? "uniform"
           : k == SIM_DELAY_EXP   ? "exp"
                                  : "fixed";
}

/* sim_point_describe writes a one-line description of the point's
 * parameters into buf. */
static void sim_point_describe(const sim_params *p, const sim_names *names,
                               char *buf, size_t len)
{
    (void)names;
    const sim_strategy *st = sim_strategy_get(p->p_strategy);
    int n = snprintf(buf, len, "%s", st->ss_name);
    if (p->p_strategy != SIM_RANDOM && p->p_strategy != SIM_OMNI)
        n += snprintf(buf + n, len - (size_t)n, " d=%g", p->p_ratio);
    if (p->p_mix != SIM_MIX_SKIP)
        n += snprintf(buf + n, len - (size_t)n, ", mix %s",
                      sim_mix_name(p->p_mix));
    if (p->p_mix == SIM_MIX_FLOW || p->p_mix == SIM_MIX_HYBRID)
        n += snprintf(buf + n, len - (size_t)n, " (%s, solve time %s)",
                      p->p_flow_policy,
                      p->p_solve_time == SIM_SOLVE_WORK       ? "work"
                      : p->p_solve_time == SIM_SOLVE_MEASURED ? "measured"
                                                              : "zero");
    if (p->p_jobs_file != NULL)
        n += snprintf(buf + n, len - (size_t)n, ", jobs from %s",
                      p->p_jobs_file);
    else
        n +=
            snprintf(buf + n, len - (size_t)n,
                     ", load %g, %u-task jobs, %s %g ms tasks", p->p_gen.g_load,
                     p->p_gen.g_tasks, sim_dist_name(p->p_gen.g_dist.d_kind),
                     p->p_gen.g_dist.d_mean / 1000);
    snprintf(buf + n, len - (size_t)n,
             ", %u nodes x %u slots, %u scheduler%s, %s delay %g ms",
             p->p_nodes, p->p_slots, p->p_scheds, p->p_scheds > 1 ? "s" : "",
             delay_name(p->p_delay_kind), (double)p->p_delay / 1000);
}

static double ms(double us)
{
    return us / 1000;
}

void sim_report_print(FILE *out, const sim_point *pt, const sim_names *names,
                      uint32_t idx, uint32_t n)
{
    const sim_params *p = &pt->pt_p;
    const sim_stats *st = &pt->pt_r.r_st;
    char desc[512];
    sim_point_describe(p, names, desc, sizeof desc);
    fprintf(out, "== point %u/%u: %s, seed %llu\n", idx + 1, n, desc,
            (unsigned long long)p->p_seed);
    fprintf(out,
            "jobs                arrived %llu, done %llu, rejected %llu, "
            "long skipped %llu, in flight at the end %llu\n",
            (unsigned long long)st->st_arrived, (unsigned long long)st->st_done,
            (unsigned long long)st->st_rejected,
            (unsigned long long)st->st_long_skipped,
            (unsigned long long)pt->pt_r.r_inflight);
    fprintf(out,
            "measured            %llu jobs (after %llu warm-up), %llu "
            "tasks\n",
            (unsigned long long)st->st_measured_done,
            (unsigned long long)p->p_warmup,
            (unsigned long long)st->st_measured_tasks);
    const sim_hist *r = &st->st_resp, *w = &st->st_wait;
    fprintf(out,
            "job response (ms)   mean %.3f  p5 %.3f  p50 %.3f  p95 %.3f  "
            "p99 %.3f  max %.3f\n",
            ms(sim_hist_mean(r)), ms(sim_hist_quantile(r, 0.05)),
            ms(sim_hist_quantile(r, 0.50)), ms(sim_hist_quantile(r, 0.95)),
            ms(sim_hist_quantile(r, 0.99)), ms((double)r->h_max));
    fprintf(out,
            "task wait (ms)      mean %.3f  p50 %.3f  p90 %.3f  p95 %.3f  "
            "p99 %.3f  max %.3f\n",
            ms(sim_hist_mean(w)), ms(sim_hist_quantile(w, 0.50)),
            ms(sim_hist_quantile(w, 0.90)), ms(sim_hist_quantile(w, 0.95)),
            ms(sim_hist_quantile(w, 0.99)), ms((double)w->h_max));
    if (st->st_long_arrived > 0) {
        const sim_hist *lw = &st->st_long_wait, *lr = &st->st_long_resp;
        fprintf(out,
                "long jobs           %llu in the measured range, %llu tasks, "
                "%llu placed, %llu jobs done; probes behind long tasks "
                "%llu\n",
                (unsigned long long)st->st_long_arrived,
                (unsigned long long)st->st_long_tasks,
                (unsigned long long)lw->h_n, (unsigned long long)lr->h_n,
                (unsigned long long)st->st_behind_long);
        fprintf(out,
                "long placement (ms) mean %.3f  p50 %.3f  p90 %.3f  p99 %.3f  "
                "max %.3f\n",
                ms(sim_hist_mean(lw)), ms(sim_hist_quantile(lw, 0.50)),
                ms(sim_hist_quantile(lw, 0.90)),
                ms(sim_hist_quantile(lw, 0.99)), ms((double)lw->h_max));
        fprintf(out, "long response (ms)  mean %.3f  p50 %.3f  p99 %.3f\n",
                ms(sim_hist_mean(lr)), ms(sim_hist_quantile(lr, 0.50)),
                ms(sim_hist_quantile(lr, 0.99)));
    }
    double zj = st->st_measured_done ? (double)st->st_measured_zero /
                                           (double)st->st_measured_done
                                     : 0;
    double zt = st->st_measured_tasks ? (double)st->st_measured_tasks_zero /
                                            (double)st->st_measured_tasks
                                      : 0;
    bool known =
        p->p_strategy != SIM_LATE || p->p_delay_kind == SIM_DELAY_FIXED;
    if (!known)
        fprintf(out, "no wait             n/a (late binding: needs a fixed "
                     "delay)\n");
    else if (isnan(pt->pt_closed))
        fprintf(out, "no wait             jobs %.4f, tasks %.4f\n", zj, zt);
    else
        fprintf(out,
                "no wait             jobs %.4f, tasks %.4f; closed form "
                "(Table 2) %.4f\n",
                zj, zt, pt->pt_closed);
    fprintf(out,
            "utilisation         %.4f of %llu slots over the arrivals of "
            "the measured jobs; peak %llu busy in the run\n",
            sim_stats_utilisation(st), (unsigned long long)st->st_slots,
            (unsigned long long)st->st_busy_peak);
    uint64_t msgs = sim_stats_messages(st);
    uint64_t tasks = 0;
    for (int s = 1; s <= SK_TASK_STATUS_MAX; s++)
        tasks += st->st_tasks_final[s];
    fprintf(out, "messages            %llu over the network (%.2f per task)",
            (unsigned long long)msgs,
            tasks ? (double)msgs / (double)tasks : 0.0);
    const char *sep = ": ";
    for (int k = 1; k < SIM_MSG_KINDS; k++)
        if (st->st_net[k] > 0) {
            fprintf(out, "%s%s %llu", sep, sim_msg_kind_name(k),
                    (unsigned long long)st->st_net[k]);
            sep = ", ";
        }
    fputc('\n', out);
    uint64_t local = 0;
    for (int k = 0; k < SIM_MSG_KINDS; k++)
        local += st->st_local[k];
    if (local > 0)
        fprintf(out,
                "local messages      %llu between node monitors and their "
                "executors\n",
                (unsigned long long)local);
    fprintf(out,
            "tasks               ok %llu, failed %llu, killed %llu, lost "
            "%llu, cancelled %llu; ran cut short in the trace %llu\n",
            (unsigned long long)st->st_tasks_final[SK_TASK_OK],
            (unsigned long long)st->st_tasks_final[SK_TASK_FAILED],
            (unsigned long long)st->st_tasks_final[SK_TASK_KILLED],
            (unsigned long long)st->st_tasks_final[SK_TASK_LOST],
            (unsigned long long)st->st_tasks_final[SK_TASK_CANCELLED],
            (unsigned long long)st->st_tasks_cut);
    fprintf(out, "events              %llu; virtual time %.6f s\n",
            (unsigned long long)pt->pt_r.r_events,
            (double)pt->pt_r.r_end / 1e6);
    fputs(pt->pt_r.r_report, out);
}

void sim_report_csv_header(FILE *out)
{
    fputs("strategy,ratio,load,dist,task_mean_ms,tasks,nodes,slots,"
          "schedulers,delay_ms,delay_dist,seed,jobs_file,measured_jobs,"
          "done,rejected,long_skipped,resp_mean_ms,resp_p5_ms,resp_p50_ms,"
          "resp_p95_ms,resp_p99_ms,resp_max_ms,wait_mean_ms,wait_p50_ms,"
          "wait_p95_ms,wait_p99_ms,zero_wait_jobs,zero_wait_tasks,"
          "closed_form,utilisation,messages,messages_per_task,events,"
          "virtual_s,mix,resp_p90_ms,long_jobs,long_tasks,long_placed,"
          "long_wait_p50_ms,long_wait_p99_ms,long_resp_p50_ms,"
          "behind_long\n",
          out);
}

void sim_report_csv_row(FILE *out, const sim_point *pt)
{
    const sim_params *p = &pt->pt_p;
    const sim_stats *st = &pt->pt_r.r_st;
    const sim_hist *r = &st->st_resp, *w = &st->st_wait;
    uint64_t tasks = 0;
    for (int s = 1; s <= SK_TASK_STATUS_MAX; s++)
        tasks += st->st_tasks_final[s];
    uint64_t msgs = sim_stats_messages(st);
    double zj = st->st_measured_done ? (double)st->st_measured_zero /
                                           (double)st->st_measured_done
                                     : 0;
    double zt = st->st_measured_tasks ? (double)st->st_measured_tasks_zero /
                                            (double)st->st_measured_tasks
                                      : 0;
    fprintf(
        out,
        "%s,%g,%g,%s,%g,%u,%u,%u,%u,%g,%s,%llu,%s,%llu,%llu,%llu,%llu,"
        "%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.6f,%.6f,",
        sim_strategy_get(p->p_strategy)->ss_name, p->p_ratio, p->p_gen.g_load,
        sim_dist_name(p->p_gen.g_dist.d_kind), p->p_gen.g_dist.d_mean / 1000,
        p->p_gen.g_tasks, p->p_nodes, p->p_slots, p->p_scheds,
        (double)p->p_delay / 1000, delay_name(p->p_delay_kind),
        (unsigned long long)p->p_seed, p->p_jobs_file ? p->p_jobs_file : "",
        (unsigned long long)st->st_measured_done,
        (unsigned long long)st->st_done, (unsigned long long)st->st_rejected,
        (unsigned long long)st->st_long_skipped, ms(sim_hist_mean(r)),
        ms(sim_hist_quantile(r, 0.05)), ms(sim_hist_quantile(r, 0.50)),
        ms(sim_hist_quantile(r, 0.95)), ms(sim_hist_quantile(r, 0.99)),
        ms((double)r->h_max), ms(sim_hist_mean(w)),
        ms(sim_hist_quantile(w, 0.50)), ms(sim_hist_quantile(w, 0.95)),
        ms(sim_hist_quantile(w, 0.99)), zj, zt);
    if (isnan(pt->pt_closed))
        fputc(',', out);
    else
        fprintf(out, "%.6f,", pt->pt_closed);
    fprintf(
        out, "%.6f,%llu,%.4f,%llu,%.6f,", sim_stats_utilisation(st),
        (unsigned long long)msgs, tasks ? (double)msgs / (double)tasks : 0.0,
        (unsigned long long)pt->pt_r.r_events, (double)pt->pt_r.r_end / 1e6);
    const sim_hist *lw = &st->st_long_wait;
    fprintf(out, "%s,%.4f,%llu,%llu,%llu,%.4f,%.4f,%.4f,%llu\n",
            sim_mix_name(p->p_mix), ms(sim_hist_quantile(r, 0.90)),
            (unsigned long long)st->st_long_arrived,
            (unsigned long long)st->st_long_tasks, (unsigned long long)lw->h_n,
            ms(sim_hist_quantile(lw, 0.50)), ms(sim_hist_quantile(lw, 0.99)),
            ms(sim_hist_quantile(&st->st_long_resp, 0.50)),
            (unsigned long long)st->st_behind_long);
}

void sim_report_perf(FILE *out, const sim_point *pt, uint32_t idx)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double w = pt->pt_r.r_wall, cpu = pt->pt_r.r_cpu;
    fprintf(out,
            "skylark-sim: point %u: %.2f s wall, %.2f s CPU, %llu events, "
            "%.2f M events per CPU second, peak RSS %.0f MiB\n",
            idx + 1, w, cpu, (unsigned long long)pt->pt_r.r_events,
            cpu > 0 ? (double)pt->pt_r.r_events / cpu / 1e6 : 0.0,
            (double)ru.ru_maxrss / 1024);
}
