/*
 * The sync pass's collection for `sync="vcpu"`: see vcpu-collect.h.
 */

#include <inttypes.h>
#include <glib.h>

#include "common/event-decode.h"
#include "correlate/machines.h"
#include "correlate/strategy.h"
#include "correlate/vcpu/vcpu-collect.h"
#include "correlate/vcpu/vcpu-collect-private.h"
#include "correlate/vcpu/vcpu-losses.h"
#include "model/int64-key.h"
#include "model/processes.h"
#include "sync/online.h"
#include "sync/vcpu-follow.h"
#include "util/fifo.h"

/* Guest events between two checks of whether a guest still needs the method. */
#define NEED_CHECK_EVENTS 1024

static bool allows_vcpu(enum correlate_sync_method method)
{
	return method == CORRELATE_SYNC_AUTO || method == CORRELATE_SYNC_VCPU;
}

static void zero_counts(struct correlate_iter *iter)
{
	guint i;

	for (i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		info->vcpu_guest_events = 0;
		info->vcpu_events_without_cpu = 0;
		info->vcpu_unneeded = false;
		info->guest_modes = (struct vm_guest_mode_counts) { 0 };
		info->vcpu_loss_gaps = 0;
		info->vcpu_loss_ns = 0;
	}
}

/* The machines the vCPU method may synchronize: all but the host and the reference. */
bool correlate_vcpu_may_use(struct correlate_iter *iter, struct machine *machine)
{
	return machine->index < iter->sync_count && machine != iter->sync_host &&
		machine->has_clock && !correlate_machine_info(iter, machine)->is_reference &&
		!g_hash_table_contains(iter->comp->params.transforms, machine->name);
}

static unsigned int count_guests(struct correlate_iter *iter)
{
	unsigned int count = 0;

	for (unsigned int i = 0; i < iter->sync_count; i++) {
		count += correlate_vcpu_may_use(iter, machine_table_at(iter->machines, i));
	}

	return count;
}

void correlate_vcpu_start(struct correlate_iter *iter)
{
	struct vcpu_collector *collector;

	zero_counts(iter);
	if (!allows_vcpu(iter->comp->params.sync) || iter->keeps_time_base) {
		return;
	}

	iter->by_vcpu = vm_vcpu_align_create();
	if (!iter->sync_host) {
		return;
	}

	collector = g_new0(struct vcpu_collector, 1);
	collector->host = iter->sync_host->index;
	collector->needing = count_guests(iter);
	/* No comm or name is needed: the strings are not read. */
	collector->decoder = event_decoder_create_without_strings();
	collector->processes = vm_processes_create();
	collector->numbers = vm_vcpu_numbers_create();
	collector->modes = vm_guest_modes_create();
	collector->deferred = g_array_new(FALSE, FALSE, sizeof(struct vm_fifo));
	collector->batches = g_ptr_array_new();
	collector->losses = vcpu_losses_create();
	iter->vcpu_collector = collector;
}

/*
 * Most kvm events carry the vCPU number (the exit's vcpu_id, or an entry's
 * below VM_VCPU_NUMBER_LIMIT). Only the others, whose entries hold a
 * pointer fragment and whose exits no vcpu_id, go through the numbering of
 * the KVM model, with the thread current on the CPU.
 */
static void number_entry(struct vcpu_collector *collector, const struct vm_event *event)
{
	int64_t tid;

	if (event->u.kvm_entry.vcpu_id < VM_VCPU_NUMBER_LIMIT)
		return;
	tid = vm_guest_modes_current_thread(collector->modes, event->cpu);
	if (tid >= 0)
		vm_vcpu_numbers_entry(collector->numbers, collector->host, tid,
			vm_processes_pid_of(collector->processes, collector->host, tid),
			event->u.kvm_entry.vcpu_id, event->ts, NULL);
}

static void number_exit(struct vcpu_collector *collector, const struct vm_event *event)
{
	int64_t tid;

	if (vm_vcpu_id_valid(event->u.kvm_exit.vcpu_id) ||
			vm_guest_modes_open_vcpu(collector->modes, event->cpu) <
				VM_VCPU_NUMBER_LIMIT)
		return;
	tid = vm_guest_modes_current_thread(collector->modes, event->cpu);
	if (tid >= 0)
		vm_vcpu_numbers_exit(collector->numbers, collector->host, tid,
			event->u.kvm_exit.vcpu_id, event->ts, NULL);
}

