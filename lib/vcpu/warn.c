#include <stdarg.h>

#include "vcpu/tracker-private.h"

char *vcpu_machine_name(const struct vm_vcpu_tracker *tracker,
		unsigned int machine)
{
	if (tracker->callbacks.machine_name) {
		return g_strdup_printf("`%s`", tracker->callbacks.machine_name(
			tracker->user, machine));
	}
	return g_strdup_printf("#%u", machine);
}

bool vcpu_warned(const struct vm_vcpu_tracker *tracker, enum vm_vcpu_warning kind,
		unsigned int machine)
{
	return vm_warn_once_given_id(tracker->warned, (unsigned int) kind, machine);
}

/*
 * A trace can repeat the same oddity millions of times: the user needs to
 * hear about it once per kind and machine, not once per event.
 */
void vcpu_warn(struct vm_vcpu_tracker *tracker, enum vm_vcpu_warning kind,
		unsigned int machine, const char *format, ...)
{
	va_list args;
	char *message;

	if (!vm_warn_once_first_id(tracker->warned, (unsigned int) kind, machine)) {
		return;
	}
	if (!tracker->callbacks.warning) {
		return;
	}
	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	tracker->callbacks.warning(tracker->user, kind, machine, message);
	g_free(message);
}
