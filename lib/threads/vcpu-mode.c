#include <string.h>

#include "threads/vcpu-mode.h"

static const char *const mode_names[] = {
	[VM_THREADS_VCPU_UNKNOWN] = "unknown",
	[VM_THREADS_VCPU_GUEST] = "guest",
	[VM_THREADS_VCPU_HYPERVISOR] = "hypervisor",
	[VM_THREADS_VCPU_PREEMPTED] = "preempted",
	[VM_THREADS_VCPU_BLOCKED] = "blocked",
};

bool vm_threads_vcpu_mode_from_string(const char *name, enum vm_threads_vcpu_mode *mode)
{
	for (unsigned int i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (name && strcmp(name, mode_names[i]) == 0) {
			*mode = (enum vm_threads_vcpu_mode) i;
			return true;
		}
	}
	return false;
}

const char *vm_threads_vcpu_mode_name(enum vm_threads_vcpu_mode mode)
{
	return mode_names[mode];
}
