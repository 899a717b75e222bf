#ifndef VM_PLUGIN_STATE_PARAMS_H
#define VM_PLUGIN_STATE_PARAMS_H

/* The parameters of filter.vm.state, checked at component initialization. */

#include <babeltrace2/babeltrace.h>
#include <glib.h>
#include <stdbool.h>

#include "model/model.h"

struct state_params {
	/* Parameter `model` (default `kvm`). */
	const struct vm_model_class *model;
	/* Parameter `vm-pids`: guest machine name (char *) -> gint64 pid. */
	GHashTable *vm_pids;
	/* Parameter `host`: the host machine's name, NULL when not given. */
	char *host;
};

/*
 * Fills `params`; on a bad parameter, appends an error cause naming the
 * parameter and what it accepts, and returns false.
 */
bool state_params_parse(bt_self_component *self_comp, const bt_value *values,
		struct state_params *params);

void state_params_fini(struct state_params *params);

#endif /* VM_PLUGIN_STATE_PARAMS_H */
