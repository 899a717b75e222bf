#include "sync/quality.h"

const char *vm_sync_quality_name(enum vm_sync_quality quality)
{
	switch (quality) {
	case VM_SYNC_ABSENT:
		return "absent";
	case VM_SYNC_INCOMPLETE:
		return "incomplete";
	case VM_SYNC_APPROXIMATE:
		return "approximate";
	case VM_SYNC_ACCURATE:
		return "accurate";
	case VM_SYNC_FAIL:
		return "fail";
	}
	return "unknown";
}

/*
 * Rank along a path, best first: a correction bounded on both sides, one
 * bounded on one side, no correction (one direction only), then a pair whose
 * hulls crossed (the data contradicts itself; its last good formula is still
 * used, but the result cannot be trusted). Absent ranks before all: it never
 * lies on a path.
 */
static int badness(enum vm_sync_quality quality)
{
	switch (quality) {
	case VM_SYNC_ABSENT:
		return 0;
	case VM_SYNC_ACCURATE:
		return 1;
	case VM_SYNC_APPROXIMATE:
		return 2;
	case VM_SYNC_INCOMPLETE:
		return 3;
	case VM_SYNC_FAIL:
		return 4;
	}
	return 4;
}

enum vm_sync_quality vm_sync_quality_worst(enum vm_sync_quality q1,
		enum vm_sync_quality q2)
{
	return badness(q1) >= badness(q2) ? q1 : q2;
}
