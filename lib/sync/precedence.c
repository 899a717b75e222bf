/* One precedence over the synchronization methods (precedence.h). */

#include "sync/precedence.h"

enum vm_sync_source vm_sync_precedence(const struct vm_sync_offer *offer)
{
	if (offer->vmsync && offer->vmsync_line) {
		return VM_SYNC_SOURCE_VMSYNC;
	}

	if (offer->vcpu) {
		return VM_SYNC_SOURCE_VCPU;
	}

	/* vmsync through another machine comes before TCP with the reference. */
	if (offer->tcp && offer->vmsync_elsewhere) {
		return VM_SYNC_SOURCE_WAIT;
	}

	/* SPEC: a guest that the vCPU method may synchronize is tried by it before TCP. */
	if (offer->vcpu_pending && (offer->tcp || offer->vmsync)) {
		return VM_SYNC_SOURCE_WAIT;
	}

	if (offer->tcp && (offer->tcp_line || !offer->vmsync)) {
		return VM_SYNC_SOURCE_TCP;
	}

	if (offer->vmsync) {
		return VM_SYNC_SOURCE_VMSYNC;
	}

	return offer->vcpu_pending ? VM_SYNC_SOURCE_WAIT : VM_SYNC_SOURCE_NONE;
}

const char *vm_sync_source_name(enum vm_sync_source source)
{
	switch (source) {
	case VM_SYNC_SOURCE_VMSYNC:
		return "vmsync";
	case VM_SYNC_SOURCE_VCPU:
		return "vcpu";
	case VM_SYNC_SOURCE_TCP:
		return "tcp";
	default:
		return "none";
	}
}
