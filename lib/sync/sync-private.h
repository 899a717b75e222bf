#ifndef VM_SYNC_SYNC_PRIVATE_H
#define VM_SYNC_SYNC_PRIVATE_H

/* The state shared by the matching (matching.c) and the solving (solve.c). */

#include <glib.h>

#include "sync/hull.h"
#include "sync/sync.h"

struct vm_sync {
	unsigned int machine_count;
	/*
	 * Hull of each pair of machines, created on its first match; index
	 * x * machine_count + y with x < y (x is the pair's ref side).
	 */
	GPtrArray *hulls;
	/* Piecewise map of each pair (segments.h), same indices; NULL: lines only. */
	GPtrArray *segments;
	/* One-pass map of each pair (online.h), same indices; NULL: none. */
	GPtrArray *online;
	/* protocol (guint) -> its unmatched events (GHashTable, see matching.c) */
	GHashTable *unmatched;
};

/* The hull of the pair {x, y}, NULL when it has no match (x != y). */
struct vm_sync_hull *vm_sync_pair_hull(const struct vm_sync *sync,
		unsigned int x, unsigned int y);

/* The hull of the pair {x, y}, created when missing. */
struct vm_sync_hull *vm_sync_pair_hull_get(struct vm_sync *sync,
		unsigned int x, unsigned int y);

/* The piecewise map of the pair {x, y} (other side -> ref side), or NULL. */
struct vm_sync_segments *vm_sync_pair_segments(const struct vm_sync *sync,
		unsigned int x, unsigned int y);

/* The one-pass map of the pair {x, y} (other side -> ref side), or NULL. */
struct vm_sync_online *vm_sync_pair_online(const struct vm_sync *sync,
		unsigned int x, unsigned int y);

#endif /* VM_SYNC_SYNC_PRIVATE_H */
