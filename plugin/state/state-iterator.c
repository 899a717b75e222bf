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

#include "state/state.h"
#include "state/state-component.h"
#include "state/msg-ring.h"
#include "state/cause-ring.h"
#include "state/vcpu-stream.h"
#include "state/earlier-states.h"
#include "state/end-checks.h"
#include "common/message-stream.h"
#include "common/msg-time.h"
#include "common/discarded-items.h"
#include "common/event-decode.h"
#include "common/log.h"
#include "common/machine.h"
#include "common/unsynced.h"
#include "loss/gap-locator.h"
#include "model/host-rule.h"
#include "common/loss-streams.h"
#include "vcpu/tracker.h"

#define STATE_LOG(self_comp, level, ...) \
	vm_log_comp((self_comp), (level), "filter.vm.state", __VA_ARGS__)

struct state_iterator {
	bt_self_message_iterator *self_msg_iter;
	struct state_component *component;
	bt_message_iterator *upstream;
	struct event_decoder *decoder;
	struct machine_table *machines;
	struct vm_model *model;
	/* In front of the tracker: lost events at their place in time. */
	struct vm_gap_locator *locator;
	struct loss_streams *loss_streams;
	/* The latest input time given to the locator (ns), INT64_MIN before. */
	int64_t locator_ts;
	/* Losses given to the locator and not located yet. */
	uint64_t losses_pending;
	/*
	 * The message being pushed to the locator (NULL between pushes) and
	 * its type, which on_located() then need not ask again.
	 */
	const bt_message *pushing;
	bt_message_type pushing_type;
	/*
	 * Some stream may lose events without telling when (its discarded
	 * messages have no clock snapshots): its gaps are placed at the time
	 * of the message before them, so every message's time is read.
	 * Otherwise an event's time is read only while the locator needs it
	 * (a loss pending, or messages held): it costs as much as the rest of
	 * this component's work on an event that the analysis does not use.
	 */
	bool times_always;
	/*
	 * The analysis is being destroyed: what the locator still releases is
	 * dropped, not analyzed.
	 */
	bool dropping;
	struct vm_vcpu_tracker *tracker;
	struct vcpu_stream *vcpu_stream;
	/* vm:vcpu_state streams of the input, replaced by ours. */
	struct earlier_states *earlier_states;
	/* References owned, in output order. */
	struct msg_ring output;
	/* Of each input the tracker holds, in input order. */
	struct cause_ring causes;
	/*
	 * The last input released: the event that causes the mode changes
	 * reported right after it. The message is borrowed: its reference is
	 * in `output`, which next() drains only after the tracker returns.
	 */
	const bt_message *cause_msg;
	struct input_cause cause;
	/* Clock of the last timed input released: the vCPU stream ends there. */
	struct event_clock input_end;
	bool vm_pids_applied;
	/*
	 * Whether vm-pids was checked against the host (once it is known), or
	 * needs no check (empty).
	 */
	bool vm_pids_host_checked;
	/*
	 * filter.vm.correlate's `vm_role` said which machine is the host:
	 * the host rule was applied there, this component follows it.
	 */
	bool roles_given;
	int64_t role_host;  /* the machine whose vm_role is `host`, or -1 */
	bool upstream_ended;
	/* A tracker callback failed (error cause appended). */
	bool failed;
	/* Warned that several machines came without filter.vm.correlate. */
	bool warned_unsynchronized;
};

#define ITER_ERROR_CAUSE(it, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR( \
		(it)->self_msg_iter, __VA_ARGS__)

/* Notes the clock of a released input (events: read when pushed). */
static void note_input_time(struct state_iterator *it, const bt_message *msg)
{
	struct msg_time time;

	if (it->cause.is_event) {
		if (it->cause.clock.clock_class)
			it->input_end = it->cause.clock;
		return;
	}
	msg_time_get(msg, &time);
	/*
	 * Stream beginnings and ends do not count: their times may be
	 * unknown. A discarded range counts at its end.
	 */
	if (!time.clock_class || time.type == BT_MESSAGE_TYPE_STREAM_BEGINNING ||
			time.type == BT_MESSAGE_TYPE_STREAM_END)
		return;
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
	if (!cause_ring_pop(&it->causes, &it->cause))
		it->cause = (struct input_cause) { .is_event = false };
	if (!msg)
		return;
	note_input_time(it, msg);
	/* Nothing refers to the stream any more: the gaps come before. */
	if (it->cause.is_stream_end)
		loss_streams_forget(it->loss_streams,
			bt_message_stream_end_borrow_stream_const(msg));
	msg_ring_push(&it->output, msg);
}

