/*
 * source.vmstub.stub component: parameters, first pass over the stub file
 * and the trace classes.
 */

#include "stub-source.h"

#include <inttypes.h>

#define COMP_ERROR(self_comp, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT( \
		bt_self_component_source_as_self_component(self_comp), __VA_ARGS__)

static bool check_params(bt_self_component_source *self_comp, const bt_value *params)
{
	uint64_t count;

	if (!bt_value_is_map(params)) {
		COMP_ERROR(self_comp, "Parameters must be a map with the string `path` "
			"(the stub file to read).");
		return false;
	}
	count = bt_value_map_get_size(params);
	if (count != 1 || !bt_value_map_has_entry(params, "path")) {
		COMP_ERROR(self_comp, "Accepted parameters: `path` (string, required: the stub "
			"file to read); got %" PRIu64 " parameter(s)%s.", count,
			bt_value_map_has_entry(params, "path") ? " besides `path`" :
				", none of them `path`");
		return false;
	}
	if (!bt_value_is_string(bt_value_map_borrow_entry_value_const(params, "path"))) {
		COMP_ERROR(self_comp, "Parameter `path` must be a string (the stub file to read), "
			"e.g. path=\"host.stub\".");
		return false;
	}
	return true;
}

static void destroy_source(struct stub_source *source)
{
	if (!source) {
		return;
	}
	stub_trace_classes_fini(&source->classes);
	if (source->scan.header.events) {
		stub_scan_fini(&source->scan);
	}
	g_free(source->path);
	g_free(source);
}

static bool scan_stub(bt_self_component_source *self_comp, struct stub_source *source)
{
	GString *error = g_string_new(NULL);
	bool ok = stub_scan_file(source->path, &source->scan, error);

	if (!ok) {
		COMP_ERROR(self_comp, "%s", error->str);
	}
	g_string_free(error, TRUE);
	return ok;
}

bt_component_class_initialize_method_status stub_source_init(
		bt_self_component_source *self_comp,
		bt_self_component_source_configuration *config __attribute__((unused)),
		const bt_value *params, void *init_method_data __attribute__((unused)))
{
	bt_self_component *self = bt_self_component_source_as_self_component(self_comp);
	struct stub_source *source;

	if (!check_params(self_comp, params)) {
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	source = g_new0(struct stub_source, 1);
	source->self_comp = self;
	source->log_level = bt_component_get_logging_level(
		bt_self_component_as_component(self));
	source->path = g_strdup(bt_value_string_get(
		bt_value_map_borrow_entry_value_const(params, "path")));
	if (!scan_stub(self_comp, source)) {
		goto error;
	}
	if (!stub_trace_classes_create(self, &source->scan.header, &source->classes)) {
		COMP_ERROR(self_comp, "Cannot create the trace classes of %s (out of memory?).",
			source->path);
		goto error;
	}
	if (bt_self_component_source_add_output_port(self_comp, "out", NULL, NULL) !=
			BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		COMP_ERROR(self_comp, "Cannot add the output port.");
		goto error;
	}
	STUB_LOG(source, BT_LOGGING_LEVEL_INFO, "%s: %" PRIu64 " events on %" PRIu64
		" CPU(s), %s", source->path, source->scan.event_count,
		stub_scan_stream_count(&source->scan),
		source->scan.globally_ordered ? "streamed" : "not time-ordered: loaded and sorted");
	bt_self_component_set_data(self, source);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;

error:
	destroy_source(source);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void stub_source_finalize(bt_self_component_source *self_comp)
{
	destroy_source(bt_self_component_get_data(
		bt_self_component_source_as_self_component(self_comp)));
}
