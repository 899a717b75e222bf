/*
 * The vCPU method read once: see vcpu-onepass.h.
 */

#include <glib.h>

#include "correlate/machines.h"
#include "correlate/strategy.h"
#include "correlate/vcpu/vcpu-collect.h"
#include "correlate/vcpu/vcpu-collect-private.h"
#include "correlate/vcpu/vcpu-losses.h"
#include "correlate/vcpu/vcpu-onepass.h"
#include "correlate/vcpu/vcpu-solve.h"
#include "sync/online.h"
#include "sync/vcpu-follow.h"

/*
 * A host CPU that has not switched threads yet after this long (a vCPU
 * thread pinned to it) gives its intervals as the unknown thread's: they
 * hold back the host time known complete until then.
 */
#define UNNAMED_AFTER_NS INT64_C(1000000000)

/* One interval for a follower, batched so that it gets them in order. */
struct batched_interval {
	uint64_t vcpu;
	int64_t entry;
	int64_t exit;
};

struct route {
	struct correlate_iter *iter;
	struct vcpu_collector *collector;
};

bool correlate_vcpu_onepass_possible(struct correlate_iter *iter, struct machine *machine)
{
	struct machine_info *info = correlate_machine_info(iter, machine);

	return correlate_reads_once(iter) && iter->vcpu_collector && iter->by_vcpu &&
		correlate_reference_machine(iter) == iter->sync_host &&
		correlate_vcpu_may_use(iter, machine) && !info->vcpu_unneeded &&
		(info->vcpu_guest_events > 0 || info->vcpu_events_without_cpu == 0);
}

/* The followed guest whose QEMU is `process`, or -1. */
static int follower_of(struct correlate_iter *iter, int64_t process)
{
	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		if (info->vcpu_follow && info->host_pid == process) {
			return (int) i;
		}
	}

	return -1;
}

static void route_interval(void *data, const struct vm_guest_mode_interval *interval)
{
	struct route *route = data;
	struct vcpu_collector *collector = route->collector;
	int64_t pid = interval->tid < 0 ? -1 : vm_processes_pid_of(collector->processes,
		collector->host, interval->tid);
	/* As the alignment names a process (vcpu-align.c): its thread when unknown. */
	int follower = follower_of(route->iter, pid >= 0 ? pid : interval->tid);
	int64_t vcpu = correlate_vcpu_number(collector, interval, pid);

	if (vcpu < 0)
		return;
	if (follower >= 0) {
		GArray *batch = g_ptr_array_index(collector->batches, (guint) follower);
		struct batched_interval item = { (uint64_t) vcpu, interval->entry_ns,
			interval->exit_ns };

		if (!batch) {
			batch = g_array_new(FALSE, FALSE, sizeof(struct batched_interval));
			g_ptr_array_index(collector->batches, (guint) follower) = batch;
		}

		g_array_append_val(batch, item);
	} else if (collector->needing > 0) {
		vm_vcpu_align_add_guest_mode(route->iter->by_vcpu, collector->host, pid,
			interval->tid, (uint64_t) vcpu, interval->entry_ns, interval->exit_ns);
	}
}

static gint compare_batched(gconstpointer a, gconstpointer b)
{
	const struct batched_interval *x = a, *y = b;

	return (x->entry > y->entry) - (x->entry < y->entry);
}

/* Beyond this, the merge sort: a first take after a long alignment is large. */
#define INSERTION_SORT_MAX 32

/*
 * Puts a batch in entry order, keeping the order of equal entries (both
 * sorts are stable). A take every millisecond gives a few intervals,
 * thread by thread, each thread's in order, where an insertion sort costs
 * a tenth of g_array_sort().
 */
static void sort_batch(GArray *batch)
{
	struct batched_interval *items = (struct batched_interval *) batch->data;

	if (batch->len > INSERTION_SORT_MAX) {
		g_array_sort(batch, compare_batched);
		return;
	}

	for (guint i = 1; i < batch->len; i++) {
		struct batched_interval item = items[i];
		guint j = i;

		while (j > 0 && items[j - 1].entry > item.entry) {
			items[j] = items[j - 1];
			j--;
		}

		items[j] = item;
	}
}

/*
 * The intervals closed since the last time, to their followers or the
 * alignment, read up to `frontier`.
 */
static void route_intervals(struct correlate_iter *iter, int64_t frontier)
{
	struct route route = { iter, iter->vcpu_collector };

	if (!route.collector || route.collector->host_dropped) {
		return;
	}

	if (route.collector->batches->len < iter->infos->len) {
		g_ptr_array_set_size(route.collector->batches, iter->infos->len);
	}

	vm_guest_modes_take_closed(route.collector->modes,
		frontier == INT64_MAX ? INT64_MAX : frontier - UNNAMED_AFTER_NS, route_interval,
		&route);
	for (guint i = 0; i < iter->infos->len; i++) {
		GArray *batch = g_ptr_array_index(route.collector->batches, i);
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		if (!batch || batch->len == 0) {
			continue;
		}

		sort_batch(batch);
		for (guint j = 0; j < batch->len; j++) {
			const struct batched_interval *item =
				&g_array_index(batch, struct batched_interval, j);

			vm_vcpu_follow_add_guest_mode(info->vcpu_follow, item->vcpu, item->entry,
				item->exit);
		}

		g_array_set_size(batch, 0);
	}
}