int64_t correlate_vcpu_number(struct vcpu_collector *collector,
		const struct vm_guest_mode_interval *interval, int64_t pid)
{
	if (interval->vcpu < VM_VCPU_NUMBER_LIMIT)
		return (int64_t) interval->vcpu;
	if (interval->tid < 0)
		return -1;
	return vm_vcpu_numbers_of(collector->numbers, collector->host, interval->tid,
		pid).number;
}

/* A host event the collection uses, applied in its upstream's order. */
static void apply_host_event(struct vcpu_collector *collector, const struct vm_event *event)
{
	switch (event->kind) {
	case VM_EVENT_SCHED_SWITCH:
		vm_guest_modes_switch(collector->modes, event->cpu,
			event->u.sched_switch.prev_tid, event->u.sched_switch.next_tid);
		break;
	case VM_EVENT_KVM_ENTRY:
		vm_guest_modes_entry(collector->modes, event->cpu,
			event->u.kvm_entry.vcpu_id, event->ts);
		number_entry(collector, event);
		break;
	case VM_EVENT_KVM_EXIT:
		number_exit(collector, event);
		vm_guest_modes_exit(collector->modes, event->cpu,
			event->u.kvm_exit.vcpu_id, event->ts);
		break;
	case VM_EVENT_STATEDUMP_PROCESS:
	case VM_EVENT_PROCESS_FORK:
		vm_processes_learn(collector->processes, event);
		vm_vcpu_numbers_learn_name(collector->numbers, event);
		break;
	default:
		break;
	}
}

/* Whether the collection uses events of this kind. */
static bool host_kind_used(enum vm_event_kind kind)
{
	return kind == VM_EVENT_SCHED_SWITCH || kind == VM_EVENT_KVM_ENTRY ||
		kind == VM_EVENT_KVM_EXIT || kind == VM_EVENT_STATEDUMP_PROCESS ||
		kind == VM_EVENT_PROCESS_FORK;
}

/*
 * Read once, what is noted waits in its upstream's queue until the
 * frontier passes it (correlate_vcpu_apply_until()): what the collection
 * knows at each step is then what was read before the frontier, however
 * the graph is built (one input per stream, or one muxed input).
 */
struct deferred_note {
	/* a host event, a guest's (its ts and cpu), or a loss (VM_EVENT_LOSS) */
	struct vm_event event;
	struct machine *guest;        /* NULL: the host's */
	const struct stream_state *stream;
};

/* A host event, unless a loss of its CPU leaves it out (vcpu-losses.c). */
static void apply_host_note(struct correlate_iter *iter, struct vcpu_collector *collector,
		const struct stream_state *stream, const struct vm_event *event)
{
	if (vcpu_losses_host_event(iter, stream, event)) {
		apply_host_event(collector, event);
	}
}

static struct vm_fifo *deferred_queue(struct vcpu_collector *collector, guint upstream)
{
	while (collector->deferred->len <= upstream) {
		struct vm_fifo fresh;

		vm_fifo_init(&fresh, sizeof(struct deferred_note));
		g_array_append_val(collector->deferred, fresh);
	}

	return &g_array_index(collector->deferred, struct vm_fifo, upstream);
}

/*
 * A note outlives its message: the names it keeps must too. Only QEMU's
 * vCPU thread names matter (vm_vcpu_numbers_learn_name()), a bounded
 * set: interned.
 */
static const char *lasting_name(const char *name)
{
	return vm_vcpu_number_of_name(name) >= 0 ? g_intern_string(name) : "";
}

static void keep_names(struct vm_event *event)
{
	if (event->kind == VM_EVENT_STATEDUMP_PROCESS) {
		event->u.statedump.name = lasting_name(event->u.statedump.name);
	} else if (event->kind == VM_EVENT_PROCESS_FORK) {
		event->u.fork.parent_comm = "";
		event->u.fork.child_comm = lasting_name(event->u.fork.child_comm);
	}
}

static void note_host_event(struct correlate_iter *iter, struct vcpu_collector *collector,
		guint upstream, const bt_message *msg, int64_t ns, const struct stream_state *state)
{
	const bt_event *in_event = bt_message_event_borrow_event_const(msg);
	struct vm_event event = { .machine = collector->host };
	struct deferred_note *note;

	/* The kind first: the host's wakeups and the like are not decoded. */
	if (!host_kind_used(event_decoder_kind(collector->decoder,
			bt_event_borrow_class_const(in_event))) ||
			!event_decoder_decode_at(collector->decoder, in_event, ns, &event)) {
		return;
	}

	if (!correlate_reads_once(iter)) {
		apply_host_note(iter, collector, state, &event);
		return;
	}

	note = vm_fifo_push(deferred_queue(collector, upstream));
	note->event = event;
	keep_names(&note->event);
	note->guest = NULL;
	note->stream = state;
}

