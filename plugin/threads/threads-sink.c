#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/event-decode.h"
#include "common/log.h"
#include "common/machine.h"
#include "common/unsynced.h"
#include "params.h"
#include "state-presence.h"
#include "stream-losses.h"
#include "threads-sink.h"
#include "containers/totals.h"
#include "threads/threads.h"
#include "writers/output-file.h"
#include "writers/writer.h"

#define THREADS_LOG(self_comp, level, ...) \
	vm_log_comp((self_comp), (level), "sink.vm.threads", __VA_ARGS__)

struct threads_sink {
	bt_self_component *self_comp;
	struct threads_params params;
	bt_message_iterator *iterator;
	struct event_decoder *decoder;
	struct machine_table *machines;
	struct vm_threads *threads;
	/* Per-container state totals (what=containers, the text summary). */
	struct vm_container_totals *container_totals;
	struct vm_writer *writer;
	/* Replaces `path` only once the output is complete (see finish()). */
	struct vm_output_file *output;
	FILE *out;                /* the stream of `output` */
	bool warned_no_clock;
	/* For the warnings about filter.vm.state (absent, or no mode). */
	struct state_presence *state;
	/* Every message goes through it: discarded ones become located gaps. */
	struct stream_losses *losses;
};

/*
 * The analysis reports an interval when it ends: the container known then
 * (SPEC, Containers) goes into its last two columns and its totals.
 */
static void on_thread_interval(const struct vm_thread_interval *iv, void *data)
{
	struct threads_sink *sink = data;
	struct vm_thread_interval with_container = *iv;
	struct vm_container_ref ref;

	with_container.container = NULL;
	with_container.vtid = -1;
	if (vm_containers_lookup_by_name(vm_threads_containers(sink->threads),
			iv->machine, iv->tid, &ref)) {
		with_container.container = ref.name;
		with_container.vtid = ref.vtid;
		vm_container_totals_add(sink->container_totals, iv->machine, &ref,
			iv->tid, iv->state, iv->begin_ns, iv->end_ns);
	}
	vm_writer_thread_interval(sink->writer, &with_container);
}

static void on_vcpu_interval(const struct vm_vcpu_interval *iv, void *data)
{
	struct threads_sink *sink = data;

	vm_writer_vcpu_interval(sink->writer, iv);
}

static void on_exit_stat(const struct vm_exit_stat *stat, void *data)
{
	struct threads_sink *sink = data;

	vm_writer_exit_stat(sink->writer, stat);
}

static void on_steal_interval(const struct vm_steal_interval *iv, void *data)
{
	struct threads_sink *sink = data;

	vm_writer_steal_interval(sink->writer, iv);
}

static void write_container_total(const struct vm_container_total *row, void *data)
{
	vm_writer_container_total(data, row);
}

static void on_machine_losses(const struct vm_machine_losses *losses, void *data)
{
	struct threads_sink *sink = data;

	vm_writer_machine_losses(sink->writer, losses);
}

static void on_warning(const char *kind, const char *machine, const char *message,
		void *data)
{
	struct threads_sink *sink = data;

	(void) kind;
	if (machine) {
		THREADS_LOG(sink->self_comp, BT_LOGGING_LEVEL_WARNING, "Machine `%s`: %s",
			machine, message);
	} else {
		THREADS_LOG(sink->self_comp, BT_LOGGING_LEVEL_WARNING, "%s", message);
	}
}

static void sink_destroy(struct threads_sink *sink)
{
	if (!sink) {
		return;
	}
	/* First: it holds messages and calls into the analysis. */
	stream_losses_destroy(sink->losses);
	state_presence_destroy(sink->state);
	bt_message_iterator_put_ref(sink->iterator);
	vm_writer_destroy(sink->writer);
	/* Not committed (a failed or interrupted run): `path` stays as it was. */
	vm_output_file_close(sink->output);
	vm_threads_destroy(sink->threads);
	vm_container_totals_destroy(sink->container_totals);
	machine_table_destroy(sink->machines);
	event_decoder_destroy(sink->decoder);
	threads_params_clear(&sink->params);
	g_free(sink);
}

