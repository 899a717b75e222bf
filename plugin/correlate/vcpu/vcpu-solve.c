/*
 * The end of the sync pass for `sync="vcpu"`: see vcpu-solve.h.
 */

#include <inttypes.h>

#include "correlate/machines.h"
#include "correlate/vcpu/vcpu-losses.h"
#include "correlate/vcpu/vcpu-solve.h"

void correlate_vcpu_solve(struct correlate_iter *iter, const struct machine *reference,
		struct vcpu_solution *solution)
{
	unsigned int count = machine_table_count(iter->machines);
	bool piecewise = iter->comp->params.model == CORRELATE_MODEL_PIECEWISE;
	struct vm_sync *sync;

	solution->results = g_new0(struct vm_sync_result, iter->sync_count ? iter->sync_count : 1);
	for (unsigned int i = 0; i < iter->sync_count; i++) {
		solution->results[i].parent = -1;
	}

	solution->fits = NULL;
	solution->fit_count = 0;
	solution->sync = NULL;
	if (!iter->by_vcpu || !vm_vcpu_align_has_host(iter->by_vcpu) || count == 0) {
		return;
	}

	solution->fits = g_new0(struct vm_vcpu_fit, count);
	solution->fit_count = count;
	if (piecewise) {
		vm_vcpu_align_keep_piecewise(iter->by_vcpu);
	}

	vm_vcpu_align_solve(iter->by_vcpu, count, solution->fits);
	sync = vm_sync_create(iter->sync_count);
	/* The fit's map is the one these constraints give (results' segments). */
	if (piecewise) {
		vm_sync_keep_piecewise(sync);
	}

	for (unsigned int i = 0; i < count && i < iter->sync_count; i++) {
		const struct vm_vcpu_fit *fit = &solution->fits[i];

		/*
		 * A piecewise map is kept for pairs with the reference only: off
		 * that, its constraints would give one line they do not fit.
		 */
		if (fit->status == VM_VCPU_FIT_OK && fit->host < iter->sync_count &&
				(fit->segments == 1 || fit->host == reference->index)) {
			vm_vcpu_align_feed(iter->by_vcpu, i, fit, sync,
				iter->sync_index[fit->host], iter->sync_index[i]);
		}
	}

	vm_sync_solve(sync, iter->sync_index[reference->index], solution->results);
	solution->sync = sync;
}

void correlate_vcpu_solution_fini(struct vcpu_solution *solution)
{
	vm_sync_destroy(solution->sync);
	g_free(solution->results);
	g_free(solution->fits);
}

bool correlate_vcpu_has_path(const struct correlate_iter *iter,
		const struct vcpu_solution *solution, const struct machine *machine)
{
	return machine->index < iter->sync_count &&
		solution->results[iter->sync_index[machine->index]].parent >= 0;
}

/* Whether a guest other than `self` has `pid` as its QEMU process. */
static bool pid_taken(struct correlate_iter *iter, int64_t pid, const struct machine_info *self)
{
	for (guint i = 0; i < iter->infos->len; i++) {
		const struct machine_info *info = g_ptr_array_index(iter->infos, i);

		if (info && info != self && info->host_pid == pid) {
			return true;
		}
	}

	return false;
}

void correlate_vcpu_note_identities(struct correlate_iter *iter,
		const struct vm_vcpu_fit *fits, unsigned int count)
{
	for (unsigned int i = 0; i < count && i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		struct machine_info *info = correlate_machine_info(iter, machine);
		const struct vm_vcpu_fit *fit = &fits[i];

		/* A guest followed has the process its clock was fitted with. */
		if (machine == iter->sync_host || info->vcpu_follow) {
			continue;
		}

		if (fit->status == VM_VCPU_FIT_AMBIGUOUS || fit->status == VM_VCPU_FIT_TAKEN) {
			/* More of the trace (read once) puts in doubt what less of it said. */
			info->host_pid = -1;
		} else if ((fit->status == VM_VCPU_FIT_OK || fit->status == VM_VCPU_FIT_LOOSE) &&
				info->host_pid < 0 &&
				fit->host_pid >= 0 && !pid_taken(iter, fit->host_pid, info)) {
			info->host_pid = fit->host_pid;
		}
	}
}

static const char *host_name(const struct correlate_iter *iter)
{
	return iter->sync_host ? iter->sync_host->name : "(none)";
}

/*
 * Why `fit` failed when the host or the guest lost events: the fit left
 * the times of the losses out (vcpu-losses.h), so what is left may be too
 * little, and the trace is not to blame (`losses` names them).
 */
static char *lossy_failure(const struct correlate_iter *iter, const struct vm_vcpu_fit *fit,
		const struct machine_info *info, const char *losses)
{
	const char *help = "trace with larger or more sub-buffers (lttng enable-channel "
		"--subbuf-size, --num-subbuf) so that fewer events are lost";

	switch (fit->status) {
	case VM_VCPU_FIT_TOO_LITTLE:
		return g_strdup_printf("too little guest activity outside the times of lost "
			"events to align it with the vCPUs of host `%s` (%s; %" PRIu64 " of its "
			"events have a cpu_id): %s, or over a longer run", host_name(iter),
			losses, info->vcpu_guest_events, help);
	case VM_VCPU_FIT_NO_MATCH:
		return g_strdup_printf("no vCPU thread of host `%s` fits its activity outside "
			"the times of lost events (%s): too much of its record is unknown; %s",
			host_name(iter), losses, help);
	case VM_VCPU_FIT_AMBIGUOUS:
		return g_strdup_printf("%s fit its activity with the vCPUs of host `%s` as "
			"well outside the times of lost events (%s): %s, or over a longer run",
			fit->host_pid >= 0 && fit->other_pid >= 0 &&
				fit->other_pid != fit->host_pid ? "two host processes" :
				"offsets far apart", host_name(iter), losses, help);
	default:
		return NULL;
	}
}

