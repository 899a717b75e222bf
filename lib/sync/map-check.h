#ifndef VM_SYNC_MAP_CHECK_H
#define VM_SYNC_MAP_CHECK_H

/*
 * The last check before a synchronized map is adopted (filter.vm.correlate
 * takes no map that fails it): every segment increasing at a rate a real
 * clock can have, the segments in order, and continuous where they meet.
 * How each segment was checked against the constraints that produced it is
 * its quality (a window's line lies between its matches both ways, a vCPU
 * fit leaves the guest's events in guest mode): this check is what no
 * quality says, that the map as a whole is a clock's.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sync/segments.h"

/* Where segments may disagree where they meet: the rounding of each side. */
#define VM_SYNC_MAP_JOIN_TOLERANCE_NS 2

/*
 * Why `segments` (`count` of them, the first from INT64_MIN) cannot be
 * adopted, as a clause naming the segment; NULL when it can. Freed with
 * g_free().
 */
char *vm_sync_map_refusal(const struct vm_sync_segment *segments, unsigned int count);

#endif /* VM_SYNC_MAP_CHECK_H */
