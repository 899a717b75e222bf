#ifndef VM_SYNC_QUALITY_H
#define VM_SYNC_QUALITY_H

/* Ordering of qualities along a path (internal to lib/sync/). */

#include "sync/sync.h"

/* The worse of two qualities: fail, then incomplete, approximate, accurate;
 * absent only when both are absent. */
enum vm_sync_quality vm_sync_quality_worst(enum vm_sync_quality q1,
		enum vm_sync_quality q2);

#endif /* VM_SYNC_QUALITY_H */
