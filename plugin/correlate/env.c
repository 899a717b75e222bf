/*
 * What filter.vm.correlate tells about each machine: the `vm_*` environment
 * entries of the output traces and one INFO line per machine, whose formula
 * is written the way the `transforms` parameter takes it so that a user can
 * skip the sync pass next time.
 */

#include <inttypes.h>

#include "correlate/env.h"
#include "correlate/machines.h"
#include "sync/formula-text.h"

static bool set_string(bt_trace *trace, const char *name, const char *value)
{
	return bt_trace_set_environment_entry_string(trace, name, value) ==
		BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK;
}

/* A guest's QEMU process, when the vCPU alignment found it. */
static bool set_host_pid(bt_trace *trace, const struct machine_info *info)
{
	return info->host_pid < 0 ||
		bt_trace_set_environment_entry_integer(trace, "vm_host_pid", info->host_pid) ==
			BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK;
}

bool correlate_trace_created(void *data,
		const bt_trace *upstream_trace, bt_trace *output_trace)
{
	struct correlate_iter *iter = data;
	struct machine *machine = machine_table_machine_of_trace(iter->machines,
		upstream_trace);
	struct machine_info *info;
	char *slope;
	char *offset;
	char *accuracy;
	bool ok;

	if (!machine) {
		/* A trace with no stream yet: nothing to tell about it. */
		return true;
	}

	info = correlate_machine_info(iter, machine);
	if (iter->keeps_time_base) {
		/*
		 * The vm_sync_* entries (vm_sync_method too) and vm_host_pid
		 * copied from the input still hold.
		 */
		ok = set_string(output_trace, "vm_machine", machine->name) &&
			set_string(output_trace, "vm_role", info->role);
		if (!ok) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(iter->self,
				"Cannot add the vm_* environment entries of machine `%s`.",
				machine->name);
		}

		return ok;
	}

	slope = vm_sync_real_text(info->map.formula.slope);
	offset = vm_sync_real_text(info->map.formula.offset_ns);
	accuracy = vm_sync_real_text(info->accuracy);
	ok = set_string(output_trace, "vm_machine",
			machine_display_name(machine)) &&
		set_string(output_trace, "vm_role", info->role) &&
		set_string(output_trace, "vm_sync_quality",
			vm_sync_quality_name(info->quality)) &&
		set_string(output_trace, "vm_sync_slope", slope) &&
		set_string(output_trace, "vm_sync_offset_ns", offset) &&
		set_string(output_trace, "vm_sync_accuracy", accuracy) &&
		set_string(output_trace, "vm_sync_method", info->method) &&
		bt_trace_set_environment_entry_integer(output_trace, "vm_sync_matches",
			(int64_t) info->matches) == BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK &&
		set_host_pid(output_trace, info);
	g_free(accuracy);
	g_free(offset);
	g_free(slope);
	if (!ok) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(iter->self,
			"Cannot add the vm_* environment entries of machine `%s`.",
			machine->name);
	}

	return ok;
}

/*
 * `NAME={slope="S",offset-ns="O"}`, as the `transforms` parameter takes it.
 *
 * Strings with every digit: a CLI real is a double, and a slope rounded to
 * a double (or an offset to an integer) moves times by a nanosecond here
 * and there at Unix-epoch nanoseconds. Parsed back, the strings give the
 * computed formula bit for bit, and so the same times.
 */
static char *transform_text(struct correlate_iter *iter, const struct machine *machine,
		const struct machine_info *info)
{
	char *slope = vm_sync_real_text(info->map.formula.slope);
	char *offset = vm_sync_real_text(info->map.formula.offset_ns);
	char *name = machine_param_name(iter->machines, machine);
	char *text = g_strdup_printf("%s={slope=\"%s\",offset-ns=\"%s\"}",
		name, slope, offset);

	g_free(name);
	g_free(offset);
	g_free(slope);
	return text;
}

/* The largest accuracy (slope width) over a machine's segments. */
static long double largest_accuracy(const struct machine_info *info)
{
	long double largest = info->accuracy;

	for (unsigned int i = 0; i < vm_sync_map_segment_count(&info->map); i++) {
		const struct vm_sync_segment *segment = vm_sync_map_segment(&info->map, i);

		if (segment && segment->accuracy > largest) {
			largest = segment->accuracy;
		}
	}

	return largest;
}

/* What the summary's last line needs to know of the machines. */
struct summary {
	bool has_segments;   /* a machine's map has several segments */
	bool has_unsynced;   /* a machine is left on its own clock */
};

