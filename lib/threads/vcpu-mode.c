#include <string.h>

#include "threads/vcpu-mode.h"

static const char *const mode_names[] = {
	[VM_THREADS_VCPU_UNKNOWN] = "unknown",
	[VM_THREADS_VCPU_GUEST] = "guest",
	[VM_THREADS_VCPU_HYPERVISOR] = "hypervisor",
	[VM_THREADS_VCPU_PREEMPTED] = "preempted",
	[VM_THREADS_VCPU_BLOCKED] = "blocked",
};

/*
 * One per vm:vcpu_state event: the first letter tells the only candidate
 * (the five names start differently), one strcmp() checks it.
 */
bool vm_threads_vcpu_mode_from_string(const char *name, enum vm_threads_vcpu_mode *mode)
{
	enum vm_threads_vcpu_mode candidate;

	if (!name)
		return false;
	switch (name[0]) {
	case 'u':
		candidate = VM_THREADS_VCPU_UNKNOWN;
		break;
	case 'g':
		candidate = VM_THREADS_VCPU_GUEST;
		break;
	case 'h':
		candidate = VM_THREADS_VCPU_HYPERVISOR;
		break;
	case 'p':
		candidate = VM_THREADS_VCPU_PREEMPTED;
		break;
	case 'b':
		candidate = VM_THREADS_VCPU_BLOCKED;
		break;
	default:
		return false;
	}
	if (strcmp(name, mode_names[candidate]) != 0)
		return false;
	*mode = candidate;
	return true;
}

const char *vm_threads_vcpu_mode_name(enum vm_threads_vcpu_mode mode)
{
	return mode_names[mode];
}
