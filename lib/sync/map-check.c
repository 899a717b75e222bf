/* The last check of a synchronized map (map-check.h). */

#include <glib.h>
#include <inttypes.h>

#include "sync/formula.h"
#include "sync/map-check.h"
#include "util/time-span.h"

static char *slope_refusal(const struct vm_sync_segment *segment, unsigned int index)
{
	if (!(segment->formula.slope > 0)) {
		return g_strdup_printf("segment %u has slope %.9Lg: a clock map must increase",
			index + 1, segment->formula.slope);
	}

	if (!vm_sync_slope_plausible(segment->formula.slope)) {
		return g_strdup_printf("segment %u has slope %.9Lg, more than %.0Lf%% from 1: "
			"no clock runs at that rate", index + 1, segment->formula.slope,
			VM_SYNC_PLAUSIBLE_RATE * 100);
	}

	return NULL;
}

static char *join_refusal(const struct vm_sync_segment *before,
		const struct vm_sync_segment *segment, unsigned int index)
{
	int64_t jump;

	if (segment->begin <= before->begin) {
		return g_strdup_printf("segment %u begins at %" PRId64 ", not after the one "
			"before it (%" PRId64 ")", index + 1, segment->begin, before->begin);
	}

	jump = vm_time_span(vm_sync_formula_apply(&segment->formula, segment->begin),
		vm_sync_formula_apply(&before->formula, segment->begin));
	if (jump > VM_SYNC_MAP_JOIN_TOLERANCE_NS || jump < -VM_SYNC_MAP_JOIN_TOLERANCE_NS) {
		return g_strdup_printf("segments %u and %u disagree by %" PRId64 " ns where "
			"they meet", index, index + 1, jump);
	}

	return NULL;
}

char *vm_sync_map_refusal(const struct vm_sync_segment *segments, unsigned int count)
{
	char *reason = NULL;

	for (unsigned int i = 0; i < count && !reason; i++) {
		reason = slope_refusal(&segments[i], i);
		if (!reason && i > 0) {
			reason = join_refusal(&segments[i - 1], &segments[i], i);
		}
	}

	return reason;
}
