#include <inttypes.h>
#include <string.h>

#include "state/end-checks.h"
#include "common/log.h"

#define CHECK_LOG(self_comp, level, ...) \
	vm_log_comp((self_comp), (level), "filter.vm.state", __VA_ARGS__)

/* How to record traces: doc/tracing.md, installed there (meson.build). */
#define VM_TRACING_DOC "see doc/tracing.md, installed in " VM_DOC_DIR

static bool contains(const int64_t *pids, size_t count, int64_t pid)
{
	size_t i;

	for (i = 0; i < count; i++) {
		if (pids[i] == pid) {
			return true;
		}
	}
	return false;
}

/* "1468, 1527", or what it means when there is none. */
static char *pids_text(const int64_t *pids, size_t count)
{
	GString *text;
	size_t i;

	if (count == 0) {
		return g_strdup("none (the host trace has no kvm_entry / "
			"kvm_x86_entry event)");
	}
	text = g_string_new(NULL);
	for (i = 0; i < count; i++) {
		g_string_append_printf(text, "%s%" PRId64, i ? ", " : "", pids[i]);
	}
	return g_string_free(text, FALSE);
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
	return strcmp(a, b);
}

void end_check_vm_pids(bt_self_component *self_comp, GHashTable *vm_pids,
		const struct vm_model *model, const char *host_name)
{
	int64_t *pids = NULL;
	size_t count;
	char *actual;
	GList *names, *name;

	if (g_hash_table_size(vm_pids) == 0 || !model->cls->vcpu_processes ||
			model->cls->host(model->data) == VM_MODEL_UNKNOWN) {
		return;
	}
	count = model->cls->vcpu_processes(model->data, &pids);
	actual = pids_text(pids, count);
	/* In name order: the same run, the same lines. */
	names = g_list_sort(g_hash_table_get_keys(vm_pids), compare_names);
	for (name = names; name; name = name->next) {
		int64_t pid = *(const gint64 *) g_hash_table_lookup(vm_pids,
			name->data);

		if (contains(pids, count, pid)) {
			continue;
		}
		CHECK_LOG(self_comp, BT_LOGGING_LEVEL_WARNING,
			"Parameter `vm-pids` gives guest `%s` QEMU process %"
			PRId64 ", but no thread of process %" PRId64 " runs a "
			"vCPU in the trace of host `%s`; the processes that run "
			"vCPUs are: %s. Check the entry, or leave it out and let "
			"filter.vm.correlate find the guest's QEMU (its "
			"`vm_host_pid`).", (const char *) name->data, pid, pid,
			host_name, actual);
	}
	g_list_free(names);
	g_free(actual);
	g_free(pids);
}

void end_check_host_vcpus(bt_self_component *self_comp,
		const struct vm_model *model, const char *host_name,
		unsigned int machine_count)
{
	int64_t *pids = NULL;

	if (machine_count < 2 || !model->cls->vcpu_processes ||
			model->cls->host(model->data) == VM_MODEL_UNKNOWN) {
		return;
	}
	if (model->cls->vcpu_processes(model->data, &pids) > 0) {
		g_free(pids);
		return;
	}
	CHECK_LOG(self_comp, BT_LOGGING_LEVEL_WARNING,
		"Host `%s` ran no vCPU thread: its trace has no kvm_entry / "
		"kvm_x86_entry event, so no vCPU mode is computed. Record the "
		"host with kvm_x86_entry and kvm_x86_exit (" VM_TRACING_DOC
		"; `lttng list -k | grep kvm_x86` shows whether the tracer has "
		"them).", host_name);
}