/* The name of machine `index` (named on first sight), "" if none. */
static const char *machine_name(const struct state_iterator *it,
		unsigned int index)
{
	if (index >= machine_table_count(it->machines))
		return "";
	return machine_display_name(machine_table_at(it->machines, index));
}

/* The index of the machine named `name`; false when there is none. */
static bool find_machine(const struct state_iterator *it, const char *name,
		unsigned int *index)
{
	const struct machine *machine =
		machine_table_find_by_name(it->machines, name);

	if (!machine)
		return false;
	*index = machine->index;
	return true;
}

/*
 * Changes are only recorded on event inputs (lib/vcpu/state.c), and are
 * reported right after the release of their input: `cause` is that event.
 */
static void on_change(void *user, const struct vm_vcpu_change *change)
{
	struct state_iterator *it = user;

	if (it->failed)
		return;
	if (it->cause.is_loss) {
		/* At the gap's start, which is no message's time. */
		if (!vcpu_stream_append_change_at(it->vcpu_stream, &it->output,
				change, machine_name(it, change->vm),
				bt_stream_borrow_trace_const(it->cause.loss_stream),
				it->cause.clock.clock_class))
			it->failed = true;
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
			machine_name(it, change->vm),
			it->cause_msg, it->cause.clock.clock_class,
			it->cause.clock.value))
		it->failed = true;
}

static void on_warning(void *user, enum vm_vcpu_warning kind,
		unsigned int machine, const char *message)
{
	struct state_iterator *it = user;

	(void) kind;
	STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_WARNING,
		"Machine `%s`: %s", machine_name(it, machine),
		message);
}

static const char *on_machine_name(void *user, unsigned int machine)
{
	struct state_iterator *it = user;

	return machine_name(it, machine);
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

/*
 * A machine to the tracker, with the role correlate's `vm_role` gives it:
 * the host rule was applied there, once for every component.
 */
static void announce_machine(struct state_iterator *it, unsigned int machine)
{
	enum machine_role role = machine_table_at(it->machines, machine)->role;

	vm_vcpu_tracker_add_machine(it->tracker, machine);
	if (role == MACHINE_ROLE_UNKNOWN)
		return;
	it->roles_given = true;
	if (role == MACHINE_ROLE_HOST)
		it->role_host = machine;
	it->model->cls->set_role(it->model->data, machine,
		role == MACHINE_ROLE_HOST);
}

static void on_located(void *cookie, void *data);
static void on_gap(const struct vm_gap *gap, void *data);

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
		.gap = on_gap,
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
	for (machine = 0; machine < machine_table_count(it->machines); machine++)
		announce_machine(it, machine);
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
	if (!it)
		return;
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

static void apply_env_host_pid(struct state_iterator *it, unsigned int machine);

/*
 * Said as soon as the second machine shows up, before a long run whose
 * host/guest results would be wrong. The machine table lives as long as
 * the iterator (a seek keeps it), so this happens once.
 */
static void warn_unsynchronized(struct state_iterator *it)
{
	char *message;

	if (it->warned_unsynchronized || !machines_unsynchronized(it->machines))
		return;
	it->warned_unsynchronized = true;
	message = machines_unsynchronized_message(it->machines, "filter.vm.state");
	STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_WARNING, "%s", message);
	g_free(message);
}

/* The machine of `stream`, announced to the tracker on first sight. */
static unsigned int machine_of_stream(struct state_iterator *it,
		const bt_stream *stream)
{
	bool is_new;
	unsigned int machine = machine_table_machine_of_stream(it->machines,
		stream, &is_new)->index;

	if (is_new) {
		machine_table_assign_names(it->machines);
		announce_machine(it, machine);
		STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_INFO,
			"Machine `%s` found.", machine_name(it,
				machine));
		/* A machine met after vm-pids was applied. */
		if (it->vm_pids_applied)
			apply_env_host_pid(it, machine);
		warn_unsynchronized(it);
	}
	return machine;
}

