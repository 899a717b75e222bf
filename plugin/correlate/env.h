#ifndef VM_CORRELATE_ENV_H
#define VM_CORRELATE_ENV_H

/* What correlate tells about its maps: output trace environment entries and the summary log. */

#include "correlate/context.h"

bool correlate_trace_created(void *data,
		const bt_trace *upstream_trace, bt_trace *output_trace);
void correlate_log_summary(struct correlate_iter *iter);

#endif /* VM_CORRELATE_ENV_H */
