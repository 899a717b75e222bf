/*
 * Once every machine is known: names, checks of the parameters that name
 * machines, the host, the reference and the roles, and the formulas given
 * by `transforms`.
 */

#include <string.h>

#include "correlate/machines.h"
#include "correlate/setup.h"
#include "correlate/strategy.h"
#include "model/host-rule.h"

/*
 * A parameter's machine, checked and replaced by the machine's own name:
 * the rest of the component compares names as they are. It may be spelled
 * `base-N` for `base#N` (babeltrace2 takes no `#` in a map key).
 */
static bool resolve_machine_name(struct correlate_iter *iter, const char *param,
		char **name)
{
	struct machine *machine;
	char *names;

	if (!*name) {
		return true;
	}

	machine = machine_table_find_by_param(iter->machines, *name);
	if (machine) {
		g_free(*name);
		*name = g_strdup(machine->name);
		return true;
	}

	names = machine_table_names_text(iter->machines);
	ITER_ERROR(iter, "Unknown machine `%s` in parameter `%s`: the machines of "
		"the input traces are %s (a trace's `vm_machine` or `hostname` "
		"environment entry, with `#2`, `#3`, ... when names repeat; write "
		"`base-2` for `base#2`, as a map key cannot hold `#`).",
		*name, param, names);
	g_free(names);
	return false;
}

/* `transforms` keyed by the machines' own names; two keys may not meet. */
static bool resolve_transforms(struct correlate_iter *iter)
{
	const struct machine *machine;
	char *key;

	if (machine_table_rekey_params(iter->machines, &iter->comp->params.transforms, &key,
			&machine)) {
		return true;
	}

	if (machine) {
		ITER_ERROR(iter, "Invalid parameter `transforms`: two keys name machine "
			"`%s` (`%s` is another spelling of it).", machine->name, key);
	} else {
		/* Its error names the machines. */
		resolve_machine_name(iter, "transforms", &key);
	}

	g_free(key);
	return false;
}

/* Whether every machine of the input comes out of filter.vm.correlate. */
static bool all_from_correlate(struct correlate_iter *iter)
{
	unsigned int count = machine_table_count(iter->machines);

	for (unsigned int i = 0; i < count; i++) {
		if (!machine_table_at(iter->machines, i)->from_correlate) {
			return false;
		}
	}

	return count > 0;
}

/*
 * A previous run's output keeps its machines' times in that run's time base
 * only, not their own clocks (nor the piecewise maps back to them): it can
 * be read again in that base, not re-based on another machine.
 */
static bool check_rebase(struct correlate_iter *iter)
{
	const char *name = iter->comp->params.reference;
	struct machine *asked;

	if (!name || !all_from_correlate(iter)) {
		return true;
	}

	asked = machine_table_find_by_name(iter->machines, name);
	if (!asked || asked->was_reference) {
		return true;
	}

	ITER_ERROR(iter, "Parameter `reference`: the input traces come out of "
		"filter.vm.correlate, their times already in another machine's time "
		"base; their own clocks are not kept, so they cannot be re-based on "
		"`%s`. Run filter.vm.correlate with reference=\"%s\" on the original "
		"traces instead, or leave `reference` out to read this output in its "
		"own time base.", name, name);
	return false;
}

static bool check_parameters(struct correlate_iter *iter)
{
	struct correlate_params *params = &iter->comp->params;

	return resolve_machine_name(iter, "reference", &params->reference) &&
		resolve_machine_name(iter, "host", &params->host) &&
		check_rebase(iter) && resolve_transforms(iter);
}

/*
 * A copy of a previous run's output read again (sink.ctf.fs, then
 * src.ctf.fs): every machine comes out of filter.vm.correlate, so its times
 * are already in that run's time base. Synchronizing them again would only
 * move them within the accuracy of the new fit; they are kept as they are,
 * unless a parameter asks for a new time base or new formulas.
 */
static bool input_keeps_time_base(struct correlate_iter *iter)
{
	const struct correlate_params *params = &iter->comp->params;
	unsigned int count = machine_table_count(iter->machines);
	unsigned int i;

	if (count == 0 || params->sync != CORRELATE_SYNC_AUTO || params->reference ||
			g_hash_table_size(params->transforms) > 0) {
		return false;
	}

	for (i = 0; i < count; i++) {
		const struct machine *machine = machine_table_at(iter->machines, i);

		if (!machine->given_name || !machine->from_correlate) {
			return false;
		}
	}

	return true;
}

/* The host of a previous run's output: `host`, else its `vm_role`. */
static struct machine *kept_host(struct correlate_iter *iter)
{
	unsigned int i;

	if (iter->comp->params.host) {
		return machine_table_find_by_name(iter->machines, iter->comp->params.host);
	}

	for (i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);

		if (machine->role == MACHINE_ROLE_HOST) {
			return machine;
		}
	}

	return NULL;
}

/* How strongly a machine looks like the KVM host (0: not at all). */
static uint64_t host_evidence(struct correlate_iter *iter, struct machine *machine)
{
	struct machine_info *info = correlate_machine_info(iter, machine);

	if (iter->sync_pass_done ||
			(correlate_reads_once(iter) && iter->state >= CORRELATE_STATE_ENDING)) {
		return info->kvm_entries;
	}

	/*
	 * One pass: the event classes, and the entries counted when several
	 * machines declare them (host-ahead.c).
	 */
	return info->declares_kvm ? 1 + info->kvm_entries_ahead : 0;
}