/*
 * Whether `machine`, with sync="auto", has vmsync matches with the
 * reference (the host) both ways, so that vmsync synchronizes it whatever
 * the vCPU method finds (matches that all go one way fit no line).
 */
static bool vmsync_reaches(struct correlate_iter *iter, const struct machine *machine)
{
	struct machine *reference = correlate_reference_machine(iter);
	unsigned int x, y;
	const struct vm_sync_online *online;

	if (iter->comp->params.sync != CORRELATE_SYNC_AUTO || !iter->by_vmsync ||
			reference != iter->sync_host) {
		return false;
	}

	x = iter->sync_index[reference->index];
	y = iter->sync_index[machine->index];
	if (!correlate_reads_once(iter)) {
		return vm_sync_has_line(iter->by_vmsync, x, y);
	}

	/* Read once, the matches go to the pair's one-pass map only. */
	online = vm_sync_online_of(iter->by_vmsync, x < y ? x : y, x < y ? y : x);
	return online && vm_sync_online_fewest_each_way(online) > 0;
}

void correlate_vcpu_guest_done(struct correlate_iter *iter, struct machine *machine,
		bool followed)
{
	struct vcpu_collector *collector = iter->vcpu_collector;
	struct machine_info *info = correlate_machine_info(iter, machine);

	if (!collector || info->vcpu_unneeded || info->vcpu_follow ||
			!correlate_vcpu_may_use(iter, machine)) {
		return;
	}

	info->vcpu_unneeded = !followed;
	collector->following += followed;
	vm_vcpu_align_forget_guest(iter->by_vcpu, machine->index);
	if (collector->needing == 0 || --collector->needing > 0) {
		return;
	}

	/* No guest left to align: what the alignment kept of the host goes. */
	vm_vcpu_align_destroy(iter->by_vcpu);
	iter->by_vcpu = vm_vcpu_align_create();
	if (collector->following > 0) {
		/* Read once, followed guests still take the host's intervals. */
		return;
	}

	vm_guest_modes_destroy(collector->modes);
	collector->modes = vm_guest_modes_create();
	collector->host_dropped = true;
	vm_log_bt(iter->log_level, BT_LOGGING_LEVEL_DEBUG, CORRELATE_LOG_TAG, iter->name,
		"vCPU collection stopped: every guest has vmsync matches with the "
		"reference `%s`, or another method.",
		machine_table_at(iter->machines, collector->host)->name);
}

/* One guest event on its CPU `cpu` (negative: none). */
static void apply_guest_event(struct correlate_iter *iter, struct machine *machine,
		struct machine_info *info, int64_t cpu, int64_t ts)
{
	if (info->vcpu_follow) {
		/* Read once, a guest followed already (vcpu-onepass.c). */
		if (cpu >= 0) {
			vm_vcpu_follow_add_guest_event(info->vcpu_follow, (uint64_t) cpu, ts);
		}

		return;
	}

	/*
	 * Read once, a guest whose clock is given (transforms) shares the
	 * tries of the others, for its QEMU; once none is left, nothing reads
	 * its events any more.
	 */
	if (correlate_reads_once(iter) && iter->vcpu_collector->needing == 0) {
		return;
	}

	if (info->vcpu_guest_events % NEED_CHECK_EVENTS == NEED_CHECK_EVENTS - 1 &&
			correlate_vcpu_may_use(iter, machine) && vmsync_reaches(iter, machine)) {
		correlate_vcpu_guest_done(iter, machine, false);
		return;
	}

	if (cpu < 0) {
		info->vcpu_events_without_cpu++;
		return;
	}

	vm_vcpu_align_add_guest_event(iter->by_vcpu, machine->index, (uint64_t) cpu, ts);
	info->vcpu_guest_events++;
}