/* Whether vm-pids gives process `pid` to a machine; `*name` is that one. */
static bool pid_given_to_another(const struct state_iterator *it, int64_t pid,
		const char **name)
{
	GHashTableIter iter;
	gpointer key, value;

	g_hash_table_iter_init(&iter, it->component->params.vm_pids);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		if (*(const gint64 *) value == pid) {
			*name = key;
			return true;
		}
	}
	return false;
}

/*
 * Whether no other guest's `vm_host_pid` names the same process: two
 * guests in one QEMU cannot both be right, and neither says much then.
 */
static bool env_host_pid_unique(const struct state_iterator *it,
		const struct machine *m)
{
	unsigned int i;

	for (i = 0; i < machine_table_count(it->machines); i++) {
		const struct machine *other = machine_table_at(it->machines, i);

		if (other != m && other->role != MACHINE_ROLE_HOST &&
				other->host_pid == m->host_pid)
			return false;
	}
	return true;
}

/*
 * A guest's `vm_host_pid` (correlate found its QEMU) serves as a vm-pids
 * entry, unless vm-pids names the machine: the user's word wins. A vm-pids
 * entry that contradicts it is most likely the mistake (correlate matched
 * the guest's activity to that process's vCPUs): a warning, with both.
 */
static void apply_env_host_pid(struct state_iterator *it, unsigned int machine)
{
	const struct machine *m = machine_table_at(it->machines, machine);
	const char *name = machine_name(it, machine);
	const gint64 *given = name ?
		g_hash_table_lookup(it->component->params.vm_pids, name) : NULL;
	bt_logging_level level;
	const char *other;

	if (m->host_pid < 0 || m->role == MACHINE_ROLE_HOST)
		return;
	level = env_host_pid_unique(it, m) ? BT_LOGGING_LEVEL_WARNING :
		BT_LOGGING_LEVEL_INFO;
	if (given) {
		if (*given != m->host_pid)
			STATE_LOG(it->component->self_comp, level,
				"Machine `%s`: parameter `vm-pids` gives its QEMU "
				"process %" PRId64 ", but its trace environment's "
				"`vm_host_pid` gives %" PRId64 " (filter.vm.correlate "
				"fitted the guest's activity to the vCPUs of that "
				"process): using the parameter's; check it.", name,
				(int64_t) *given, m->host_pid);
		return;
	}
	if (pid_given_to_another(it, m->host_pid, &other)) {
		STATE_LOG(it->component->self_comp, level,
			"Machine `%s`: its trace environment `vm_host_pid` (from "
			"filter.vm.correlate) gives QEMU process %" PRId64 ", which "
			"parameter `vm-pids` gives to `%s`: using the parameter's, "
			"so `%s` gets no vCPU from it; check it.",
			name ? name : "?", m->host_pid, other, name ? name : "?");
		/* Its own evidence names another process: no guess for it either. */
		if (it->model->cls->set_vm_pid_refused)
			it->model->cls->set_vm_pid_refused(it->model->data, machine,
				m->host_pid);
		return;
	}
	it->model->cls->set_vm_pid(it->model->data, machine, m->host_pid);
}

static void apply_env_host_pids(struct state_iterator *it)
{
	unsigned int machine;

	for (machine = 0; machine < machine_table_count(it->machines); machine++)
		apply_env_host_pid(it, machine);
}

/*
 * Parameter vm-pids names machines: checked once the machines are known,
 * that is at the first event (every stream has begun by then) or at the end.
 * The machines' `vm_host_pid` entries go in then too.
 */
static bool apply_vm_pids(struct state_iterator *it)
{
	GHashTableIter iter;
	gpointer key, value;

	it->vm_pids_applied = true;
	g_hash_table_iter_init(&iter, it->component->params.vm_pids);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		unsigned int machine;

		if (!find_machine(it, key, &machine)) {
			char *list = machine_table_names_text(it->machines);

			ITER_ERROR_CAUSE(it, "Parameter `vm-pids`: no machine of "
				"the input is named `%s`; the machines are: %s.",
				(const char *) key, list);
			g_free(list);
			return false;
		}
		it->model->cls->set_vm_pid(it->model->data, machine,
			*(const gint64 *) value);
	}
	apply_env_host_pids(it);
	return true;
}

