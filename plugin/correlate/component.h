#ifndef VM_CORRELATE_COMPONENT_H
#define VM_CORRELATE_COMPONENT_H

/* The state of one filter.vm.correlate component, shared with its iterator. */

#include <stdint.h>
#include <babeltrace2/babeltrace.h>

#include "correlate/params.h"

struct correlate_comp {
	bt_self_component *self_comp;
	bt_logging_level log_level;
	const char *name;
	struct correlate_params params;

	/* Index of the next input port to add (there is always one free). */
	uint64_t next_port_index;
};

#endif /* VM_CORRELATE_COMPONENT_H */