static bool open_output(struct threads_sink *sink)
{
	char *error = NULL;

	sink->output = vm_output_file_open(sink->params.path, &error);
	if (!sink->output) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"Cannot write the output file given by parameter `path` "
			"(\"%s\"): %s.", sink->params.path, error);
		g_free(error);
		return false;
	}
	sink->out = vm_output_file_stream(sink->output);
	return true;
}

static void handle_message(const bt_message *msg, const int64_t *ts,
		void **stream_data, void *data);
static void handle_gap(const bt_stream *stream, int64_t cpu, const struct vm_gap *gap,
		bool first, void *data);

static bool create_analysis(struct threads_sink *sink)
{
	struct vm_threads_callbacks cb = {
		.thread_interval = on_thread_interval,
		.machine_losses = on_machine_losses,
		.warning = on_warning,
		.data = sink,
	};

	/* The text summary shows every table unless `what` picks one. */
	if (sink->params.format == VM_WRITER_TEXT && !sink->params.what_given) {
		sink->writer = vm_writer_create_summary(sink->out);
	} else {
		sink->writer = vm_writer_create(sink->params.format, sink->params.what,
			sink->out);
	}
	if (!sink->writer) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"Cannot create the writer of the format given by parameter `format`.");
		return false;
	}
	/* What the writer would drop need not be computed. */
	if (vm_writer_wants(sink->writer, VM_WRITER_VCPUS)) {
		cb.vcpu_interval = on_vcpu_interval;
	}
	if (vm_writer_wants(sink->writer, VM_WRITER_EXITS)) {
		cb.exit_stat = on_exit_stat;
	}
	if (vm_writer_wants(sink->writer, VM_WRITER_STEAL)) {
		cb.steal_interval = on_steal_interval;
	}
	sink->decoder = event_decoder_create();
	sink->machines = machine_table_create();
	sink->threads = vm_threads_create(&cb);
	sink->container_totals = vm_container_totals_create();
	sink->losses = stream_losses_create(handle_message, handle_gap, sink);
	sink->state = state_presence_create();
	return sink->decoder && sink->machines && sink->threads &&
		sink->container_totals && sink->losses;
}

bt_component_class_initialize_method_status threads_sink_initialize(
		bt_self_component_sink *self_comp_sink,
		bt_self_component_sink_configuration *config,
		const bt_value *params, void *init_method_data)
{
	bt_self_component *self_comp = bt_self_component_sink_as_self_component(self_comp_sink);
	struct threads_sink *sink = g_new0(struct threads_sink, 1);

	(void) config;
	(void) init_method_data;
	sink->self_comp = self_comp;
	if (!threads_params_parse(params, self_comp, &sink->params)) {
		goto error;
	}
	if (bt_self_component_sink_add_input_port(self_comp_sink, "in", NULL, NULL) !=
			BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"Cannot add the input port.");
		goto error;
	}
	if (!open_output(sink) || !create_analysis(sink)) {
		goto error;
	}
	bt_self_component_set_data(self_comp, sink);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;

error:
	sink_destroy(sink);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void threads_sink_finalize(bt_self_component_sink *self_comp)
{
	sink_destroy(bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_comp)));
}

bt_component_class_sink_graph_is_configured_method_status
threads_sink_graph_is_configured(bt_self_component_sink *self_comp_sink)
{
	bt_self_component *self_comp = bt_self_component_sink_as_self_component(self_comp_sink);
	struct threads_sink *sink = bt_self_component_get_data(self_comp);
	bt_self_component_port_input *port =
		bt_self_component_sink_borrow_input_port_by_name(self_comp_sink, "in");

	if (!bt_port_is_connected(bt_self_component_port_as_port(
			bt_self_component_port_input_as_self_component_port(port)))) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"The input port `in` is not connected: connect the output of "
			"filter.vm.state (or of any source or filter) to it.");
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	switch (bt_message_iterator_create_from_sink_component(self_comp_sink, port,
			&sink->iterator)) {
	case BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK:
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_MEMORY_ERROR;
	default:
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"Cannot create the upstream message iterator.");
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
}

