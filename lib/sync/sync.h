#ifndef VM_SYNC_SYNC_H
#define VM_SYNC_SYNC_H

/*
 * Trace synchronization: matching of one-way messages between machines,
 * each pair's clocks fitted by its hull (sync/hull.h), composed along a
 * spanning tree rooted at the reference machine.
 *
 * Timestamps are nanoseconds since the Unix epoch (signed 64-bit). All hull
 * arithmetic is exact on such values (128-bit products); the fitted formula
 * is kept with enough precision to map a timestamp to the nanosecond.
 *
 * No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sync/formula.h"
#include "sync/quality.h"

/*
 * Matching of one-way messages across machines and solving of all machines
 * against one reference.
 */
enum vm_sync_role {
	VM_SYNC_SEND,
	VM_SYNC_RECEIVE,
};

/* The identity of one message; fields the protocol lacks are 0. */
struct vm_sync_key {
	uint64_t a;
	uint64_t b;
	uint64_t c;
};

struct vm_sync;

/* `machine_count` machines, indexed 0 .. machine_count - 1. */
struct vm_sync *vm_sync_create(unsigned int machine_count);
void vm_sync_destroy(struct vm_sync *sync);

/*
 * Also build each pair's piecewise-linear map (sync/segments.h) from the
 * same matches: call before the first event.
 */
void vm_sync_keep_piecewise(struct vm_sync *sync);

/*
 * Build each pair's one-pass map (sync/online.h) instead of its hull, for
 * a caller that reads the traces once: call before the first event. Get
 * one with vm_sync_online_of(). The pair hulls then get no match (the
 * online map's windows have their own): vm_sync_solve() finds no path, and
 * vm_sync_has_matches() is false.
 */
void vm_sync_keep_online(struct vm_sync *sync);

/* The one-pass map of the pair {x, y} (maps the higher index to the lower), or NULL. */
struct vm_sync_online *vm_sync_online_of(const struct vm_sync *sync, unsigned int x,
		unsigned int y);

/*
 * One send or receive event of `machine` at time `ts` (that machine's own
 * clock). A send and a receive with the same protocol and key on two
 * different machines match; the first unmatched event of each key wins.
 * `protocol` separates key spaces (e.g. 0 = vmsync, 1 = TCP).
 */
void vm_sync_add_event(struct vm_sync *sync, unsigned int protocol,
		const struct vm_sync_key *key, enum vm_sync_role role,
		unsigned int machine, int64_t ts);

/*
 * A message already matched by the caller (no key): sent by `sender` at
 * `send_ts` (its clock), received by `receiver` at `recv_ts`. Counts like
 * a match of vm_sync_add_event(); ignored between a machine and itself.
 */
void vm_sync_add_matched(struct vm_sync *sync, unsigned int sender, int64_t send_ts,
		unsigned int receiver, int64_t recv_ts);

/*
 * Where each machine stands relative to `reference` once all events are
 * added. Formulas compose along shortest paths (fewest hops) from the
 * reference over pairs that have matches; a machine with no path keeps the
 * identity with quality VM_SYNC_ABSENT. The reference itself is the identity
 * with quality VM_SYNC_ABSENT and 0 matches.
 */
struct vm_sync_result {
	struct vm_sync_formula formula;   /* machine clock -> reference clock */
	enum vm_sync_quality quality;     /* worst quality along the path */
	long double accuracy;             /* of the pair next to the machine */
	uint64_t matches;                 /* matches of the pair next to the machine */
	int parent;                       /* previous machine on the path, -1 if none */
	/*
	 * With vm_sync_keep_piecewise(), for a machine paired with the
	 * reference itself: its piecewise map (sync/segments.h, owned by the
	 * vm_sync; `formula` stays the one line of Trace Compass). NULL
	 * otherwise.
	 */
	struct vm_sync_segments *segments;
};

void vm_sync_solve(const struct vm_sync *sync, unsigned int reference,
		struct vm_sync_result *results /* machine_count entries */);

/* Whether machines x and y have at least one match. */
bool vm_sync_has_matches(const struct vm_sync *sync, unsigned int x, unsigned int y);

/* Whether the pair's matches go both ways, so that a line fits them (not `incomplete`). */
bool vm_sync_has_line(const struct vm_sync *sync, unsigned int x, unsigned int y);

#endif /* VM_SYNC_SYNC_H */
