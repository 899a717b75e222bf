#include <string.h>

#include "vcpu/mode.h"

static const char *const mode_names[] = {
	[VM_VCPU_UNKNOWN] = "unknown",
	[VM_VCPU_GUEST] = "guest",
	[VM_VCPU_HYPERVISOR] = "hypervisor",
	[VM_VCPU_PREEMPTED] = "preempted",
	[VM_VCPU_BLOCKED] = "blocked",
};

const char *vm_vcpu_mode_name(enum vm_vcpu_mode mode)
{
	if ((unsigned int) mode >= sizeof(mode_names) / sizeof(mode_names[0]))
		return "unknown";
	return mode_names[mode];
}

bool vm_vcpu_mode_from_name(const char *name, enum vm_vcpu_mode *mode)
{
	unsigned int i;

	if (!name)
		return false;
	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (strcmp(mode_names[i], name) == 0) {
			*mode = (enum vm_vcpu_mode) i;
			return true;
		}
	}
	return false;
}