/*
 * Parameter vm-pids gives the QEMU process of guests: naming the host is a
 * mistake that would make the host one of its own VMs. Checked as soon as
 * the model knows the host, which may be after vm-pids was applied.
 */
static bool check_vm_pids_host(struct state_iterator *it)
{
	int64_t host;
	const char *name;
	char *list;

	if (it->vm_pids_host_checked)
		return true;
	/* Nothing to check, ever: the callers need not ask again. */
	if (g_hash_table_size(it->component->params.vm_pids) == 0) {
		it->vm_pids_host_checked = true;
		return true;
	}
	host = it->model->cls->host(it->model->data);
	if (host == VM_MODEL_UNKNOWN)
		return true;
	it->vm_pids_host_checked = true;
	name = machine_name(it, (unsigned int) host);
	if (!name || !g_hash_table_contains(it->component->params.vm_pids, name))
		return true;
	list = machine_table_names_text(it->machines);
	ITER_ERROR_CAUSE(it, "Parameter `vm-pids`: machine `%s` is the host (it "
		"runs the VMs: its trace has their KVM events), not a guest; give "
		"the process id of each guest's QEMU under the guest's name (the "
		"machines are: %s).", name, list);
	g_free(list);
	return false;
}

/*
 * Parameter `host`, checked with vm-pids once the machines are known. With
 * correlate's vm_role, the rule was applied there: vm_role wins, so that
 * the three components agree on one host, and a `host` that contradicts it
 * is said once.
 */
static bool apply_host(struct state_iterator *it)
{
	const char *host = it->component->params.host;
	unsigned int machine;

	if (!host)
		return true;
	if (!find_machine(it, host, &machine)) {
		char *list = machine_table_names_text(it->machines);

		ITER_ERROR_CAUSE(it, "Parameter `host`: no machine of the input "
			"is named `%s`; the machines are: %s.", host, list);
		g_free(list);
		return false;
	}
	if (!it->roles_given) {
		it->model->cls->set_role(it->model->data, machine, true);
		return true;
	}
	if (it->role_host != (int64_t) machine)
		STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_WARNING,
			"Parameter `host` names `%s`, but filter.vm.correlate's "
			"`vm_role` says the host is `%s`: following `vm_role`, so that "
			"every component agrees. Pass `host` to filter.vm.correlate "
			"instead.", host, it->role_host < 0 ? "(none)" :
			machine_name(it, (unsigned int) it->role_host));
	return true;
}

/*
 * Without correlate's vm_role, the rule is applied here, on the whole
 * input: the one warning it may owe.
 */
static void warn_host_choice(struct state_iterator *it)
{
	unsigned int count = machine_table_count(it->machines);
	struct vm_host_candidate *candidates;
	struct vm_host_choice choice;
	unsigned int named;
	char *warning;
	unsigned int i;

	if (it->roles_given)
		return;
	candidates = g_new0(struct vm_host_candidate, count ? count : 1);
	for (i = 0; i < count; i++) {
		candidates[i].name = machine_name(it, i);
		candidates[i].evidence =
			it->model->cls->host_evidence(it->model->data, i);
	}
	choice = vm_host_rule_choose(candidates, count,
		it->component->params.host && find_machine(it,
			it->component->params.host, &named) ? (int64_t) named :
			VM_MODEL_UNKNOWN);
	warning = vm_host_rule_warning(&choice, candidates, count);
	if (warning)
		STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_WARNING,
			"%s", warning);
	g_free(warning);
	g_free(candidates);
}

/* vm-pids and host name machines: applied once the machines are known. */
static bool apply_machine_params(struct state_iterator *it)
{
	return apply_vm_pids(it) && apply_host(it);
}