/*
 * Timestamp of an event the decoder does not use; false when it has none,
 * or one that overflows 64-bit ns from origin.
 */
static bool event_time(const bt_message *msg, int64_t *ts)
{
	if (!bt_message_event_borrow_stream_class_default_clock_class_const(msg)) {
		return false;
	}
	if (bt_clock_snapshot_get_ns_from_origin(
			bt_message_event_borrow_default_clock_snapshot_const(msg), ts) ==
			BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		return true;
	}
	/* Warned about as a missing time: the library's cause must not stay. */
	bt_current_thread_clear_error();
	return false;
}

/* What filter.vm.correlate's `vm_role` says, in the analysis' terms. */
static enum vm_threads_role threads_role(enum machine_role role)
{
	switch (role) {
	case MACHINE_ROLE_HOST:
		return VM_THREADS_ROLE_HOST;
	case MACHINE_ROLE_GUEST:
		return VM_THREADS_ROLE_GUEST;
	default:
		return VM_THREADS_ROLE_UNKNOWN;
	}
}

/* The machine of `stream`, named and announced on first sight. */
static const struct machine *machine_of_stream(struct threads_sink *sink,
		const bt_stream *stream)
{
	bool is_new;
	struct machine *machine = machine_table_machine_of_stream(sink->machines,
		stream, &is_new);

	if (is_new) {
		machine_table_assign_names(sink->machines);
		THREADS_LOG(sink->self_comp, BT_LOGGING_LEVEL_DEBUG,
			"New machine `%s` (index %u).", machine->name, machine->index);
		vm_threads_add_machine(sink->threads, machine->index, machine->name,
			threads_role(machine->role));
	}
	return machine;
}

/*
 * The machine of an event's stream: looked up at its stream's first event,
 * then kept in the stream's slot (`stream_data`, NULL when there is none).
 */
static const struct machine *event_machine(struct threads_sink *sink,
		const bt_event *event, void **stream_data)
{
	const struct machine *machine;

	if (stream_data && *stream_data) {
		return *stream_data;
	}
	machine = machine_of_stream(sink, bt_event_borrow_stream_const(event));
	if (stream_data) {
		*stream_data = (void *) machine;
	}
	return machine;
}

static void warn_no_clock(struct threads_sink *sink)
{
	if (!sink->warned_no_clock) {
		THREADS_LOG(sink->self_comp, BT_LOGGING_LEVEL_WARNING,
			"Events without a usable time (no default clock snapshot, or "
			"one that overflows 64-bit ns from origin) are ignored: the "
			"analysis needs their time.");
	}
	sink->warned_no_clock = true;
}

/*
 * A vm:vcpu_state event at `ts`: every field counts. Its stream is
 * filter.vm.state's own trace, which is no machine (naming it would only
 * take a `#2` suffix from a real one): the event names its VM itself.
 */
static void handle_vcpu_state(struct threads_sink *sink, const bt_event *event,
		int64_t ts)
{
	struct vm_event ev = { .machine = 0 };

	(void) event_decoder_decode_at(sink->decoder, event, ts, &ev);
	state_presence_note_vcpu_state(sink->state, ev.u.vcpu_state.vm);
	vm_threads_feed(sink->threads, &ev);
}

/*
 * SPEC, Containers, source 1: the `pid_ns` context of an event the
 * analysis does not decode. It is the namespace of the thread current on
 * the event's CPU, so the CPU is read too (only then: most traces have no
 * such context, and the analysis needs no CPU of these events).
 */
