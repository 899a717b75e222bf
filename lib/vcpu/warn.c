#include <stdarg.h>

#include "vcpu/tracker-private.h"
#include "model/int64-key.h"

char *vcpu_machine_name(const struct vm_vcpu_tracker *tracker,
		unsigned int machine)
{
	if (tracker->callbacks.machine_name)
		return g_strdup_printf("`%s`", tracker->callbacks.machine_name(
			tracker->user, machine));
	return g_strdup_printf("#%u", machine);
}

bool vcpu_warned(const struct vm_vcpu_tracker *tracker, enum vm_vcpu_warning kind,
		unsigned int machine)
{
	return vm_int64_table_lookup(tracker->warned,
		vm_int64_pair((unsigned int) kind, machine)) != NULL;
}

/*
 * A trace can repeat the same oddity millions of times: the user needs to
 * hear about it once per kind and machine, not once per event.
 */
void vcpu_warn(struct vm_vcpu_tracker *tracker, enum vm_vcpu_warning kind,
		unsigned int machine, const char *format, ...)
{
	int64_t key = vm_int64_pair((unsigned int) kind, machine);
	va_list args;
	char *message;

	if (vm_int64_table_lookup(tracker->warned, key))
		return;
	vm_int64_table_insert(tracker->warned, key, GINT_TO_POINTER(1));
	if (!tracker->callbacks.warning)
		return;
	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	tracker->callbacks.warning(tracker->user, kind, machine, message);
	g_free(message);
}
