#include "steal/culprit.h"

const char *vm_steal_culprit_kind_name(enum vm_steal_culprit_kind kind)
{
	switch (kind) {
	case VM_STEAL_CULPRIT_IDLE:
		return "idle";
	case VM_STEAL_CULPRIT_HOST:
		return "host";
	case VM_STEAL_CULPRIT_VMM:
		return "vmm";
	case VM_STEAL_CULPRIT_VCPU:
		return "vcpu";
	case VM_STEAL_CULPRIT_UNKNOWN:
		break;
	}
	return "unknown";
}