void correlate_vcpu_note(struct correlate_iter *iter, guint upstream, const bt_message *msg,
		const struct msg_time *time, struct stream_state *state)
{
	struct vcpu_collector *collector = iter->vcpu_collector;
	struct machine *machine = state->machine;
	int64_t cpu;

	/* A machine met after the sync objects were made is not synchronized. */
	if (!collector || !time->has_time || machine->index >= iter->sync_count) {
		return;
	}

	if (machine == iter->sync_host) {
		if (!collector->host_dropped) {
			note_host_event(iter, collector, upstream, msg, time->ns, state);
		}

		return;
	}

	if (state->info->vcpu_unneeded) {
		return;
	}

	cpu = event_decoder_cpu_id(collector->decoder,
		bt_message_event_borrow_event_const(msg));
	if (correlate_reads_once(iter)) {
		struct deferred_note *note = vm_fifo_push(deferred_queue(collector, upstream));

		note->event.kind = VM_EVENT_OTHER;
		note->event.ts = time->ns;
		note->event.cpu = cpu;
		note->guest = machine;
		note->stream = state;
		return;
	}

	vcpu_losses_guest_event(iter, state, cpu, time->ns);
	apply_guest_event(iter, machine, state->info, cpu, time->ns);
}

void correlate_vcpu_note_loss(struct correlate_iter *iter, guint upstream,
		const bt_message *msg, const struct msg_time *time, struct stream_state *state)
{
	struct vcpu_collector *collector = iter->vcpu_collector;
	struct machine *machine = state->machine;
	struct deferred_note *note;
	struct vm_event loss;

	if (!collector || machine->index >= iter->sync_count ||
			!vcpu_losses_read(msg, time, &loss)) {
		return;
	}

	if (!correlate_reads_once(iter)) {
		vcpu_losses_apply_loss(iter, state, machine->index, &loss);
		return;
	}

	/* In its upstream's order, with the events around it. */
	note = vm_fifo_push(deferred_queue(collector, upstream));
	note->event = loss;
	note->guest = machine == iter->sync_host ? NULL : machine;
	note->stream = state;
}

void correlate_vcpu_apply_until(struct correlate_iter *iter, int64_t frontier)
{
	struct vcpu_collector *collector = iter->vcpu_collector;

	if (!collector) {
		return;
	}

	for (guint i = 0; i < collector->deferred->len; i++) {
		struct vm_fifo *queue = &g_array_index(collector->deferred, struct vm_fifo, i);
		const struct deferred_note *note;

		while ((note = vm_fifo_peek(queue)) && note->event.ts < frontier) {
			if (note->event.kind == VM_EVENT_LOSS) {
				vcpu_losses_apply_loss(iter, note->stream, note->guest ?
					note->guest->index : collector->host, &note->event);
			} else if (!note->guest) {
				if (!collector->host_dropped) {
					apply_host_note(iter, collector, note->stream,
						&note->event);
				}
			} else {
				struct machine_info *info =
					correlate_machine_info(iter, note->guest);

				if (!info->vcpu_unneeded) {
					vcpu_losses_guest_event(iter, note->stream,
						note->event.cpu, note->event.ts);
					apply_guest_event(iter, note->guest, info,
						note->event.cpu, note->event.ts);
				}
			}

			collector->applied++;
			vm_fifo_pop(queue);
		}
	}
}

uint64_t correlate_vcpu_notes_applied(const struct correlate_iter *iter)
{
	return iter->vcpu_collector ? iter->vcpu_collector->applied : 0;
}

void correlate_vcpu_destroy_collector(struct correlate_iter *iter)
{
	struct vcpu_collector *collector = iter->vcpu_collector;

	if (!collector) {
		return;
	}

	for (guint i = 0; i < collector->deferred->len; i++) {
		vm_fifo_fini(&g_array_index(collector->deferred, struct vm_fifo, i));
	}

	g_array_free(collector->deferred, TRUE);
	for (guint i = 0; i < collector->batches->len; i++) {
		if (g_ptr_array_index(collector->batches, i)) {
			g_array_free(g_ptr_array_index(collector->batches, i), TRUE);
		}
	}

	g_ptr_array_free(collector->batches, TRUE);
	vcpu_losses_destroy(collector->losses);
	vm_guest_modes_destroy(collector->modes);
	vm_processes_destroy(collector->processes);
	vm_vcpu_numbers_destroy(collector->numbers);
	event_decoder_destroy(collector->decoder);
	g_free(collector);
	iter->vcpu_collector = NULL;
}

void correlate_vcpu_reset(struct correlate_iter *iter)
{
	correlate_vcpu_destroy_collector(iter);
	vm_vcpu_align_destroy(iter->by_vcpu);
	iter->by_vcpu = NULL;
}