static bool push_event(struct state_iterator *it, const bt_message *msg)
{
	struct vm_event plain = { .machine = 0 };
	struct input_cause cause = { .is_event = true };
	bool decoded;

	if ((!it->vm_pids_applied && !apply_machine_params(it)) ||
			(!it->vm_pids_host_checked && !check_vm_pids_host(it)))
		return false;
	decoded = event_decoder_decode_with_clock(it->decoder, msg, &plain,
		&cause.clock);
	/*
	 * Only the events the tracker reads need their machine: the stream
	 * beginning, which comes before any event of its stream, already
	 * made the machine known.
	 */
	if (decoded)
		plain.machine = machine_of_stream(it, bt_event_borrow_stream_const(
			bt_message_event_borrow_event_const(msg)));
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

	if (!earlier_states_has(it->earlier_states, stream, &first))
		return false;
	if (first)
		STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_INFO,
			"The input has vm:vcpu_state events of an earlier "
			"filter.vm.state: they are replaced by the ones computed here.");
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
		machine_of_stream(it, bt_message_stream_beginning_borrow_stream_const(msg));
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
			bt_message_get_type(msg)))
		it->failed = true;
}

/* Once per machine and stream: where, and how many. */
static void warn_loss(struct state_iterator *it, struct loss_stream *stream,
		unsigned int machine, const struct vm_gap *gap)
{
	char count[32], cpu[48];

	int64_t host = it->model->cls->host(it->model->data);

	if (stream->warned)
		return;
	stream->warned = true;
	/*
	 * A guest's losses change no vCPU mode: sink.vm.threads, which they
	 * concern, says so (once is enough for the user).
	 */
	if (host != VM_MODEL_UNKNOWN && host != (int64_t) machine)
		return;
	if (gap->count >= 0)
		g_snprintf(count, sizeof(count), "%" PRId64, gap->count);
	else
		g_strlcpy(count, "an unknown number of", sizeof(count));
	if (stream->cpu != VM_FIELD_MISSING)
		g_snprintf(cpu, sizeof(cpu), "%" PRId64, stream->cpu);
	else
		g_strlcpy(cpu, "unknown (no packet cpu_id)", sizeof(cpu));
	STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_WARNING,
		"Machine `%s`, CPU %s: the tracer lost %s %s (first gap from "
		"%" PRId64 " to %" PRId64 " ns from origin; later losses of this "
		"stream are not repeated here). On a host CPU, the vCPU whose "
		"thread ran there is `unknown` from the gap's start until its "
		"thread is seen again; record with larger or more sub-buffers "
		"to avoid it.", machine_name(it, machine), cpu, count,
		gap->packets ? "packets" : "events", gap->begin, gap->end);
}

/* A located gap: a VM_EVENT_LOSS input of the tracker, without message. */
static void on_gap(const struct vm_gap *gap, void *data)
{
	struct state_iterator *it = data;
	struct loss_stream *stream = loss_streams_find(it->loss_streams, gap->stream);
	struct input_cause cause = { .is_loss = true };
	struct vm_event plain = { .kind = VM_EVENT_LOSS };

	if (it->losses_pending > 0)
		it->losses_pending--;
	if (it->dropping || it->failed || !stream)
		return;
	plain.machine = machine_of_stream(it, stream->stream);
	plain.ts = gap->begin;
	plain.cpu = stream->cpu;
	plain.u.loss.end = gap->end;
	plain.u.loss.count = gap->count;
	plain.u.loss.packets = gap->packets;
	warn_loss(it, stream, plain.machine, gap);
	cause.loss_stream = stream->stream;
	cause.clock.clock_class = bt_stream_class_borrow_default_clock_class_const(
		bt_stream_borrow_class_const(stream->stream));
	cause_ring_push(&it->causes, &cause);
	vm_vcpu_tracker_push(it->tracker, &plain, NULL);
}

/*
 * The time the locator gets: the message's own, never before the one
 * before (the locator wants times that never go back; a message without
 * time sits at the time of the message before it). While no loss is
 * pending and nothing is held, the locator lets an event through at once
 * whatever its time, and the gaps to come start no earlier than their
 * discarded message: the event's time is not read then (see times_always).
 */
static int64_t locator_time(struct state_iterator *it, const bt_message *msg,
		bool is_event)
{
	struct msg_time time;

	if (is_event && !it->times_always && it->losses_pending == 0 &&
			vm_gap_locator_held(it->locator) == 0)
		return it->locator_ts;
	msg_time_get(msg, &time);
	/* Stream beginnings and ends: their times may be unknown. */
	if (time.type == BT_MESSAGE_TYPE_STREAM_BEGINNING ||
			time.type == BT_MESSAGE_TYPE_STREAM_END)
		return it->locator_ts;
	if (time.has_time && time.ns > it->locator_ts)
		it->locator_ts = time.ns;
	return it->locator_ts;
}

