/*
 * fuzz_dimacs.c - libFuzzer target for the DIMACS reader: any input, read
 * section by section under small limits, must either be refused with an
 * error message naming a line, or give a network that the writer writes
 * and the reader reads back, that successive shortest path solves without
 * breaking capacities, and whose placements can be extracted.
 */
#include "flowcore.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SECTIONS 16

/* Write g and read it back: the writer's output must always parse. */
static void round_trip(const fc_graph *g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (out == NULL)
        return;
    int rc = fc_dimacs_write(g, out);
    fclose(out);
    if (rc != 0) {
        free(buf);
        return;
    }
    FILE *in = fmemopen(buf, len, "r");
    fc_dimacs_reader *r;
    if (in != NULL && fc_dimacs_reader_new(NULL, &r) == 0) {
        fc_dimacs_end end;
        size_t lines;
        if (fc_dimacs_read(r, in, "again", &end, &lines) != 0 ||
            fc_graph_arc_count(fc_dimacs_graph(r)) != fc_graph_arc_count(g)) {
            fprintf(stderr, "written network does not read back: %s\n",
                    fc_dimacs_error(r));
            abort();
        }
        fc_dimacs_reader_free(r);
    }
    if (in != NULL)
        fclose(in);
    free(buf);
}

static void solve_and_place(fc_graph *g)
{
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = FC_ALG_SSP;
    opt.so_incremental = true;
    int rc = fc_solve(g, &opt, NULL);
    for (fc_arc a = 0; a < fc_graph_arc_bound(g); a++)
        if (fc_arc_exists(g, a) && (fc_arc_flow(g, a) < 0 ||
                                    fc_arc_flow(g, a) > fc_arc_capacity(g, a)))
            abort();
    char err[256];
    if (rc == 0 && fc_graph_check(g, err, sizeof err) != 0) {
        fprintf(stderr, "solved flow fails the check: %s\n", err);
        abort();
    }
    fc_placement *p;
    size_t n;
    if (fc_placements(g, &p, &n) == 0)
        free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *in = fmemopen((void *)data, size, "r");
    if (in == NULL)
        return 0;
    fc_dimacs_limits lim;
    fc_dimacs_limits_init(&lim);
    lim.dl_max_nodes = 512;
    lim.dl_max_arcs = 2048;
    lim.dl_max_line = 200;
    fc_dimacs_reader *r;
    if (fc_dimacs_reader_new(&lim, &r) != 0) {
        fclose(in);
        return 0;
    }
    for (int s = 0; s < MAX_SECTIONS; s++) {
        fc_dimacs_end end;
        size_t lines;
        int rc = fc_dimacs_read(r, in, "fuzz", &end, &lines);
        if (rc != 0) {
            if (strncmp(fc_dimacs_error(r), "fuzz:", 5) != 0) {
                fprintf(stderr, "error without a line: %s\n",
                        fc_dimacs_error(r));
                abort();
            }
            break;
        }
        fc_graph *g = fc_dimacs_graph(r);
        round_trip(g);
        solve_and_place(g);
        if (end != FC_DIMACS_EOI)
            break;
    }
    fc_dimacs_reader_free(r);
    fclose(in);
    return 0;
}
