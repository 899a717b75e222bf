/*
 * source.vmstub.stub: turns a stub file into a trace laid out like an LTTng
 * kernel trace. The component scans the file and builds the trace classes;
 * its message iterator (stub-iterator.c) emits the messages.
 */

#ifndef VMSTUB_STUB_SOURCE_H
#define VMSTUB_STUB_SOURCE_H

#include <stdio.h>
#include <babeltrace2/babeltrace.h>

#include "stub-scan.h"
#include "stub-trace.h"

struct stub_source {
	bt_logging_level log_level;
	bt_self_component *self_comp;
	char *path;
	struct stub_scan scan;
	struct stub_trace_classes classes;
};

#define STUB_LOG(source, level, fmt, ...) \
	do { \
		if ((source)->log_level <= (level)) { \
			fprintf(stderr, "source.vmstub.stub: " fmt "\n", __VA_ARGS__); \
		} \
	} while (0)

bt_component_class_initialize_method_status stub_source_init(
		bt_self_component_source *self_comp, bt_self_component_source_configuration *config,
		const bt_value *params, void *init_method_data);

void stub_source_finalize(bt_self_component_source *self_comp);

bt_message_iterator_class_initialize_method_status stub_iterator_init(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *self_port);

void stub_iterator_finalize(bt_self_message_iterator *self_msg_iter);

bt_message_iterator_class_next_method_status stub_iterator_next(
		bt_self_message_iterator *self_msg_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count);

#endif /* VMSTUB_STUB_SOURCE_H */
