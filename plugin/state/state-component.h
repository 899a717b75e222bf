#ifndef VM_PLUGIN_STATE_COMPONENT_H
#define VM_PLUGIN_STATE_COMPONENT_H

/* What the component keeps for its message iterators. */

#include <babeltrace2/babeltrace.h>

#include "state/params.h"

struct state_component {
	bt_self_component *self_comp;
	struct state_params params;
};

#endif /* VM_PLUGIN_STATE_COMPONENT_H */
