/*
 * filter.vm.state's machines and who runs them: names, roles from
 * filter.vm.correlate's `vm_role`, the guests' `vm_host_pid`, and the
 * parameters `vm-pids` and `host`.
 */

#include <inttypes.h>
#include <glib.h>

#include "state/iterator-private.h"
#include "common/unsynced.h"
#include "model/host-rule.h"

/* The name of machine `index` (named on first sight), "" if none. */
const char *state_machine_name(const struct state_iterator *it,
		unsigned int index)
{
	if (index >= machine_table_count(it->machines)) {
		return "";
	}
	return machine_display_name(machine_table_at(it->machines, index));
}

/*
 * The index of the machine a parameter names (`base-N` for `base#N` too: a
 * map key cannot hold `#`); false when there is none.
 */
static bool find_machine(const struct state_iterator *it, const char *name,
		unsigned int *index)
{
	const struct machine *machine =
		machine_table_find_by_param(it->machines, name);

	if (!machine) {
		return false;
	}
	*index = machine->index;
	return true;
}

/*
 * A machine to the tracker, with the role correlate's `vm_role` gives it:
 * the host rule was applied there, once for every component.
 */
void state_announce_machine(struct state_iterator *it, unsigned int machine)
{
	enum machine_role role = machine_table_at(it->machines, machine)->role;

	vm_vcpu_tracker_add_machine(it->tracker, machine);
	if (role == MACHINE_ROLE_UNKNOWN) {
		return;
	}
	it->roles_given = true;
	if (role == MACHINE_ROLE_HOST) {
		it->role_host = machine;
	}
	it->model->cls->set_role(it->model->data, machine,
		role == MACHINE_ROLE_HOST);
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

	if (it->warned_unsynchronized || !machines_unsynchronized(it->machines)) {
		return;
	}
	it->warned_unsynchronized = true;
	message = machines_unsynchronized_message(it->machines, "filter.vm.state");
	STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_WARNING, "%s", message);
	g_free(message);
}

/* The machine of `stream`, announced to the tracker on first sight. */
unsigned int state_machine_of_stream(struct state_iterator *it,
		const bt_stream *stream)
{
	bool is_new;
	unsigned int machine = machine_table_machine_of_stream(it->machines,
		stream, &is_new)->index;

	if (is_new) {
		machine_table_assign_names(it->machines);
		state_announce_machine(it, machine);
		STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_INFO,
			"Machine `%s` found.", state_machine_name(it,
				machine));
		/* A machine met after vm-pids was applied. */
		if (it->vm_pids_applied) {
			apply_env_host_pid(it, machine);
		}
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
				other->host_pid == m->host_pid) {
			return false;
		}
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
	const char *name = state_machine_name(it, machine);
	const gint64 *given = name ?
		g_hash_table_lookup(it->component->params.vm_pids, name) : NULL;
	bt_logging_level level;
	const char *other;

	if (m->host_pid < 0 || m->role == MACHINE_ROLE_HOST) {
		return;
	}
	level = env_host_pid_unique(it, m) ? BT_LOGGING_LEVEL_WARNING :
		BT_LOGGING_LEVEL_INFO;
	if (given) {
		if (*given != m->host_pid) {
			STATE_LOG(it->component->self_comp, level,
				"Machine `%s`: parameter `vm-pids` gives its QEMU "
				"process %" PRId64 ", but its trace environment's "
				"`vm_host_pid` gives %" PRId64 " (filter.vm.correlate "
				"fitted the guest's activity to the vCPUs of that "
				"process): using the parameter's; check it.", name,
				(int64_t) *given, m->host_pid);
		}
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
		if (it->model->cls->set_vm_pid_refused) {
			it->model->cls->set_vm_pid_refused(it->model->data, machine,
				m->host_pid);
		}
		return;
	}
	it->model->cls->set_vm_pid(it->model->data, machine, m->host_pid);
}

static void apply_env_host_pids(struct state_iterator *it)
{
	unsigned int machine;

	for (machine = 0; machine < machine_table_count(it->machines); machine++) {
		apply_env_host_pid(it, machine);
	}
}

