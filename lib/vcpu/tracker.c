/*
 * The tracker's entry points: inputs are copied into the look-ahead queue,
 * fed to the state machine right away (state.c), and released when the
 * look-ahead no longer needs them (lookahead.c).
 */

#include <string.h>

#include "vcpu/tracker-private.h"
#include "model/int64-key.h"

static void machine_cpu_free(gpointer data)
{
	struct machine_cpu *cpu = data;

	g_queue_free(cpu->parked);
	g_free(cpu);
}

struct vm_vcpu_tracker *vm_vcpu_tracker_create(struct vm_model *model,
		const struct vm_vcpu_limits *limits,
		const struct vm_vcpu_callbacks *callbacks, void *user)
{
	struct vm_vcpu_tracker *tracker;

	if (!model || !callbacks) {
		return NULL;
	}
	tracker = g_new0(struct vm_vcpu_tracker, 1);
	tracker->model = model;
	vm_fifo_init(&tracker->held, sizeof(struct held_input *));
	tracker->limits.window_ns = VM_VCPU_DEFAULT_WINDOW_NS;
	tracker->limits.max_events = VM_VCPU_DEFAULT_MAX_EVENTS;
	tracker->limits.switch_in_grace_ns = VM_VCPU_DEFAULT_SWITCH_IN_GRACE_NS;
	tracker->limits.tentative_ns = VM_VCPU_DEFAULT_TENTATIVE_NS;
	if (limits) {
		tracker->limits = *limits;
	}
	tracker->callbacks = *callbacks;
	tracker->user = user;
	tracker->newest_ts = INT64_MIN;
	tracker->cpus = vm_int64_table_new(machine_cpu_free);
	tracker->threads = vm_int64_table_new(g_free);
	tracker->unmapped = vm_int64_table_new(NULL);
	tracker->recent_switch_ins = g_hash_table_new(g_direct_hash, g_direct_equal);
	tracker->owners = vm_int64_table_new(g_free);
	vm_machine_set_init(&tracker->machines);
	tracker->warned = vm_warn_once_create();
	return tracker;
}

void vm_vcpu_tracker_destroy(struct vm_vcpu_tracker *tracker,
		void (*discard)(void *cookie))
{
	struct held_input *input;

	if (!tracker) {
		return;
	}
	while ((input = held_ring_pop(&tracker->held))) {
		if (discard) {
			discard(input->cookie);
		}
		held_input_free(input);
	}
	vm_fifo_fini(&tracker->held);
	while ((input = tracker->spare)) {
		tracker->spare = input->next_spare;
		held_input_free(input);
	}
	g_hash_table_destroy(tracker->recent_switch_ins);
	g_hash_table_destroy(tracker->cpus);
	g_hash_table_destroy(tracker->unmapped);
	g_hash_table_destroy(tracker->threads);
	g_hash_table_destroy(tracker->owners);
	vm_machine_set_fini(&tracker->machines);
	vm_warn_once_destroy(tracker->warned);
	g_free(tracker);
}

void vm_vcpu_tracker_add_machine(struct vm_vcpu_tracker *tracker,
		unsigned int machine)
{
	vm_machine_set_add(&tracker->machines, machine);
	tracker->model->cls->add_machine(tracker->model->data, machine);
}

/*
 * Once processed, the tracker never reads an input's strings: blank them
 * rather than keep pointers that are valid only during the push. The
 * model learns thread names (state dump, fork) while they are valid.
 */
static void blank_strings(struct vm_event *copy)
{
	switch (copy->kind) {
	case VM_EVENT_SCHED_SWITCH:
		copy->u.sched_switch.prev_comm = "";
		copy->u.sched_switch.next_comm = "";
		break;
	case VM_EVENT_SCHED_WAKEUP:
		copy->u.wakeup.comm = "";
		break;
	case VM_EVENT_PROCESS_FORK:
		copy->u.fork.parent_comm = "";
		copy->u.fork.child_comm = "";
		break;
	case VM_EVENT_PROCESS_EXIT:
	case VM_EVENT_PROCESS_FREE:
		copy->u.exit.comm = "";
		break;
	case VM_EVENT_STATEDUMP_PROCESS:
		copy->u.statedump.name = "";
		break;
	case VM_EVENT_VCPU_STATE:
		copy->u.vcpu_state.vm = "";
		copy->u.vcpu_state.mode = "";
		break;
	default:
		break;
	}
}

static struct held_input *hold(struct vm_vcpu_tracker *tracker,
		const struct vm_event *event, void *cookie)
{
	struct held_input *input = held_input_new(tracker);

	input->seq = tracker->next_seq++;
	input->cookie = cookie;
	if (event && event->ts != VM_FIELD_MISSING && event->ts > tracker->newest_ts) {
		tracker->newest_ts = event->ts;
	}
	/* An input without time sits at the time of the newest one. */
	input->ts = tracker->newest_ts;
	if (event) {
		input->has_event = true;
		input->event = *event;
	}
	held_ring_push(&tracker->held, input);
	return input;
}

void vm_vcpu_tracker_push(struct vm_vcpu_tracker *tracker,
		const struct vm_event *event, void *cookie)
{
	struct held_input *input = hold(tracker, event, cookie);

	if (input->has_event && input->event.kind != VM_EVENT_OTHER) {
		if (!vm_machine_set_contains(&tracker->machines,
				input->event.machine)) {
			vm_vcpu_tracker_add_machine(tracker, input->event.machine);
		}
		state_process(tracker, input);
	}
	if (input->has_event) {
		blank_strings(&input->event);
	}
	lookahead_release_ready(tracker, false);
}

void vm_vcpu_tracker_flush(struct vm_vcpu_tracker *tracker)
{
	lookahead_release_ready(tracker, true);
}

uint64_t vm_vcpu_tracker_held(const struct vm_vcpu_tracker *tracker)
{
	return held_ring_length(&tracker->held);
}
