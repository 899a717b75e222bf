/*
 * The losses the vCPU method leaves out: see vcpu-losses.h.
 */

#include <inttypes.h>
#include <glib.h>

#include "correlate/machines.h"
#include "correlate/vcpu/vcpu-collect-private.h"
#include "correlate/vcpu/vcpu-losses.h"
#include "loss/gap-tracker.h"
#include "util/time-span.h"

/* Higher host CPU numbers are taken as garbage (as lib/sync/guest-mode.c does). */
#define MAX_CPUS (1 << 16)
/* A host CPU whose thread is known. */
#define KNOWN INT64_MAX

struct vcpu_losses {
	struct vm_gap_tracker *tracker;
	/* Per host CPU: since when its thread is unknown after a gap (KNOWN: it is not). */
	GArray *unknown_since;
};

struct vcpu_losses *vcpu_losses_create(void)
{
	struct vcpu_losses *losses = g_new0(struct vcpu_losses, 1);

	losses->tracker = vm_gap_tracker_create();
	losses->unknown_since = g_array_new(FALSE, FALSE, sizeof(int64_t));
	return losses;
}

void vcpu_losses_destroy(struct vcpu_losses *losses)
{
	if (!losses) {
		return;
	}

	vm_gap_tracker_destroy(losses->tracker);
	g_array_free(losses->unknown_since, TRUE);
	g_free(losses);
}

static bool snapshot_ns(const bt_clock_snapshot *snapshot, int64_t *ns)
{
	if (bt_clock_snapshot_get_ns_from_origin(snapshot, ns) ==
			BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		return true;
	}

	/* The library's cause must not stay behind (msg-time.c). */
	bt_current_thread_clear_error();
	return false;
}

bool vcpu_losses_read(const bt_message *msg, const struct msg_time *time,
		struct vm_event *loss)
{
	bool events = time->type == BT_MESSAGE_TYPE_DISCARDED_EVENTS;
	uint64_t count;
	bt_property_availability has_count;
	int64_t end;

	/* msg_time_get() gave the beginning only when the stream class has the times. */
	if (!time->has_time || !snapshot_ns(events ?
			bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg) :
			bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg),
			&end)) {
		return false;
	}

	has_count = events ? bt_message_discarded_events_get_count(msg, &count) :
		bt_message_discarded_packets_get_count(msg, &count);
	*loss = (struct vm_event) { .kind = VM_EVENT_LOSS, .ts = time->ns,
		.cpu = VM_FIELD_MISSING };
	loss->u.loss.end = end;
	loss->u.loss.count = has_count == BT_PROPERTY_AVAILABILITY_AVAILABLE &&
		count <= INT64_MAX ? (int64_t) count : -1;
	loss->u.loss.packets = !events;
	return true;
}

static uint64_t stream_key(const void *stream)
{
	return (uint64_t) (uintptr_t) stream;
}

/* The time a window that no event closed is counted to: the machine's last event. */
static int64_t counted_end(const struct machine_info *info, int64_t end)
{
	return end == INT64_MAX && info->has_span && info->last_ns >= 0 ? info->last_ns : end;
}

static void count_window(struct machine_info *info, int64_t begin, int64_t end)
{
	int64_t span = vm_time_span(counted_end(info, end), begin);

	info->vcpu_loss_ns = vm_time_sum(info->vcpu_loss_ns, span > 0 ? span : 0);
}

/* The host's time in [begin, end] is left out of the vCPU method, wherever it is used. */
static void leave_out(struct correlate_iter *iter, int64_t begin, int64_t end)
{
	struct vcpu_collector *collector = iter->vcpu_collector;

	if (iter->by_vcpu) {
		vm_vcpu_align_add_host_gap(iter->by_vcpu, collector->host, begin, end);
	}

	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		if (info && info->vcpu_follow) {
			vm_vcpu_follow_add_host_gap(info->vcpu_follow, begin, end);
		}
	}
}

static int64_t *since_of(struct vcpu_losses *losses, int64_t cpu)
{
	if (cpu < 0 || cpu >= MAX_CPUS) {
		return NULL;
	}

	while ((guint) cpu >= losses->unknown_since->len) {
		int64_t known = KNOWN;

		g_array_append_val(losses->unknown_since, known);
	}

	return &g_array_index(losses->unknown_since, int64_t, (guint) cpu);
}

/* The host CPU's thread is known again at `end` (its next sched_switch). */
static void close_window(struct correlate_iter *iter, int64_t *since, int64_t end)
{
	leave_out(iter, *since, end);
	count_window(correlate_machine_info(iter, iter->sync_host), *since, end);
	*since = KNOWN;
}

static void host_gap(struct correlate_iter *iter, const struct vm_tracked_gap *found)
{
	struct vcpu_collector *collector = iter->vcpu_collector;
	struct machine_info *info = correlate_machine_info(iter, iter->sync_host);
	int64_t *since = since_of(collector->losses, found->tag);
	int64_t open_since;

	info->vcpu_loss_gaps++;
	if (!since) {
		/* No event of the stream since the loss: it recorded nothing more. */
		leave_out(iter, found->gap.begin, INT64_MAX);
		count_window(info, found->gap.begin, INT64_MAX);
		return;
	}

	/* The interval the gap cut: in guest mode from its entry, to a time unknown. */
	open_since = vm_guest_modes_forget_open(collector->modes, found->tag);
	*since = MIN(*since, MIN(found->gap.begin, open_since));
}