/*
 * vm-pids keyed by the machines' own names, which the rest of the
 * component looks up: a key may be spelled `base-N`. False, with an error,
 * when a key names no machine or two keys name one.
 */
static bool resolve_vm_pids(struct state_iterator *it)
{
	const struct machine *machine;
	char *key;

	if (machine_table_rekey_params(it->machines, &it->component->params.vm_pids, &key,
			&machine)) {
		return true;
	}

	if (machine) {
		ITER_ERROR_CAUSE(it, "Parameter `vm-pids`: two keys name machine `%s` "
			"(`%s` is another spelling of it).", machine->name, key);
	} else {
		char *list = machine_table_names_text(it->machines);

		ITER_ERROR_CAUSE(it, "Parameter `vm-pids`: no machine of the input is "
			"named `%s`; the machines are: %s (write `base-2` for `base#2`: a "
			"map key cannot hold `#`).", key, list);
		g_free(list);
	}

	g_free(key);
	return false;
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
	if (!resolve_vm_pids(it)) {
		return false;
	}
	g_hash_table_iter_init(&iter, it->component->params.vm_pids);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		unsigned int machine;

		if (find_machine(it, key, &machine)) {
			it->model->cls->set_vm_pid(it->model->data, machine,
				*(const gint64 *) value);
		}
	}
	apply_env_host_pids(it);
	return true;
}

/*
 * Parameter vm-pids gives the QEMU process of guests: naming the host is a
 * mistake that would make the host one of its own VMs. Checked as soon as
 * the model knows the host, which may be after vm-pids was applied.
 */
bool state_check_vm_pids_host(struct state_iterator *it)
{
	int64_t host;
	const char *name;
	char *list;

	if (it->vm_pids_host_checked) {
		return true;
	}
	/* Nothing to check, ever: the callers need not ask again. */
	if (g_hash_table_size(it->component->params.vm_pids) == 0) {
		it->vm_pids_host_checked = true;
		return true;
	}
	host = it->model->cls->host(it->model->data);
	if (host == VM_MODEL_UNKNOWN) {
		return true;
	}
	it->vm_pids_host_checked = true;
	name = state_machine_name(it, (unsigned int) host);
	if (!name || !g_hash_table_contains(it->component->params.vm_pids, name)) {
		return true;
	}
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

	if (!host) {
		return true;
	}
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
	if (it->role_host != (int64_t) machine) {
		STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_WARNING,
			"Parameter `host` names `%s`, but filter.vm.correlate's "
			"`vm_role` says the host is `%s`: following `vm_role`, so that "
			"every component agrees. Pass `host` to filter.vm.correlate "
			"instead.", host, it->role_host < 0 ? "(none)" :
			state_machine_name(it, (unsigned int) it->role_host));
	}
	return true;
}

/*
 * Without correlate's vm_role, the rule is applied here, on the whole
 * input: the one warning it may owe.
 */
void state_warn_host_choice(struct state_iterator *it)
{
	unsigned int count = machine_table_count(it->machines);
	struct vm_host_candidate *candidates;
	struct vm_host_choice choice;
	unsigned int named;
	char *warning;
	unsigned int i;

	if (it->roles_given) {
		return;
	}
	candidates = g_new0(struct vm_host_candidate, count ? count : 1);
	for (i = 0; i < count; i++) {
		candidates[i].name = state_machine_name(it, i);
		candidates[i].evidence =
			it->model->cls->host_evidence(it->model->data, i);
	}
	choice = vm_host_rule_choose(candidates, count,
		it->component->params.host && find_machine(it,
			it->component->params.host, &named) ? (int64_t) named :
			VM_MODEL_UNKNOWN);
	warning = vm_host_rule_warning(&choice, candidates, count);
	if (warning) {
		STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_WARNING,
			"%s", warning);
	}
	g_free(warning);
	g_free(candidates);
}

/* vm-pids and host name machines: applied once the machines are known. */
bool state_apply_machine_params(struct state_iterator *it)
{
	return apply_vm_pids(it) && apply_host(it);
}
