/*
 * The trace IR of a stub, laid out like an LTTng kernel trace: one stream
 * class whose packets carry `cpu_id`, a `monotonic` 1 GHz clock class,
 * one event class per known event, and the LTTng trace environment.
 */

#ifndef VMSTUB_STUB_TRACE_H
#define VMSTUB_STUB_TRACE_H

#include <stdbool.h>
#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "stub-header.h"

struct stub_trace_classes {
	bt_trace_class *trace_class;
	/* NULL when the stub asks for no clock class */
	bt_clock_class *clock_class;
	bt_stream_class *stream_class;
	/* bt_event_class *, indexed by stub_event_def.index (owned) */
	GPtrArray *event_classes;
};

bool stub_trace_classes_create(bt_self_component *self_comp, const struct stub_header *header,
		struct stub_trace_classes *classes);
void stub_trace_classes_fini(struct stub_trace_classes *classes);

/* A trace with the LTTng environment of `header`, or NULL (out of memory). */
bt_trace *stub_trace_create(const struct stub_trace_classes *classes,
		const struct stub_header *header);

/* The stream of one CPU, named like LTTng's per-CPU files, or NULL. */
bt_stream *stub_cpu_stream_create(const struct stub_trace_classes *classes, bt_trace *trace,
		uint64_t cpu);

#endif /* VMSTUB_STUB_TRACE_H */
