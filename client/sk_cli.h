/*
 * sk_cli.h - the subcommands of the `skylark` command-line tool. Each
 * takes the arguments after its name (argv[0] is the subcommand's name)
 * and returns the process exit status: 0 ok, 1 the work failed, 2 bad
 * usage or input.
 */
#ifndef SK_CLI_H
#define SK_CLI_H

/* cmd_solve: `skylark solve [--algorithm NAME] [--stats] [FILE|-]` reads a
 * DIMACS min-cost-flow network, optionally followed by rounds of changes
 * in Firmament's extended format each ended by `c EOI`, and after the
 * network and after every round prints the optimal cost (`s COST`) and the
 * non-zero arc flows (`f SRC DST FLOW`). Exit status: 0 all solved, 1 some
 * round infeasible (or out of memory), 2 bad usage or input. */
int cmd_solve(int argc, char **argv);

#endif /* SK_CLI_H */