/*
 * A guest that a fit on less of the trace gave `process` (its data gone
 * since: another method synchronized it) loses it to the guest now fitted
 * and followed with it: one process runs one guest.
 */
static void drop_identity(struct correlate_iter *iter, int64_t process)
{
	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		if (info && !info->vcpu_follow && info->host_pid == process) {
			info->host_pid = -1;
		}
	}
}

bool correlate_vcpu_onepass_try(struct correlate_iter *iter, struct machine *machine,
		int64_t frontier, struct vm_vcpu_fit *fit)
{
	struct vcpu_collector *collector = iter->vcpu_collector;
	struct machine_info *info = correlate_machine_info(iter, machine);
	unsigned int count = machine_table_count(iter->machines);
	struct vm_vcpu_fit *fits;
	struct vm_vcpu_follow *follow;

	*fit = (struct vm_vcpu_fit) { .status = VM_VCPU_FIT_NO_HOST };
	if (!correlate_vcpu_onepass_possible(iter, machine)) {
		return false;
	}

	vcpu_losses_reach(iter, frontier);
	route_intervals(iter, frontier);
	if (!vm_vcpu_align_has_host(iter->by_vcpu)) {
		return false;
	}

	fits = g_new0(struct vm_vcpu_fit, count);
	vm_vcpu_align_keep_piecewise(iter->by_vcpu);
	vm_vcpu_align_solve(iter->by_vcpu, count, fits);
	*fit = fits[machine->index];
	/* The other guests' fits name their QEMU too, whatever sets their clocks. */
	correlate_vcpu_note_identities(iter, fits, count);
	g_free(fits);
	if (fit->status == VM_VCPU_FIT_OK && follower_of(iter, fit->host_pid) >= 0) {
		/*
		 * A guest followed already no longer takes part in the solve:
		 * its QEMU is taken (two traces of one VM), as the solve says it.
		 */
		fit->status = VM_VCPU_FIT_TAKEN;
	}

	if (fit->status != VM_VCPU_FIT_OK || fit->host != collector->host) {
		return false;
	}

	info->vcpu_online = vm_sync_online_create();
	follow = vm_vcpu_follow_create(iter->by_vcpu, machine->index, fit, info->vcpu_online);
	drop_identity(iter, fit->host_pid);
	info->host_pid = fit->host_pid;
	/* From now on its events go to the follower (vcpu-collect.c). */
	correlate_vcpu_guest_done(iter, machine, true);
	info->vcpu_follow = follow;
	return true;
}

void correlate_vcpu_onepass_step(struct correlate_iter *iter, int64_t frontier)
{
	int64_t host_known;

	if (!iter->vcpu_collector || iter->vcpu_collector->following == 0) {
		return;
	}

	vcpu_losses_reach(iter, frontier);
	route_intervals(iter, frontier);
	/* An interval still open, or waiting for its thread, may begin before the frontier. */
	host_known = vm_guest_modes_pending_since(iter->vcpu_collector->modes);
	host_known = host_known < frontier ? host_known : frontier;
	/* ... and so may a gap not located yet. */
	host_known = MIN(host_known, vcpu_losses_host_known(iter));
	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		if (info->vcpu_follow) {
			vm_vcpu_follow_advance(info->vcpu_follow, host_known, frontier,
				info->vcpu_online);
		}
	}
}

void correlate_vcpu_onepass_finish(struct correlate_iter *iter)
{
	vcpu_losses_finish(iter);
	route_intervals(iter, INT64_MAX);
	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		if (info->vcpu_follow) {
			vm_vcpu_follow_finish(info->vcpu_follow, info->vcpu_online);
		}
	}
}

void correlate_vcpu_onepass_reset(struct correlate_iter *iter)
{
	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		if (!info) {
			continue;
		}

		/* Found again when read again. */
		info->host_pid = -1;
		vm_vcpu_follow_destroy(info->vcpu_follow);
		vm_sync_online_destroy(info->vcpu_online);
		info->vcpu_follow = NULL;
		info->vcpu_online = NULL;
	}
}

char *correlate_vcpu_onepass_failure(struct correlate_iter *iter, struct machine *machine,
		const struct vm_vcpu_fit *fit)
{
	if (fit->status == VM_VCPU_FIT_NO_HOST && iter->sync_host &&
			correlate_machine_info(iter, iter->sync_host)->declares_kvm) {
		/* Read once, the host's entries may simply not have come yet. */
		return g_strdup_printf("no guest-mode interval of host `%s` was read within "
			"the wait (are their clocks far apart? correlate reads every trace in "
			"the order of its own clock)", iter->sync_host->name);
	}

	return correlate_vcpu_fit_failure(iter, fit, machine);
}
