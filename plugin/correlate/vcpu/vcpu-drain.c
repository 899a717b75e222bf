/*
 * The end of the vCPU method's collection (sync pass): the host's
 * guest-mode intervals go to the alignment, with DEBUG lines on which host
 * processes ran which vCPUs; the collector goes before the solve.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/machines.h"
#include "correlate/vcpu/vcpu-collect.h"
#include "correlate/vcpu/vcpu-collect-private.h"
#include "correlate/vcpu/vcpu-losses.h"
#include "model/int64-key.h"

/* What one host process's vCPU threads did, for the DEBUG lines. */
struct candidate {
	int64_t pid;
	uint64_t threads;
	uint64_t intervals;
	uint64_t vcpus;      /* bit per vCPU id below 64 */
	bool high_vcpus;     /* a vCPU id of 64 or more */
};

struct drain {
	struct correlate_iter *iter;
	struct vcpu_collector *collector;
	GHashTable *candidates;   /* pid -> struct candidate * */
	int64_t last_tid;
	bool has_last_tid;
};

static struct candidate *candidate_of(struct drain *drain, int64_t pid)
{
	struct candidate *candidate = vm_int64_table_lookup(drain->candidates, pid);

	if (!candidate) {
		candidate = g_new0(struct candidate, 1);
		candidate->pid = pid;
		vm_int64_table_insert(drain->candidates, pid, candidate);
	}

	return candidate;
}

/*
 * Each thread's process as the whole trace tells it (-1 when the thread is
 * unknown; a thread whose process was never seen stands for itself).
 */
static void give_interval(void *data, const struct vm_guest_mode_interval *interval)
{
	struct drain *drain = data;
	int64_t pid = interval->tid < 0 ? -1 : vm_processes_pid_of(
		drain->collector->processes, drain->collector->host, interval->tid);
	int64_t vcpu = correlate_vcpu_number(drain->collector, interval, pid);
	struct candidate *candidate;

	if (vcpu < 0)
		return;
	candidate = candidate_of(drain, pid);
	vm_vcpu_align_add_guest_mode(drain->iter->by_vcpu, drain->collector->host, pid,
		interval->tid, (uint64_t) vcpu, interval->entry_ns, interval->exit_ns);
	if (!drain->has_last_tid || drain->last_tid != interval->tid) {
		candidate->threads++;
	}

	drain->last_tid = interval->tid;
	drain->has_last_tid = true;
	candidate->intervals++;
	if (vcpu < 64) {
		candidate->vcpus |= UINT64_C(1) << vcpu;
	} else {
		candidate->high_vcpus = true;
	}
}

static gint compare_candidates(gconstpointer a, gconstpointer b)
{
	const struct candidate *ca = *(const struct candidate * const *) a;
	const struct candidate *cb = *(const struct candidate * const *) b;

	return ca->pid < cb->pid ? -1 : ca->pid > cb->pid;
}

static char *vcpu_list(const struct candidate *candidate)
{
	GString *text = g_string_new(NULL);
	unsigned int i;

	for (i = 0; i < 64; i++) {
		if (candidate->vcpus & (UINT64_C(1) << i)) {
			g_string_append_printf(text, "%s%u", text->len ? "," : "", i);
		}
	}

	if (candidate->high_vcpus) {
		g_string_append_printf(text, "%s>=64", text->len ? "," : "");
	}

	return g_string_free(text, FALSE);
}

static void log_candidates(struct correlate_iter *iter, GHashTable *candidates)
{
	GPtrArray *sorted = g_ptr_array_new();
	const struct machine_info *host = correlate_machine_info(iter, iter->sync_host);
	GHashTableIter it;
	gpointer value;
	guint i;

	g_hash_table_iter_init(&it, candidates);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		g_ptr_array_add(sorted, value);
	}

	g_ptr_array_sort(sorted, compare_candidates);
	vm_log_bt(iter->log_level, BT_LOGGING_LEVEL_DEBUG, CORRELATE_LOG_TAG, iter->name,
		"vCPU collection: host `%s`: %" PRIu64 " guest-mode intervals, %" PRIu64
		" lost exits, %" PRIu64 " exits without entry, %" PRIu64 " entries "
		"without vcpu_id or cpu_id, %" PRIu64 " intervals of an unknown thread, "
		"%u candidate processes.",
		iter->sync_host->name, host->guest_modes.intervals,
		host->guest_modes.lost_exits, host->guest_modes.lone_exits,
		host->guest_modes.bad_entries, host->guest_modes.unknown_thread,
		sorted->len);
	for (i = 0; i < sorted->len; i++) {
		const struct candidate *candidate = g_ptr_array_index(sorted, i);
		char *vcpus = vcpu_list(candidate);

		vm_log_bt(iter->log_level, BT_LOGGING_LEVEL_DEBUG, CORRELATE_LOG_TAG,
			iter->name, "vCPU collection: host process %" PRId64 ": %" PRIu64
			" threads, %" PRIu64 " guest-mode intervals, vCPUs %s.",
			candidate->pid, candidate->threads, candidate->intervals, vcpus);
		g_free(vcpus);
	}

	g_ptr_array_free(sorted, TRUE);
}

static void log_guests(struct correlate_iter *iter)
{
	unsigned int i;

	for (i = 0; i < iter->sync_count; i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		const struct machine_info *info = correlate_machine_info(iter, machine);

		if (machine == iter->sync_host || !machine->has_clock) {
			continue;
		}

		vm_log_bt(iter->log_level, BT_LOGGING_LEVEL_DEBUG, CORRELATE_LOG_TAG,
			iter->name, "vCPU collection: machine `%s`: %" PRIu64 " events "
			"on a CPU, %" PRIu64 " without packet context cpu_id.",
			machine->name, info->vcpu_guest_events, info->vcpu_events_without_cpu);
	}
}

void correlate_vcpu_finish(struct correlate_iter *iter)
{
	struct vcpu_collector *collector = iter->vcpu_collector;
	struct drain drain = { .iter = iter, .collector = collector };
	struct machine_info *host;

	if (!collector) {
		return;
	}

	drain.candidates = vm_int64_table_new(g_free);
	/* The losses left out before the intervals go (vcpu-losses.h). */
	vcpu_losses_finish(iter);
	vm_guest_modes_drain(collector->modes, give_interval, &drain);
	host = correlate_machine_info(iter, iter->sync_host);
	host->guest_modes = vm_guest_modes_counts(collector->modes);
	log_candidates(iter, drain.candidates);
	log_guests(iter);
	g_hash_table_destroy(drain.candidates);
	/* The alignment has its copy: the rest can go before the solve. */
	correlate_vcpu_destroy_collector(iter);
}
