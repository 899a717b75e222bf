#include <inttypes.h>
#include <string.h>

#include "state/params.h"
#include "model/registry.h"
#include "model/int64-key.h"

#define ERROR_CAUSE(self_comp, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp, __VA_ARGS__)

static bool parse_model(bt_self_component *self_comp, const bt_value *value,
		struct state_params *params)
{
	char *names;

	if (!value) {
		params->model = vm_model_registry_find("kvm");
		return true;
	}
	if (bt_value_is_string(value)) {
		params->model = vm_model_registry_find(
			bt_value_string_get(value));
		if (params->model) {
			return true;
		}
	}
	names = vm_model_registry_names();
	if (bt_value_is_string(value)) {
		ERROR_CAUSE(self_comp, "Parameter `model`: unknown hypervisor "
			"model `%s`; the known models are: %s.",
			bt_value_string_get(value), names);
	} else {
		ERROR_CAUSE(self_comp, "Parameter `model` must be a string, "
			"one of: %s.", names);
	}
	g_free(names);
	return false;
}

/*
 * Linux process ids are below pid_max, which is at most PID_MAX_LIMIT
 * (4194304, include/linux/threads.h); 0 is the idle task, never a QEMU.
 */
#define VM_PID_MAX (INT64_C(4194304) - 1)
#define VM_PID_RANGE "1 to 4194303"

/* A process id: a signed or unsigned integer, 1 to VM_PID_MAX. */
static bool pid_of_value(const bt_value *value, int64_t *pid)
{
	if (bt_value_is_signed_integer(value)) {
		*pid = bt_value_integer_signed_get(value);
		return *pid >= 1 && *pid <= VM_PID_MAX;
	}
	if (bt_value_is_unsigned_integer(value)) {
		uint64_t unsigned_pid = bt_value_integer_unsigned_get(value);

		*pid = (int64_t) MIN(unsigned_pid, (uint64_t) INT64_MAX);
		return unsigned_pid >= 1 && unsigned_pid <= (uint64_t) VM_PID_MAX;
	}
	return false;
}

struct vm_pids_context {
	bt_self_component *self_comp;
	GHashTable *vm_pids;
	/* pid -> the guest name (borrowed from the map) already given it. */
	GHashTable *guest_of_pid;
	bool ok;
};

/*
 * One QEMU process runs one guest: a pid given twice would hand one VM's
 * vCPUs to whichever guest the model met last, silently.
 */
static bool pid_given_once(struct vm_pids_context *context, const char *key,
		int64_t pid)
{
	const char *other = vm_int64_table_lookup(context->guest_of_pid, pid);
	const char *first, *second;

	if (!other) {
		vm_int64_table_insert(context->guest_of_pid, pid, (gpointer) key);
		return true;
	}
	/* The map's order is not the command line's: name them sorted. */
	first = strcmp(other, key) < 0 ? other : key;
	second = first == key ? other : key;
	ERROR_CAUSE(context->self_comp, "Parameter `vm-pids`: guests `%s` and "
		"`%s` are both given process %" PRId64 ", but a QEMU process runs "
		"one guest. Give each guest the process id of its own QEMU on the "
		"host: integers from " VM_PID_RANGE ", all different (e.g. "
		"`vm-pids={%s=1234,%s=1235}`).", first, second, pid, first, second);
	return false;
}

static bt_value_map_foreach_entry_const_func_status add_vm_pid(
		const char *key, const bt_value *value, void *data)
{
	struct vm_pids_context *context = data;
	int64_t pid;

	if (!pid_of_value(value, &pid)) {
		ERROR_CAUSE(context->self_comp, "Parameter `vm-pids`: the value "
			"of `%s` must be the process id of that guest's QEMU on "
			"the host, an integer from " VM_PID_RANGE " (e.g. "
			"`vm-pids={%s=1234}`).", key, key);
		context->ok = false;
		return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_ERROR;
	}
	if (!pid_given_once(context, key, pid)) {
		context->ok = false;
		return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_ERROR;
	}
	g_hash_table_insert(context->vm_pids, g_strdup(key), vm_int64_box(pid));
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
}

static bool parse_vm_pids(bt_self_component *self_comp, const bt_value *value,
		struct state_params *params)
{
	struct vm_pids_context context = { self_comp, params->vm_pids, NULL, true };

	if (!value) {
		return true;
	}
	if (!bt_value_is_map(value)) {
		ERROR_CAUSE(self_comp, "Parameter `vm-pids` must be a map from "
			"guest machine names (`base-2` for `base#2`: a key cannot "
			"hold `#`) to the process ids of their QEMU on the host "
			"(e.g. `vm-pids={guest=1234}`).");
		return false;
	}
	context.guest_of_pid = vm_int64_table_new(NULL);
	bt_value_map_foreach_entry_const(value, add_vm_pid, &context);
	g_hash_table_destroy(context.guest_of_pid);
	return context.ok;
}

struct unknown_key_context {
	bt_self_component *self_comp;
	bool ok;
};

static bt_value_map_foreach_entry_const_func_status check_key(
		const char *key, const bt_value *value, void *data)
{
	struct unknown_key_context *context = data;

	(void) value;
	if (strcmp(key, "model") == 0 || strcmp(key, "vm-pids") == 0 ||
			strcmp(key, "host") == 0) {
		return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
	}
	ERROR_CAUSE(context->self_comp, "Unknown parameter `%s`; filter.vm.state "
		"accepts `model`, `vm-pids` and `host`.", key);
	context->ok = false;
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_ERROR;
}

/* Parameter `host`: which machine is the host, as for filter.vm.correlate. */
static bool parse_host(bt_self_component *self_comp, const bt_value *value,
		struct state_params *params)
{
	if (!value) {
		return true;
	}
	if (!bt_value_is_string(value) || !*bt_value_string_get(value)) {
		ERROR_CAUSE(self_comp, "Parameter `host` must be a non-empty string, "
			"the name of the host machine (e.g. `host=\"myhost\"`).");
		return false;
	}
	params->host = g_strdup(bt_value_string_get(value));
	return true;
}

bool state_params_parse(bt_self_component *self_comp, const bt_value *values,
		struct state_params *params)
{
	struct unknown_key_context keys = { self_comp, true };

	memset(params, 0, sizeof(*params));
	params->vm_pids = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, g_free);
	if (values && bt_value_is_map(values)) {
		bt_value_map_foreach_entry_const(values, check_key, &keys);
		if (!keys.ok) {
			return false;
		}
	}
	if (!parse_model(self_comp, values ? bt_value_map_borrow_entry_value_const(
			values, "model") : NULL, params)) {
		return false;
	}
	if (!parse_host(self_comp, values ? bt_value_map_borrow_entry_value_const(
			values, "host") : NULL, params)) {
		return false;
	}
	return parse_vm_pids(self_comp, values ? bt_value_map_borrow_entry_value_const(
		values, "vm-pids") : NULL, params);
}

void state_params_fini(struct state_params *params)
{
	if (params->vm_pids) {
		g_hash_table_destroy(params->vm_pids);
	}
	params->vm_pids = NULL;
	g_free(params->host);
	params->host = NULL;
}