static void read_pid_ns(struct threads_sink *sink, const bt_event *event,
		struct vm_event *ev)
{
	ev->pid_ns = event_decoder_pid_ns(sink->decoder, event);
	if (ev->pid_ns) {
		ev->cpu = event_decoder_cpu_id(sink->decoder, event);
	}
}

/*
 * Most events of the host (kvm_entry, scheduler events) and all vmsync
 * ones only count for their time and machine: their fields are read only
 * when the analysis would look at them. The decoder tells the kind of an
 * event's class without reading its fields; the time is read once (the gap
 * locator's, when it had it).
 */
static void handle_event(struct threads_sink *sink, const bt_message *msg,
		const int64_t *ts, void **stream_data)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	struct vm_event ev = { .machine = 0 };

	ev.kind = event_decoder_kind(sink->decoder, bt_event_borrow_class_const(event));
	if (ts) {
		ev.ts = *ts;
	} else if (!event_time(msg, &ev.ts)) {
		warn_no_clock(sink);
		return;
	}
	if (ev.kind == VM_EVENT_VCPU_STATE) {
		/* The decoder's "no time", which its other events cannot have. */
		if (ev.ts == VM_FIELD_MISSING) {
			warn_no_clock(sink);
			return;
		}
		handle_vcpu_state(sink, event, ev.ts);
		return;
	}
	ev.machine = event_machine(sink, event, stream_data)->index;
	if (ev.kind == VM_EVENT_KVM_ENTRY || ev.kind == VM_EVENT_KVM_EXIT) {
		state_presence_note_kvm(sink->state, ev.machine);
	}
	/* Kinds other than VM_EVENT_OTHER decode. */
	if (vm_threads_needs_fields(sink->threads, ev.machine, ev.kind)) {
		(void) event_decoder_decode_at(sink->decoder, event, ev.ts, &ev);
	} else {
		read_pid_ns(sink, event, &ev);
	}
	vm_threads_feed(sink->threads, &ev);
}

/* What a located gap lost, for its warning: "3 events", "an unknown number of packets". */
static char *lost_text(const struct vm_gap *gap)
{
	const char *what = gap->packets ? "packets" : "events";

	if (gap->count < 0) {
		return g_strdup_printf("an unknown number of %s", what);
	}
	return g_strdup_printf("%" PRId64 " %s", gap->count, what);
}

/*
 * A gap located by the gap locator, at its place in the time order: it
 * goes to the analysis as a VM_EVENT_LOSS. The first gap of each stream is
 * said (SPEC: once per machine and stream); the text summary counts them all.
 */
static void handle_gap(const bt_stream *stream, int64_t cpu, const struct vm_gap *gap,
		bool first, void *data)
{
	struct threads_sink *sink = data;
	const struct machine *machine = machine_of_stream(sink, stream);
	struct vm_event ev = {
		.kind = VM_EVENT_LOSS,
		.ts = gap->begin,
		.machine = machine->index,
		.cpu = cpu,
		.u.loss = { .end = gap->end, .count = gap->count, .packets = gap->packets },
	};

	vm_threads_feed(sink->threads, &ev);
	if (first) {
		char *lost = lost_text(gap);
		char *cpu_text = cpu == VM_FIELD_MISSING ? g_strdup("(no cpu_id)") :
			g_strdup_printf("%" PRId64, cpu);

		THREADS_LOG(sink->self_comp, BT_LOGGING_LEVEL_WARNING,
			"Machine `%s`, CPU %s: the tracer discarded %s; from %" PRId64
			" to %" PRId64 " ns (the stream's last event before the loss to the "
			"end of the discarded range) nothing is known of that CPU: its "
			"thread is `unknown` until the events that decide it, and exits "
			"across the gap are not counted. Later losses of this stream are "
			"only counted in the text summary; record with larger or more "
			"sub-buffers to avoid them.", machine->name, cpu_text, lost,
			gap->begin, gap->end);
		g_free(cpu_text);
		g_free(lost);
	}
}

