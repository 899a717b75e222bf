#include <glib.h>

#include "state/state.h"
#include "state/state-component.h"

bt_component_class_initialize_method_status state_initialize(
		bt_self_component_filter *self_comp_filter,
		bt_self_component_filter_configuration *configuration,
		const bt_value *params, void *init_data)
{
	bt_self_component *self_comp =
		bt_self_component_filter_as_self_component(self_comp_filter);
	struct state_component *state = g_new0(struct state_component, 1);

	(void) configuration;
	(void) init_data;
	state->self_comp = self_comp;
	if (!state_params_parse(self_comp, params, &state->params)) {
		goto error;
	}
	if (bt_self_component_filter_add_input_port(self_comp_filter, "in",
			NULL, NULL) != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK ||
			bt_self_component_filter_add_output_port(self_comp_filter,
				"out", NULL, NULL) != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"Cannot add the ports of filter.vm.state.");
		goto error;
	}
	bt_self_component_set_data(self_comp, state);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;

error:
	state_params_fini(&state->params);
	g_free(state);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void state_finalize(bt_self_component_filter *self_comp_filter)
{
	struct state_component *state = bt_self_component_get_data(
		bt_self_component_filter_as_self_component(self_comp_filter));

	if (!state) {
		return;
	}
	state_params_fini(&state->params);
	g_free(state);
}