static void log_machine(struct correlate_iter *iter, struct machine *machine,
		GString *all_transforms, struct summary *summary)
{
	struct machine_info *info = correlate_machine_info(iter, machine);

	if (iter->keeps_time_base) {
		CORRELATE_LOGI(iter->log_level, iter->name,
			"Machine `%s`: role %s%s; its traces come out of "
			"filter.vm.correlate, already in that run's time base: times "
			"kept as they are, vm_sync_* entries as the input has them "
			"(pass `reference` or `transforms` to synchronize again).",
			machine->name, info->role,
			info->is_reference ? " (reference)" : "");
		return;
	}
	/* The reference takes no formula (setup.c): it is the time base. */
	char *transform = info->is_reference ? NULL : transform_text(iter, machine, info);
	char *as_parameter = transform ?
		g_strdup_printf("as a parameter: transforms={%s}", transform) :
		g_strdup("the time base");
	char *formula = vm_sync_formula_line(info->map.formula.slope,
		info->map.formula.offset_ns);
	char *accuracy = vm_sync_real_text(info->accuracy);
	unsigned int segments = vm_sync_map_segment_count(&info->map);
	char *largest = vm_sync_real_text(largest_accuracy(info));

	bool unsynced = !info->is_reference && (info->quality == VM_SYNC_ABSENT ||
		info->quality == VM_SYNC_FAIL);

	if (unsynced) {
		/* Its identity formula is no result to pass back. */
		g_free(as_parameter);
		as_parameter = g_strdup("left on its own clock (no formula to pass as "
			"`transforms`)");
	} else if (segments > 1) {
		/* One line cannot stand for a piecewise map. */
		g_free(as_parameter);
		as_parameter = g_strdup("no `transforms` formula gives these segments "
			"(sync-model=\"linear\" gives one line)");
	}

	CORRELATE_LOGI(iter->log_level, iter->name,
		"Machine `%s`: role %s%s, sync %s, quality %s, %" PRIu64 " matches, "
		"accuracy %s, %s%s; %u segment%s, largest accuracy %s; %s",
		machine->name, info->role, info->is_reference ? " (reference)" : "",
		info->method, vm_sync_quality_name(info->quality), info->matches,
		accuracy, formula, segments > 1 ? " (first segment)" : "",
		segments, segments > 1 ? "s" : "", largest, as_parameter);
	g_free(largest);
	if (unsynced) {
		/* Its formula is no result: nothing to pass back. */
		summary->has_unsynced = true;
	} else if (segments > 1) {
		summary->has_segments = true;
	} else if (transform) {
		g_string_append_printf(all_transforms, "%s%s",
			all_transforms->len ? "," : "", transform);
	}

	g_free(accuracy);
	g_free(formula);
	g_free(as_parameter);
	g_free(transform);
	if (info->host_pid >= 0) {
		CORRELATE_LOGI(iter->log_level, iter->name,
			"Machine `%s`: its QEMU is process %" PRId64 " of host `%s`, as its "
			"vCPU fit tells (written as vm_host_pid, whatever method sets its "
			"clock: filter.vm.state maps its vCPUs with it).", machine->name,
			info->host_pid, iter->sync_host ? iter->sync_host->name : "(none)");
	}
}

/*
 * With `transforms`, nothing fits the vCPUs: the QEMU processes found this
 * time, as filter.vm.state's parameter, keep the VMs identified.
 */
static void log_vm_pids(struct correlate_iter *iter)
{
	GString *pids = g_string_new(NULL);

	for (unsigned int i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		const struct machine_info *info = correlate_machine_info(iter, machine);

		if (info->host_pid >= 0) {
			char *name = machine_param_name(iter->machines, machine);

			g_string_append_printf(pids, "%s%s=%" PRId64, pids->len ? "," : "",
				name, info->host_pid);
			g_free(name);
		}
	}

	if (pids->len > 0) {
		CORRELATE_LOGI(iter->log_level, iter->name,
			"With those transforms, no vCPU fit tells the guests' QEMU processes: "
			"pass filter.vm.state vm-pids={%s} too.", pids->str);
	}

	g_string_free(pids, TRUE);
}

void correlate_log_summary(struct correlate_iter *iter)
{
	GString *all_transforms = g_string_new(NULL);
	char *reference = NULL;
	struct summary summary = { false, false };
	unsigned int i;

	for (i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);

		log_machine(iter, machine, all_transforms, &summary);
		if (correlate_machine_info(iter, machine)->is_reference) {
			g_free(reference);
			reference = machine_param_name(iter->machines, machine);
		}
	}

	if (reference && all_transforms->len > 0 && !summary.has_segments &&
			!summary.has_unsynced) {
		CORRELATE_LOGI(iter->log_level, iter->name,
			"To skip the synchronization next time, pass: "
			"reference=\"%s\",transforms={%s}", reference, all_transforms->str);
		log_vm_pids(iter);
	}

	g_string_free(all_transforms, TRUE);
	g_free(reference);
}
