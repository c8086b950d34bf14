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

/* cmd_cluster: `skylark cluster up|status|down`: a local cluster of
 * schedulers and node monitors in the background (sk_cluster.h);
 * `status --json` prints it as JSON. Exit
 * status: 0 done, 1 failed (status: a daemon does not answer), 2 bad
 * usage. */
int cmd_cluster(int argc, char **argv);

/* cmd_run: `skylark run [OPTIONS] [--] COMMAND...` submits a job of N
 * copies of COMMAND to a scheduler (or the local cluster's), shows
 * progress on a terminal and prints a summary (tasks ok and failed, job
 * response time, scheduling overhead p50/p99). Exit status: 0 every task
 * succeeded, 1 not, 2 bad usage. */
int cmd_run(int argc, char **argv);

/* cmd_executor: `skylark executor [OPTIONS] FRAMEWORK` registers with a
 * node monitor as FRAMEWORK's executor and runs each task's spec as a
 * shell command in its own process group until SIGINT or SIGTERM; its
 * tasks die with it. Exit status: 0 stopped by a signal, 1 not
 * registered in time, 2 bad usage or an address that is not a node
 * monitor's. */
int cmd_executor(int argc, char **argv);

/* cmd_status: `skylark status [--json] [ADDR]` prints a daemon's state,
 * or one line per daemon of the local cluster (--json: as JSON, the
 * shape in docs/CLIENT.md). Exit status: 0 answered, 1 not, 2 bad usage
 * or a bad address. */
int cmd_status(int argc, char **argv);

/* cmd_dashboard: `skylark dashboard [--listen HOST:PORT]` serves a live
 * page of the local cluster and its JSON (/api/cluster) on loopback
 * until SIGINT or SIGTERM. Exit status: 0 stopped by a signal, 1 cannot
 * serve or no cluster, 2 bad usage. */
int cmd_dashboard(int argc, char **argv);

/* cmd_load: `skylark load` runs a mixed workload of short jobs from
 * several users through the client API and prints a summary (jobs,
 * tasks, job response time p50/p95/p99, scheduling overhead p50/p99,
 * each user's slot-time share against its weight). Exit status: 0 every
 * task succeeded, 1 not, 2 bad usage. */
int cmd_load(int argc, char **argv);

/* cmd_key: `skylark key new FILE` makes a cluster key (mode 0600).
 * Exit status: 0 made, 1 failed, 2 bad usage or FILE exists. */
int cmd_key(int argc, char **argv);

/* cmd_user: `skylark user token NAME [FILE]` issues a user's token from
 * the cluster key (sk_token.h). Exit status: 0 issued, 1 failed, 2 bad
 * usage or FILE exists. */
int cmd_user(int argc, char **argv);

/* cmd_flow: `skylark flow dump [--out FILE]` writes the flow node's
 * network as DIMACS with names in comment lines; `skylark flow explain
 * [SCHED/]JOB TASK` says why a task of the flow path is where it is or
 * waits. Exit status: 0 done, 1 flowd did not answer or refused, 2 bad
 * usage. */
int cmd_flow(int argc, char **argv);

/* cmd_jobs: `skylark jobs [--json]` lists the jobs in flight at the
 * schedulers and the flow node (where flow-placed tasks are). Exit
 * status: 0 every daemon answered, 1 not, 2 bad usage. */
int cmd_jobs(int argc, char **argv);

/* cmd_cancel: `skylark cancel JOB` cancels a job in flight at a
 * scheduler by the scheduler's id, as an operator. Exit status: 0
 * cancelled, 1 refused or no answer, 2 bad usage. */
int cmd_cancel(int argc, char **argv);

#endif /* SK_CLI_H */
