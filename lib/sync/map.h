#ifndef VM_SYNC_MAP_H
#define VM_SYNC_MAP_H

/*
 * A machine's whole clock map to the reference: one line, or the segments
 * of a piecewise-linear map (sync/segments.h), continuous and increasing.
 *
 * No babeltrace2 types here.
 */

#include <glib.h>
#include <stdint.h>

#include "sync/online.h"
#include "sync/segments.h"
#include "sync/formula.h"

struct vm_sync_map {
	/* The one line, or the first segment's. */
	struct vm_sync_formula formula;
	/*
	 * NULL: `formula` applies everywhere. Else struct vm_sync_segment, at
	 * least two, by increasing `begin`, the first at INT64_MIN.
	 */
	GArray *segments;
	guint cursor;   /* the segment of the last time looked up */
	/* Else, when set: the map is that one-pass map's, as it grows. */
	const struct vm_sync_online *online;
};

/* A map of one line. */
void vm_sync_map_init(struct vm_sync_map *map, const struct vm_sync_formula *formula);

/*
 * A map of `count` segments (one line when it is 1): by increasing begin,
 * the first applying before its begin too.
 */
void vm_sync_map_set_segments(struct vm_sync_map *map,
		const struct vm_sync_segment *segments, unsigned int count);

/* One line again (forgets any segments). */
void vm_sync_map_set_formula(struct vm_sync_map *map, const struct vm_sync_formula *formula);

/* The map of a one-pass map, which must outlive it (`formula`: its first segment). */
void vm_sync_map_set_online(struct vm_sync_map *map, const struct vm_sync_online *online);

void vm_sync_map_fini(struct vm_sync_map *map);

unsigned int vm_sync_map_segment_count(const struct vm_sync_map *map);

/* Segment `index` (< vm_sync_map_segment_count()); NULL for a one-line map. */
const struct vm_sync_segment *vm_sync_map_segment(const struct vm_sync_map *map,
		unsigned int index);

/* The formula that applies at `t` (the machine's own clock). */
const struct vm_sync_formula *vm_sync_map_formula_at(const struct vm_sync_map *map,
		int64_t t);

/*
 * The same, faster for times that mostly follow each other: remembers the
 * segment it found.
 */
const struct vm_sync_formula *vm_sync_map_formula_near(struct vm_sync_map *map, int64_t t);

#endif /* VM_SYNC_MAP_H */