char *correlate_vcpu_fit_failure(struct correlate_iter *iter,
		const struct vm_vcpu_fit *fit, struct machine *machine)
{
	const struct machine_info *info = correlate_machine_info(iter, machine);
	char *losses = vcpu_losses_describe(iter, machine);
	char *lossy = losses ? lossy_failure(iter, fit, info, losses) : NULL;

	g_free(losses);
	if (lossy) {
		return lossy;
	}

	switch (fit->status) {
	case VM_VCPU_FIT_TOO_LITTLE:
		return g_strdup_printf("too little guest activity to align it with the "
			"vCPUs of host `%s` (%" PRIu64 " of its events have a cpu_id; at "
			"least 100 on the CPUs of one host process, and times when those "
			"vCPUs left guest mode, are needed: trace the guest's kernel events "
			"over a longer run)", host_name(iter), info->vcpu_guest_events);
	case VM_VCPU_FIT_NO_MATCH:
		return g_strdup_printf("no vCPU thread of host `%s` fits its activity, "
			"whatever the offset (is its trace from this host and this time, "
			"with the host's kvm_entry and kvm_exit events?)", host_name(iter));
	case VM_VCPU_FIT_AMBIGUOUS:
		if (fit->host_pid >= 0 && fit->other_pid >= 0 && fit->other_pid != fit->host_pid) {
			return g_strdup_printf("the vCPUs of host processes %" PRId64
				" and %" PRId64 " of `%s` fit its activity as well (trace a "
				"longer or busier run)", fit->host_pid, fit->other_pid,
				host_name(iter));
		}

		return g_strdup_printf("offsets far apart fit its activity with the "
			"vCPUs of host `%s` as well (trace a longer or busier run)",
			host_name(iter));
	case VM_VCPU_FIT_LOOSE:
		return g_strdup_printf("the vCPUs of host process %" PRId64 " of `%s` fit "
			"its activity, but its events bound its clock too loosely: the map "
			"may be %" PRId64 " ns off (median; %" PRId64 " ns at most) where "
			"%d / %d ns are promised (trace a longer or busier run)",
			fit->host_pid, host_name(iter), fit->bound_median_ns,
			fit->bound_largest_ns, VM_VCPU_BOUND_MEDIAN_NS, VM_VCPU_BOUND_LARGEST_NS);
	case VM_VCPU_FIT_TAKEN:
		return g_strdup_printf("host process %" PRId64 " of `%s`, whose vCPUs "
			"fit its activity, fits another guest better (are two guest traces "
			"from the same VM?)", fit->host_pid, host_name(iter));
	default:
		return g_strdup_printf("host `%s` has no kvm_entry/kvm_exit events to "
			"align it with", host_name(iter));
	}
}

char *correlate_vcpu_failure(struct correlate_iter *iter,
		const struct vcpu_solution *solution, struct machine *machine)
{
	struct machine_info *info = correlate_machine_info(iter, machine);
	const struct vm_vcpu_fit *fit;

	if (!iter->by_vcpu || machine == iter->sync_host) {
		return NULL;
	}

	if (info->vcpu_guest_events == 0 && info->vcpu_events_without_cpu > 0) {
		return g_strdup("its events have no cpu_id in their packet context, so "
			"nothing tells which vCPU ran them");
	}

	if (!solution->fits || machine->index >= solution->fit_count) {
		/* No host interval at all: worth saying only when vcpu was asked. */
		if (iter->comp->params.sync != CORRELATE_SYNC_VCPU) {
			return NULL;
		}

		return iter->sync_host ?
			g_strdup_printf("host `%s` has no kvm_entry/kvm_exit events to "
				"align it with", host_name(iter)) :
			g_strdup("no machine has kvm_entry/kvm_exit events: there is no "
				"host to align it with");
	}

	fit = &solution->fits[machine->index];
	if (fit->status == VM_VCPU_FIT_OK && fit->segments > 1 &&
			!correlate_vcpu_has_path(iter, solution, machine)) {
		return g_strdup_printf("its clock needs a piecewise map (%u segments), kept "
			"only between the reference and a machine next to it: pass "
			"reference=\"%s\"", fit->segments, host_name(iter));
	}

	if (fit->status == VM_VCPU_FIT_OK) {
		return NULL;
	}

	/* Another alignment fits as well: the data contradicts any one fit. */
	if (fit->status == VM_VCPU_FIT_AMBIGUOUS || fit->status == VM_VCPU_FIT_TAKEN) {
		info->quality = VM_SYNC_FAIL;
	}

	return correlate_vcpu_fit_failure(iter, fit, machine);
}