/*
 * The host rule of model/host-rule.h, the one every component follows
 * through `vm_role`. Its warning waits for the final evidence: the event
 * classes only guess before the sync pass has counted the entries.
 */
struct machine *correlate_detect_host(struct correlate_iter *iter)
{
	unsigned int count = machine_table_count(iter->machines);
	struct vm_host_candidate *candidates = g_new0(struct vm_host_candidate,
		count ? count : 1);
	struct machine *named = iter->comp->params.host ?
		machine_table_find_by_name(iter->machines, iter->comp->params.host) : NULL;
	bool final = iter->sync_pass_done || (correlate_reads_once(iter) ?
		iter->state >= CORRELATE_STATE_ENDING : iter->state != CORRELATE_STATE_SYNC_PASS);
	struct vm_host_choice choice;
	struct machine *host;
	unsigned int i;

	if (iter->keeps_time_base) {
		/* The rule was applied by the run that wrote the input. */
		g_free(candidates);
		return kept_host(iter);
	}

	for (i = 0; i < count; i++) {
		struct machine *machine = machine_table_at(iter->machines, i);

		candidates[i].name = machine->name;
		candidates[i].evidence = host_evidence(iter, machine);
	}

	choice = vm_host_rule_choose(candidates, count,
		named ? (int64_t) named->index : VM_MODEL_UNKNOWN);
	host = choice.host == VM_MODEL_UNKNOWN ? NULL :
		machine_table_at(iter->machines, (unsigned int) choice.host);
	if (final && host && machine_warn_once(host, WARN_MANY_HOSTS)) {
		char *warning = vm_host_rule_warning(&choice, candidates, count);

		if (warning) {
			CORRELATE_LOGW(iter->log_level, iter->name, "%s", warning);
		}

		g_free(warning);
	}

	g_free(candidates);
	return host;
}

static struct machine *smallest_name(struct correlate_iter *iter)
{
	struct machine *best = NULL;
	unsigned int i;

	for (i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);

		if (!best || strcmp(machine->name, best->name) < 0) {
			best = machine;
		}
	}

	return best;
}

static void set_roles(struct correlate_iter *iter, struct machine *host,
		struct machine *reference)
{
	unsigned int i;

	for (i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		struct machine_info *info = correlate_machine_info(iter, machine);

		info->role = !host ? "unknown" : machine == host ? "host" : "guest";
		info->is_reference = machine == reference;
	}
}

/*
 * The reference is the time base: a formula for it would move it alone,
 * away from every machine mapped onto it. Only the identity is accepted.
 */
static bool check_reference_transform(struct correlate_iter *iter,
		const struct machine *reference)
{
	const struct vm_sync_formula *given = reference ?
		g_hash_table_lookup(iter->comp->params.transforms, reference->name) : NULL;

	if (!given || (given->slope == 1.0L && given->offset_ns == 0.0L)) {
		return true;
	}

	ITER_ERROR(iter, "Invalid parameter `transforms`: machine `%s` is the "
		"reference (%s), the time base that every other machine is mapped "
		"to, so it takes no formula: one would move it alone and break the "
		"timeline. To put the timeline on another machine's clock, pass "
		"`reference=\"OTHER\"` (then `%s` may have a formula); otherwise "
		"drop `%s` from `transforms`.", reference->name,
		iter->comp->params.reference ? "parameter `reference`" :
			"by default: the host, else the smallest machine name",
		reference->name, reference->name);
	return false;
}

/* Applies `transforms` and marks every other machine as unsynchronized. */
static void apply_transforms(struct correlate_iter *iter)
{
	unsigned int i;

	for (i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		struct machine_info *info = correlate_machine_info(iter, machine);
		const struct vm_sync_formula *given =
			g_hash_table_lookup(iter->comp->params.transforms, machine->name);

		info->quality = VM_SYNC_ABSENT;
		info->matches = 0;
		info->accuracy = 0;
		if (given) {
			vm_sync_map_set_formula(&info->map, given);
			info->method = "transforms";
		} else {
			vm_sync_map_set_formula(&info->map,
				&(struct vm_sync_formula) { 1.0L, 0.0L });
			info->method = iter->keeps_time_base ? "kept" :
				info->is_reference ? "reference" : "none";
		}
	}
}

bool correlate_transforms_cover_all(struct correlate_iter *iter)
{
	unsigned int i;

	for (i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);

		if (!correlate_machine_info(iter, machine)->is_reference &&
				!g_hash_table_contains(iter->comp->params.transforms,
					machine->name)) {
			return false;
		}
	}

	return true;
}

bool correlate_finalize_machines(struct correlate_iter *iter)
{
	struct machine *host;
	struct machine *reference;

	machine_table_assign_names(iter->machines);
	if (!check_parameters(iter)) {
		return false;
	}

	iter->keeps_time_base = input_keeps_time_base(iter);
	host = correlate_detect_host(iter);
	reference = iter->comp->params.reference ?
		machine_table_find_by_name(iter->machines, iter->comp->params.reference) :
		host ? host : smallest_name(iter);
	set_roles(iter, host, reference);
	if (!check_reference_transform(iter, reference)) {
		return false;
	}

	apply_transforms(iter);
	iter->machines_final = true;
	return true;
}
