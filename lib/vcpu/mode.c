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
	if ((unsigned int) mode >= sizeof(mode_names) / sizeof(mode_names[0])) {
		return "unknown";
	}
	return mode_names[mode];
}

/*
 * One per vm:vcpu_state event that sink.vm.threads reads: the first letter
 * tells the only candidate (the five names start differently), one
 * strcmp() checks it.
 */
bool vm_vcpu_mode_from_name(const char *name, enum vm_vcpu_mode *mode)
{
	enum vm_vcpu_mode candidate;

	if (!name) {
		return false;
	}
	switch (name[0]) {
	case 'u':
		candidate = VM_VCPU_UNKNOWN;
		break;
	case 'g':
		candidate = VM_VCPU_GUEST;
		break;
	case 'h':
		candidate = VM_VCPU_HYPERVISOR;
		break;
	case 'p':
		candidate = VM_VCPU_PREEMPTED;
		break;
	case 'b':
		candidate = VM_VCPU_BLOCKED;
		break;
	default:
		return false;
	}
	if (strcmp(name, mode_names[candidate]) != 0) {
		return false;
	}
	*mode = candidate;
	return true;
}
