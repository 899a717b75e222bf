/*
 * The message iterator of filter.vm.state. Every upstream message goes
 * first through the gap locator (lib/loss/gap-locator.h), which places the
 * events that discarded-events/packets messages report lost in the time
 * order, then through the vCPU tracker's look-ahead (lib/vcpu/tracker.h) as
 * a cookie, with the located gaps as VM_EVENT_LOSS inputs of their own; the
 * tracker gives the messages back in order, each followed by the vCPU mode
 * changes it caused, which become vm:vcpu_state events. Both go to an
 * output queue, drained at most `capacity` messages per call.
 */

#include <inttypes.h>
#include <glib.h>

#include "state/iterator-private.h"
#include "state/state.h"
#include "state/end-checks.h"
#include "common/message-stream.h"
#include "common/msg-time.h"

/* Notes the clock of a released input (events: read when pushed). */
static void note_input_time(struct state_iterator *it, const bt_message *msg)
{
	struct msg_time time;

	if (it->cause.is_event) {
		if (it->cause.clock.clock_class) {
			it->input_end = it->cause.clock;
		}
		return;
	}
	msg_time_get(msg, &time);
	/*
	 * Stream beginnings and ends do not count: their times may be
	 * unknown. A discarded range counts at its end.
	 */
	if (!time.clock_class || time.type == BT_MESSAGE_TYPE_STREAM_BEGINNING ||
			time.type == BT_MESSAGE_TYPE_STREAM_END) {
		return;
	}
	it->input_end.clock_class = time.clock_class;
	it->input_end.value = time.end_value;
}

/*
 * The tracker releases inputs in input order: so are `causes`. A located
 * gap is an input without message (NULL).
 */
static void on_release(void *user, void *cookie)
{
	struct state_iterator *it = user;
	const bt_message *msg = cookie;

	it->cause_msg = msg;
	if (!cause_ring_pop(&it->causes, &it->cause)) {
		it->cause = (struct input_cause) { .is_event = false };
	}
	if (!msg) {
		return;
	}
	note_input_time(it, msg);
	/* Nothing refers to the stream any more: the gaps come before. */
	if (it->cause.is_stream_end) {
		loss_streams_forget(it->loss_streams,
			bt_message_stream_end_borrow_stream_const(msg));
	}
	msg_ring_push(&it->output, msg);
}

/*
 * Changes are only recorded on event inputs (lib/vcpu/state.c), and are
 * reported right after the release of their input: `cause` is that event.
 */
static void on_change(void *user, const struct vm_vcpu_change *change)
{
	struct state_iterator *it = user;

	if (it->failed) {
		return;
	}
	if (it->cause.is_loss) {
		/* At the gap's start, which is no message's time. */
		if (!vcpu_stream_append_change_at(it->vcpu_stream, &it->output,
				change, state_machine_name(it, change->vm),
				bt_stream_borrow_trace_const(it->cause.loss_stream),
				it->cause.clock.clock_class)) {
			it->failed = true;
		}
		return;
	}
	if (!it->cause.is_event) {
		ITER_ERROR_CAUSE(it, "A vCPU mode change is reported after a "
			"message that is not an event (internal error).");
		it->failed = true;
		return;
	}
	if (!it->cause.clock.clock_class) {
		/* Mode changes come from host events, which have times. */
		ITER_ERROR_CAUSE(it, "A vCPU mode change comes from an event "
			"without a default clock snapshot: the host trace has no "
			"clock, filter.vm.state cannot place its events.");
		it->failed = true;
		return;
	}
	if (!vcpu_stream_append_change(it->vcpu_stream, &it->output, change,
			state_machine_name(it, change->vm),
			it->cause_msg, it->cause.clock.clock_class,
			it->cause.clock.value)) {
		it->failed = true;
	}
}

static void on_warning(void *user, enum vm_vcpu_warning kind,
		unsigned int machine, const char *message)
{
	struct state_iterator *it = user;

	(void) kind;
	STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_WARNING,
		"Machine `%s`: %s", state_machine_name(it, machine),
		message);
}

static const char *on_machine_name(void *user, unsigned int machine)
{
	struct state_iterator *it = user;

	return state_machine_name(it, machine);
}

static void discard_message(void *cookie)
{
	bt_message_put_ref(cookie);
}

static void destroy_analysis(struct state_iterator *it)
{
	/* What the locator holds is released, and dropped (see on_located). */
	it->dropping = true;
	vm_gap_locator_destroy(it->locator);
	it->locator = NULL;
	it->dropping = false;
	vm_vcpu_tracker_destroy(it->tracker, discard_message);
	it->tracker = NULL;
	/* After the tracker: its held causes may borrow the streams. */
	loss_streams_destroy(it->loss_streams);
	it->loss_streams = NULL;
	cause_ring_clear(&it->causes);
	vm_model_destroy(it->model);
	it->model = NULL;
}

