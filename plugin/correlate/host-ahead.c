/*
 * Read once, which machine is the host (SPEC, Machines: the one with the
 * most KVM entry events) cannot wait for the end of the inputs: the
 * reference and the sync order are fixed before the first message is
 * synchronized. The event classes are the first clue; when several
 * machines declare KVM entries (a guest with the kvm module loaded, which
 * nested virtualization makes common), they cannot tell, and the smallest
 * name would win. So correlate first reads on, holding what it reads, and
 * counts the entries of each machine until one clearly leads, or until a
 * budget is spent; the host rule is then applied to those counts. The
 * sync pass, with inputs that can seek, counts the whole trace instead,
 * and read once warns at the end when the whole trace disagrees.
 */

#include <inttypes.h>
#include "correlate/host-ahead.h"
#include "correlate/inputs.h"
#include "correlate/machines.h"
#include "correlate/sync-events.h"
#include "sync/read-once-policy.h"

/* What the read-ahead keeps. */
struct host_ahead {
	bool started;
	bool done;
	bool has_start;
	int64_t start;  /* the earliest own time read */
};

/* A lead this large (and twice the runner-up's count) decides at once. */
#define HOST_LEAD_ENTRIES 256
/* Its budgets (trace time past the first time read, messages held): sync/read-once-policy.h. */

static bool is_kvm_entry(const bt_message *msg, const struct msg_time *time)
{
	return time->type == BT_MESSAGE_TYPE_EVENT &&
		sync_event_name_is_kvm_entry(bt_event_class_get_name(bt_event_borrow_class_const(
			bt_message_event_borrow_event_const(msg))));
}

/* Machines whose streams declare KVM entries; the read-ahead is for two or more. */
static unsigned int kvm_declarers(struct correlate_iter *iter)
{
	unsigned int count = 0;

	for (guint i = 0; i < iter->infos->len; i++) {
		const struct machine_info *info = g_ptr_array_index(iter->infos, i);

		count += info && info->declares_kvm ? 1 : 0;
	}

	return count;
}

/* Someone already said which machine is the host: `host`, or a previous run's vm_role. */
static bool host_is_given(struct correlate_iter *iter)
{
	if (iter->comp->params.host) {
		return true;
	}

	for (unsigned int i = 0; i < machine_table_count(iter->machines); i++) {
		if (machine_table_at(iter->machines, i)->role == MACHINE_ROLE_HOST) {
			return true;
		}
	}

	return false;
}

static bool one_clearly_leads(struct correlate_iter *iter)
{
	uint64_t most = 0;
	uint64_t second = 0;

	for (guint i = 0; i < iter->infos->len; i++) {
		const struct machine_info *info = g_ptr_array_index(iter->infos, i);
		uint64_t entries = info ? info->kvm_entries_ahead : 0;

		if (entries > most) {
			second = most;
			most = entries;
		} else if (entries > second) {
			second = entries;
		}
	}

	return most - second >= HOST_LEAD_ENTRIES && most >= 2 * second;
}

/* The upstream read the least far (own clocks), as the one pass reads them; -1: all ended. */
static int least_read(struct correlate_iter *iter)
{
	int least = -1;

	for (guint i = 0; i < iter->bounds->len; i++) {
		const struct upstream_bound *bound = correlate_bound_at(iter, i);

		if (!bound->ended && (least < 0 || bound->ahead_ns <
				correlate_bound_at(iter, least)->ahead_ns)) {
			least = (int) i;
		}
	}

	return least;
}

static bool budget_spent(struct correlate_iter *iter, int64_t read_to)
{
	return vm_sync_host_ahead_spent(iter->pending->len, iter->host_ahead->has_start ?
		read_to - iter->host_ahead->start : 0);
}

static void note_read(struct correlate_iter *iter, struct upstream_bound *bound,
		const bt_message *msg, const struct msg_time *time)
{
	struct stream_state *state;
	struct machine *machine = correlate_message_machine(iter, bound, msg, time, &state);

	if (time->has_time && (!state || state->has_clock)) {
		bound->ahead_ns = time->ns;
		if (!iter->host_ahead->has_start || time->ns < iter->host_ahead->start) {
			iter->host_ahead->start = time->ns;
			iter->host_ahead->has_start = true;
		}
	}

	if (machine && is_kvm_entry(msg, time)) {
		correlate_machine_info(iter, machine)->kvm_entries_ahead++;
	}
}

/* What the upstreams' first timed messages (read already) say. */
static void start(struct correlate_iter *iter)
{
	for (guint i = 0; i < iter->bounds->len; i++) {
		correlate_bound_at(iter, i)->ahead_ns = INT64_MIN;
	}

	for (guint i = 0; i < iter->pending->len; i++) {
		const struct pending_message *pending =
			&g_array_index(iter->pending, struct pending_message, i);
		struct msg_time time;

		msg_time_get(pending->msg, &time);
		note_read(iter, correlate_bound_at(iter, pending->upstream), pending->msg, &time);
	}
}

/* What the host rule is applied to, for the INFO log. */
static void log_counts(struct correlate_iter *iter)
{
	GString *counts = g_string_new(NULL);

	for (unsigned int i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		const struct machine_info *info = correlate_machine_info(iter, machine);

		if (info->declares_kvm) {
			g_string_append_printf(counts, "%s%s (%" PRIu64 ")", counts->len ? ", " : "",
				machine_display_name(machine),
				info->kvm_entries_ahead);
		}
	}

	CORRELATE_LOGI(iter->log_level, iter->name,
		"Inputs read once, several machines declare KVM entry events: read %u "
		"messages ahead to count them before choosing the host: %s.",
		iter->pending->len, counts->str);
	g_string_free(counts, TRUE);
}

bt_message_iterator_class_next_method_status correlate_read_ahead_for_host(
		struct correlate_iter *iter)
{
	int index;

	if (!iter->host_ahead) {
		iter->host_ahead = g_new0(struct host_ahead, 1);
	}

	if (iter->host_ahead->done) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	}

	if (!iter->host_ahead->started) {
		iter->host_ahead->started = true;
		if (host_is_given(iter) || kvm_declarers(iter) < 2) {
			iter->host_ahead->done = true;
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
		}

		start(iter);
	}

	while (!one_clearly_leads(iter) && (index = least_read(iter)) >= 0) {
		struct upstream_bound *bound = &g_array_index(iter->bounds,
			struct upstream_bound, index);
		struct pending_message pending = { .upstream = (guint) index };
		struct msg_time time;
		enum upstream_status status;

		if (budget_spent(iter, bound->ahead_ns)) {
			break;
		}

		status = correlate_pull(iter, (guint) index, &pending.msg, &time);
		if (status == UPSTREAM_END) {
			bound->ended = true;
			continue;
		}

		if (status != UPSTREAM_OK) {
			/* Again later (a live input), where it stopped. */
			return correlate_status_of(iter, status, (guint) index);
		}

		g_array_append_val(iter->pending, pending);
		note_read(iter, bound, pending.msg, &time);
	}

	iter->host_ahead->done = true;
	log_counts(iter);
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

void correlate_host_ahead_reset(struct correlate_iter *iter)
{
	g_free(iter->host_ahead);
	iter->host_ahead = NULL;
}