/* Whether `stream` may lose events or packets without saying when. */
static bool loses_without_times(const bt_stream *stream)
{
	const bt_stream_class *cls = bt_stream_borrow_class_const(stream);

	return (bt_stream_class_supports_discarded_events(cls) &&
			!bt_stream_class_discarded_events_have_default_clock_snapshots(cls)) ||
		(bt_stream_class_supports_discarded_packets(cls) &&
			!bt_stream_class_discarded_packets_have_default_clock_snapshots(cls));
}

/*
 * A discarded-events/packets message: the locator places its gap. Without
 * clock snapshots, its range is the time of the message before it: the
 * stream recorded nothing since its previous message, and the gap cannot
 * start before what was already let through.
 */
static void locate_discarded(struct state_iterator *it, const bt_message *msg)
{
	struct discarded_items items;
	int64_t begin, end;

	discarded_items_get(msg, &items);
	loss_streams_get(it->loss_streams, items.stream);
	begin = items.has_range && items.begin > it->locator_ts ?
		items.begin : it->locator_ts;
	end = items.has_range && items.end > begin ? items.end : begin;
	it->locator_ts = begin;
	it->losses_pending++;
	vm_gap_locator_push_loss(it->locator, loss_stream_key(items.stream),
		begin, end, items.count, items.packets, (void *) msg);
}

/* Takes the reference on `msg`. */
static bool push_message(struct state_iterator *it, const bt_message *msg)
{
	bt_message_type type = bt_message_get_type(msg);
	const bt_stream *stream = vm_message_stream_of_type(msg, type);

	if (drop_earlier_state(it, msg, stream))
		return true;
	if (type == BT_MESSAGE_TYPE_DISCARDED_EVENTS ||
			type == BT_MESSAGE_TYPE_DISCARDED_PACKETS) {
		locate_discarded(it, msg);
		return !it->failed;
	}
	if (type == BT_MESSAGE_TYPE_PACKET_BEGINNING)
		loss_streams_note_packet(it->loss_streams,
			bt_message_packet_beginning_borrow_packet_const(msg));
	else if (type == BT_MESSAGE_TYPE_STREAM_BEGINNING && loses_without_times(
			bt_message_stream_beginning_borrow_stream_const(msg)))
		it->times_always = true;
	it->pushing = msg;
	it->pushing_type = type;
	vm_gap_locator_push(it->locator, loss_stream_key(stream),
		locator_time(it, msg, type == BT_MESSAGE_TYPE_EVENT),
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
			for (i++; i < count; i++)
				bt_message_put_ref(msgs[i]);
			return false;
		}
	}
	return true;
}

/* What only the whole input tells (end-checks.h). */
static void end_checks(struct state_iterator *it)
{
	const char *host = machine_name(it,
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

	if (host != VM_MODEL_UNKNOWN && (uint64_t) host < machine_table_count(it->machines))
		machine = machine_table_at(it->machines, (unsigned int) host);
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
	if (it->failed)
		return false;
	if (!it->vm_pids_applied && !apply_machine_params(it))
		return false;
	vm_vcpu_tracker_flush(it->tracker);
	warn_host_choice(it);
	/* The flush learns from the events held back: the host may be new. */
	if (it->failed || !check_vm_pids_host(it))
		return false;
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
			if (!push_batch(it, msgs, count))
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
			break;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
			if (!end_of_input(it))
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
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
			status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN)
		return status;
	if (msg_ring_is_empty(&it->output))
		return it->upstream_ended ?
			BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END :
			BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	*count = 0;
	while (*count < capacity && !msg_ring_is_empty(&it->output))
		msgs[(*count)++] = msg_ring_pop(&it->output);
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

	if (status != BT_MESSAGE_ITERATOR_SEEK_BEGINNING_STATUS_OK)
		return (bt_message_iterator_class_seek_beginning_method_status) status;
	destroy_analysis(it);
	msg_ring_clear(&it->output);
	vcpu_stream_rewind(it->vcpu_stream);
	if (!create_analysis(it))
		return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_ERROR;
	return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_OK;
}