static void on_located(void *cookie, void *data);

/* A fresh model and tracker, knowing the machines seen so far. */
static bool create_analysis(struct state_iterator *it)
{
	static const struct vm_vcpu_callbacks callbacks = {
		.release = on_release,
		.mode_change = on_change,
		.warning = on_warning,
		.machine_name = on_machine_name,
	};
	const struct vm_gap_locator_callbacks locator_callbacks = {
		.release = on_located,
		.gap = state_on_gap,
		.data = it,
	};
	unsigned int machine;

	it->model = vm_model_create(it->component->params.model);
	it->tracker = vm_vcpu_tracker_create(it->model, NULL, &callbacks, it);
	it->locator = vm_gap_locator_create(&locator_callbacks, 0, 0);
	it->loss_streams = loss_streams_create();
	it->locator_ts = INT64_MIN;
	it->losses_pending = 0;
	it->times_always = false;
	if (!it->tracker) {
		ITER_ERROR_CAUSE(it, "Cannot create the vCPU mode analysis (model "
			"of parameter `model`).");
		return false;
	}
	it->roles_given = false;
	it->role_host = -1;
	for (machine = 0; machine < machine_table_count(it->machines); machine++) {
		state_announce_machine(it, machine);
	}
	it->cause_msg = NULL;
	it->cause = (struct input_cause) { .is_event = false };
	it->input_end.clock_class = NULL;
	it->vm_pids_applied = false;
	it->vm_pids_host_checked = false;
	it->upstream_ended = false;
	it->failed = false;
	return true;
}

static void iterator_destroy(struct state_iterator *it)
{
	if (!it) {
		return;
	}
	destroy_analysis(it);
	msg_ring_fini(&it->output);
	cause_ring_fini(&it->causes);
	vcpu_stream_destroy(it->vcpu_stream);
	earlier_states_destroy(it->earlier_states);
	machine_table_destroy(it->machines);
	event_decoder_destroy(it->decoder);
	bt_message_iterator_put_ref(it->upstream);
	g_free(it);
}