static void guest_gap(struct correlate_iter *iter, const struct vm_tracked_gap *found)
{
	struct machine *machine = machine_table_at(iter->machines, (unsigned int) found->owner);
	struct machine_info *info = correlate_machine_info(iter, machine);

	/* Guest events missing take nothing the fit relies on: counted for the warnings. */
	info->vcpu_loss_gaps++;
	count_window(info, found->gap.begin, found->gap.end);
}

static void route_gap(const struct vm_tracked_gap *found, void *data)
{
	struct correlate_iter *iter = data;

	if (found->owner == iter->vcpu_collector->host) {
		host_gap(iter, found);
	} else {
		guest_gap(iter, found);
	}
}

void vcpu_losses_apply_loss(struct correlate_iter *iter, const void *stream,
		unsigned int machine, const struct vm_event *loss)
{
	struct vm_tracked_gap found;

	if (vm_gap_tracker_loss(iter->vcpu_collector->losses->tracker, stream_key(stream),
			machine, loss->ts, loss->u.loss.end, loss->u.loss.count,
			loss->u.loss.packets, &found)) {
		route_gap(&found, iter);
	}
}

bool vcpu_losses_host_event(struct correlate_iter *iter, const void *stream,
		const struct vm_event *event)
{
	struct vcpu_losses *losses = iter->vcpu_collector->losses;
	struct vm_tracked_gap found;
	int64_t *since;

	if (vm_gap_tracker_event(losses->tracker, stream_key(stream), event->ts, event->cpu,
			&found)) {
		route_gap(&found, iter);
	}

	if (event->cpu < 0 || event->cpu >= (int64_t) losses->unknown_since->len) {
		return true;
	}

	since = since_of(losses, event->cpu);
	if (*since == KNOWN) {
		return true;
	}

	if (event->kind == VM_EVENT_SCHED_SWITCH) {
		/* Its prev_tid is trusted, as it is at the trace's start. */
		close_window(iter, since, event->ts);
		return true;
	}

	return event->kind != VM_EVENT_KVM_ENTRY && event->kind != VM_EVENT_KVM_EXIT;
}

void vcpu_losses_guest_event(struct correlate_iter *iter, const void *stream,
		int64_t cpu, int64_t ts)
{
	struct vm_tracked_gap found;

	if (vm_gap_tracker_event(iter->vcpu_collector->losses->tracker, stream_key(stream), ts,
			cpu, &found)) {
		route_gap(&found, iter);
	}
}

void vcpu_losses_reach(struct correlate_iter *iter, int64_t frontier)
{
	struct vcpu_losses *losses = iter->vcpu_collector ? iter->vcpu_collector->losses : NULL;

	for (guint i = 0; losses && i < losses->unknown_since->len; i++) {
		int64_t since = g_array_index(losses->unknown_since, int64_t, i);

		if (since != KNOWN && since <= frontier) {
			leave_out(iter, since, frontier);
		}
	}
}

int64_t vcpu_losses_host_known(const struct correlate_iter *iter)
{
	const struct vcpu_collector *collector = iter->vcpu_collector;

	return collector ? vm_gap_tracker_pending_since(collector->losses->tracker,
		collector->host) : INT64_MAX;
}

void vcpu_losses_finish(struct correlate_iter *iter)
{
	struct vcpu_losses *losses = iter->vcpu_collector ? iter->vcpu_collector->losses : NULL;

	if (!losses) {
		return;
	}

	vm_gap_tracker_flush(losses->tracker, route_gap, iter);
	for (guint i = 0; i < losses->unknown_since->len; i++) {
		int64_t *since = &g_array_index(losses->unknown_since, int64_t, i);

		/* No sched_switch came after: unknown to the end. */
		if (*since != KNOWN) {
			close_window(iter, since, INT64_MAX);
		}
	}
}

/* "`NAME` lost events in N gaps covering X ms" into `text`, when it lost any. */
static void describe_machine(GString *text, struct correlate_iter *iter,
		struct machine *machine)
{
	const struct machine_info *info = correlate_machine_info(iter, machine);

	if (info->vcpu_loss_gaps == 0) {
		return;
	}

	g_string_append_printf(text, "%s`%s` lost events in %" PRIu64 " gap%s covering "
		"%.3f ms%s", text->len ? "; " : "", machine->name, info->vcpu_loss_gaps,
		info->vcpu_loss_gaps == 1 ? "" : "s", (double) info->vcpu_loss_ns / 1e6,
		machine == iter->sync_host ? ", until its CPUs' next sched_switch" : "");
}

char *vcpu_losses_describe(struct correlate_iter *iter, struct machine *guest)
{
	GString *text = g_string_new(NULL);

	if (iter->sync_host) {
		describe_machine(text, iter, iter->sync_host);
	}

	if (guest != iter->sync_host) {
		describe_machine(text, iter, guest);
	}

	if (text->len == 0) {
		g_string_free(text, TRUE);
		return NULL;
	}

	return g_string_free(text, FALSE);
}