/* A message that leaves the gap locator, in input order. */
static void handle_message(const bt_message *msg, const int64_t *ts,
		void **stream_data, void *data)
{
	struct threads_sink *sink = data;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		handle_event(sink, msg, ts, stream_data);
		break;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		state_presence_note_stream(sink->state,
			bt_message_stream_beginning_borrow_stream_const(msg));
		break;
	default:
		break;
	}
}

/* The whole output is written: it replaces the file given by `path`. */
/*
 * The standard output failed (a full disk, a closed pipe, > /dev/full): no
 * `path` was given, so none is blamed.
 */
static void report_stdout_error(struct threads_sink *sink, const char *error)
{
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
		"Cannot write the output to the standard output: %s. Check where the "
		"standard output goes (its free space), or give an output file with "
		"parameter `path`.", error);
}

static bool commit_output(struct threads_sink *sink)
{
	char *error = NULL;

	if (vm_output_file_commit(sink->output, &error)) {
		return true;
	}
	if (sink->params.path) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"Cannot put the output in place of the file given by parameter "
			"`path` (\"%s\"): %s. Check the free space and the permissions "
			"of its directory.", sink->params.path, error);
	} else {
		report_stdout_error(sink, error);
	}
	g_free(error);
	return false;
}

static void warn_state(const char *machine, const char *message, void *data)
{
	on_warning("vcpu-modes", machine, message, data);
}

/*
 * A host without vCPU modes (filter.vm.state absent, or it mapped no vCPU
 * thread to a guest): nothing says when a vCPU was in the hypervisor,
 * preempted or blocked, so on-vCPU time reads as `running`. Said once, at
 * the end, when the whole input showed it.
 */
static void warn_no_vcpu_modes(struct threads_sink *sink)
{
	state_presence_warn(sink->state, sink->machines, warn_state, sink);
}

/*
 * Host and guests without filter.vm.correlate before the sink: their clocks
 * are not synchronized, so guest threads are matched with the wrong vCPU
 * modes. filter.vm.state says it when it is there (it emits vm:vcpu_state
 * events on a host); without a host the own-view states of each machine do
 * not depend on the other machines' clocks.
 */
static void warn_unsynchronized(struct threads_sink *sink)
{
	char *message;

	if (!state_presence_host_without_state(sink->state) ||
			!machines_unsynchronized(sink->machines)) {
		return;
	}
	message = machines_unsynchronized_message(sink->machines, "sink.vm.threads");
	THREADS_LOG(sink->self_comp, BT_LOGGING_LEVEL_WARNING, "%s", message);
	g_free(message);
}

static bool finish(struct threads_sink *sink)
{
	warn_no_vcpu_modes(sink);
	warn_unsynchronized(sink);
	vm_threads_finish(sink->threads);
	vm_writer_set_no_host(sink->writer, !vm_threads_host_seen(sink->threads));
	vm_container_totals_foreach(sink->container_totals, write_container_total,
		sink->writer);
	if (!vm_writer_finish(sink->writer) || fflush(sink->out) != 0) {
		if (!sink->params.path) {
			report_stdout_error(sink, strerror(errno));
			return false;
		}
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self_comp,
			"Cannot write the output file \"%s\" given by parameter `path`: "
			"%s. Check the free space and the permissions of that file.",
			sink->params.path, strerror(errno));
		return false;
	}
	return commit_output(sink);
}

bt_component_class_sink_consume_method_status threads_sink_consume(
		bt_self_component_sink *self_comp_sink)
{
	struct threads_sink *sink = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_comp_sink));
	bt_message_array_const msgs;
	uint64_t count;

	switch (bt_message_iterator_next(sink->iterator, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(sink->iterator);
		stream_losses_flush(sink->losses);
		return finish(sink) ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END :
			BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		/* The locator takes its own reference while it holds one. */
		stream_losses_push(sink->losses, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
}
