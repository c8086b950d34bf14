/*
 * dash_share_hb.h - bench/dash-share's in-process part: what the users
 * summary of a HEARTBEAT (protocol 4) costs the node monitor core that
 * builds it, the flowd core that keeps it, and flowd's query `users` at
 * up to 10,000 nodes; each against a heartbeat without users measured in
 * the same run (the anchor).
 */
#ifndef DASH_SHARE_HB_H
#define DASH_SHARE_HB_H

/* dash_hb_bench measures runs times each (at least 3) and prints, per
 * number of users per node, the medians and ranges: node monitor ns per
 * heartbeat (core and encoding) and bytes; flowd ns per heartbeat
 * (decoding and the core); the query `users` over nodes nodes (built and
 * encoded, ms) and its reply's bytes. Returns 0, or 1 when a core cannot
 * be made. */
int dash_hb_bench(unsigned runs, unsigned nodes);

#endif /* DASH_SHARE_HB_H */