bt_message_iterator_class_initialize_method_status state_iterator_initialize(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *configuration,
		bt_self_component_port_output *port)
{
	bt_self_component *self_comp =
		bt_self_message_iterator_borrow_component(self_msg_iter);
	struct state_iterator *it = g_new0(struct state_iterator, 1);
	bt_self_component_port_input *in_port =
		bt_self_component_filter_borrow_input_port_by_name(
			(bt_self_component_filter *) self_comp, "in");

	(void) port;
	it->self_msg_iter = self_msg_iter;
	it->component = bt_self_component_get_data(self_comp);
	msg_ring_init(&it->output);
	cause_ring_init(&it->causes);
	/*
	 * libbabeltrace2 aborts the process (a precondition) when asked for
	 * an iterator on an unconnected port: say what to connect instead.
	 */
	if (!bt_port_is_connected(bt_self_component_port_as_port(
			bt_self_component_port_input_as_self_component_port(in_port)))) {
		ITER_ERROR_CAUSE(it, "The input port `in` is not connected: connect the "
			"output of filter.vm.correlate (or of any source or filter) to it.");
		iterator_destroy(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	if (bt_message_iterator_create_from_message_iterator(self_msg_iter,
			in_port, &it->upstream) !=
			BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK) {
		ITER_ERROR_CAUSE(it, "Cannot create the upstream message iterator "
			"of the input port `in`.");
		iterator_destroy(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	/* The tracker never reads strings (it blanks them in its copies). */
	it->decoder = event_decoder_create_without_strings();
	it->machines = machine_table_create();
	it->vcpu_stream = vcpu_stream_create(self_msg_iter);
	it->earlier_states = earlier_states_create();
	if (!create_analysis(it)) {
		iterator_destroy(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	/*
	 * Seeking to a time (filter.utils.trimmer's `begin`) is babeltrace2's
	 * auto-seek: a seek to the beginning, which starts the analysis over,
	 * then the messages before that time dropped. The vCPU modes at that
	 * time need the whole history before it anyway. Allowed when every
	 * message has a time: those of the upstream, if it says so, and ours.
	 */
	bt_self_message_iterator_configuration_set_can_seek_forward(configuration,
		bt_message_iterator_can_seek_forward(it->upstream));
	bt_self_message_iterator_set_data(self_msg_iter, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void state_iterator_finalize(bt_self_message_iterator *self_msg_iter)
{
	iterator_destroy(bt_self_message_iterator_get_data(self_msg_iter));
}

static bool push_event(struct state_iterator *it, const bt_message *msg)
{
	struct vm_event plain = { .machine = 0 };
	struct input_cause cause = { .is_event = true };
	bool decoded;

	if ((!it->vm_pids_applied && !state_apply_machine_params(it)) ||
			(!it->vm_pids_host_checked && !state_check_vm_pids_host(it))) {
		return false;
	}
	decoded = event_decoder_decode_with_clock(it->decoder, msg, &plain,
		&cause.clock);
	/*
	 * Only the events the tracker reads need their machine: the stream
	 * beginning, which comes before any event of its stream, already
	 * made the machine known.
	 */
	if (decoded) {
		plain.machine = state_machine_of_stream(it, bt_event_borrow_stream_const(
			bt_message_event_borrow_event_const(msg)));
	}
	/* Before the push, which may release the input at once. */
	cause_ring_push(&it->causes, &cause);
	vm_vcpu_tracker_push(it->tracker, decoded ? &plain : NULL, (void *) msg);
	return true;
}

/* A message that is not an event. */
static void push_other(struct state_iterator *it, const bt_message *msg,
		bt_message_type type)
{
	struct input_cause cause = {
		.is_stream_end = type == BT_MESSAGE_TYPE_STREAM_END,
	};

	cause_ring_push(&it->causes, &cause);
	vm_vcpu_tracker_push(it->tracker, NULL, (void *) msg);
}

/*
 * An earlier filter.vm.state's vm:vcpu_state stream: ours replaces it.
 * Takes the reference on `msg` when true.
 */
static bool drop_earlier_state(struct state_iterator *it, const bt_message *msg,
		const bt_stream *stream)
{
	bool first;

	if (!earlier_states_has(it->earlier_states, stream, &first)) {
		return false;
	}
	if (first) {
		STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_INFO,
			"The input has vm:vcpu_state events of an earlier "
			"filter.vm.state: they are replaced by the ones computed here.");
	}
	bt_message_put_ref(msg);
	return true;
}

/* Into the tracker, as the locator releases it. Takes the reference. */
static bool analyze_message(struct state_iterator *it, const bt_message *msg,
		bt_message_type type)
{
	switch (type) {
	case BT_MESSAGE_TYPE_EVENT:
		if (!push_event(it, msg)) {
			bt_message_put_ref(msg);
			return false;
		}
		break;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		state_machine_of_stream(it, bt_message_stream_beginning_borrow_stream_const(msg));
		push_other(it, msg, type);
		break;
	default:
		push_other(it, msg, type);
		break;
	}
	return !it->failed;
}

/* An input the locator lets go, in input order. */
static void on_located(void *cookie, void *data)
{
	struct state_iterator *it = data;
	const bt_message *msg = cookie;

	if (it->dropping || it->failed) {
		bt_message_put_ref(msg);
		return;
	}
	/* Most messages leave the locator within their own push. */
	if (!analyze_message(it, msg, msg == it->pushing ? it->pushing_type :
			bt_message_get_type(msg))) {
		it->failed = true;
	}
}

/* Takes the reference on `msg`. */
static bool push_message(struct state_iterator *it, const bt_message *msg)
{
	bt_message_type type = bt_message_get_type(msg);
	const bt_stream *stream = vm_message_stream_of_type(msg, type);

	if (drop_earlier_state(it, msg, stream)) {
		return true;
	}
	if (type == BT_MESSAGE_TYPE_DISCARDED_EVENTS ||
			type == BT_MESSAGE_TYPE_DISCARDED_PACKETS) {
		state_locate_discarded(it, msg);
		return !it->failed;
	}
	if (type == BT_MESSAGE_TYPE_PACKET_BEGINNING) {
		loss_streams_note_packet(it->loss_streams,
			bt_message_packet_beginning_borrow_packet_const(msg));
	} else if (type == BT_MESSAGE_TYPE_STREAM_BEGINNING && state_loses_without_times(
			bt_message_stream_beginning_borrow_stream_const(msg))) {
		it->times_always = true;
	}
	it->pushing = msg;
	it->pushing_type = type;
	vm_gap_locator_push(it->locator, loss_stream_key(stream),
		state_locator_time(it, msg, type == BT_MESSAGE_TYPE_EVENT),
		type == BT_MESSAGE_TYPE_EVENT, (void *) msg);
	it->pushing = NULL;
	return !it->failed;
}

static bool push_batch(struct state_iterator *it, bt_message_array_const msgs,
		uint64_t count)
{
	uint64_t i;

	for (i = 0; i < count; i++) {
		if (!push_message(it, msgs[i])) {
			for (i++; i < count; i++) {
				bt_message_put_ref(msgs[i]);
			}
			return false;
		}
	}
	return true;
}

/* What only the whole input tells (end-checks.h). */
static void end_checks(struct state_iterator *it)
{
	const char *host = state_machine_name(it,
		(unsigned int) it->model->cls->host(it->model->data));

	end_check_vm_pids(it->component->self_comp,
		it->component->params.vm_pids, it->model, host);
	end_check_host_vcpus(it->component->self_comp, it->model, host,
		machine_table_count(it->machines));
}

/* The vm:vcpu_state stream ends; without a change, it is the host's. */
static bool append_vcpu_stream_end(struct state_iterator *it)
{
	int64_t host = it->model->cls->host(it->model->data);
	const struct machine *machine = NULL;

	if (host != VM_MODEL_UNKNOWN && (uint64_t) host < machine_table_count(it->machines)) {
		machine = machine_table_at(it->machines, (unsigned int) host);
	}
	return vcpu_stream_append_end(it->vcpu_stream, &it->output,
		machine ? machine_table_trace_of(it->machines, machine) : NULL,
		machine ? machine_table_clock_class_of(it->machines, machine) : NULL,
		&it->input_end);
}

static bool end_of_input(struct state_iterator *it)
{
	it->upstream_ended = true;
	/* The gaps still pending, at the streams' last events. */
	vm_gap_locator_flush(it->locator);
	if (it->failed) {
		return false;
	}
	if (!it->vm_pids_applied && !state_apply_machine_params(it)) {
		return false;
	}
	vm_vcpu_tracker_flush(it->tracker);
	state_warn_host_choice(it);
	/* The flush learns from the events held back: the host may be new. */
	if (it->failed || !state_check_vm_pids_host(it)) {
		return false;
	}
	/* The whole input is known: every vCPU thread was seen. */
	end_checks(it);
	return append_vcpu_stream_end(it);
}

/* Pulls upstream until `capacity` messages are ready or upstream waits. */
static bt_message_iterator_class_next_method_status fill_output(
		struct state_iterator *it, uint64_t capacity)
{
	while (msg_ring_length(&it->output) < capacity && !it->upstream_ended) {
		bt_message_array_const msgs;
		uint64_t count;

		switch (bt_message_iterator_next(it->upstream, &msgs, &count)) {
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
			if (!push_batch(it, msgs, count)) {
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
			}
			break;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
			if (!end_of_input(it)) {
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
			}
			break;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
		default:
			ITER_ERROR_CAUSE(it, "The upstream message iterator failed.");
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
	}
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

bt_message_iterator_class_next_method_status state_iterator_next(
		bt_self_message_iterator *self_msg_iter,
		bt_message_array_const msgs, uint64_t capacity, uint64_t *count)
{
	struct state_iterator *it = bt_self_message_iterator_get_data(self_msg_iter);
	bt_message_iterator_class_next_method_status status =
		fill_output(it, capacity);

	if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK &&
			status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN) {
		return status;
	}
	if (msg_ring_is_empty(&it->output)) {
		return it->upstream_ended ?
			BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END :
			BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	}
	*count = 0;
	while (*count < capacity && !msg_ring_is_empty(&it->output)) {
		msgs[(*count)++] = msg_ring_pop(&it->output);
	}
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

bt_message_iterator_class_can_seek_beginning_method_status
state_iterator_can_seek_beginning(bt_self_message_iterator *self_msg_iter,
		bt_bool *can_seek)
{
	struct state_iterator *it = bt_self_message_iterator_get_data(self_msg_iter);

	return (bt_message_iterator_class_can_seek_beginning_method_status)
		bt_message_iterator_can_seek_beginning(it->upstream, can_seek);
}

/* Upstream restarts: so does the whole analysis. */
bt_message_iterator_class_seek_beginning_method_status
state_iterator_seek_beginning(bt_self_message_iterator *self_msg_iter)
{
	struct state_iterator *it = bt_self_message_iterator_get_data(self_msg_iter);
	bt_message_iterator_seek_beginning_status status =
		bt_message_iterator_seek_beginning(it->upstream);

	if (status != BT_MESSAGE_ITERATOR_SEEK_BEGINNING_STATUS_OK) {
		return (bt_message_iterator_class_seek_beginning_method_status) status;
	}
	destroy_analysis(it);
	msg_ring_clear(&it->output);
	vcpu_stream_rewind(it->vcpu_stream);
	if (!create_analysis(it)) {
		return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_ERROR;
	}
	return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_OK;
}
