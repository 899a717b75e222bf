#ifndef VM_SYNC_PRECEDENCE_H
#define VM_SYNC_PRECEDENCE_H

/*
 * Which synchronization method a machine's map comes from, when several
 * offer one: one precedence for both of correlate's strategies (the sync
 * pass's choice and read once's). vmsync with matches both ways first (the
 * hypervisor's own messages, microseconds apart); then the vCPU method
 * (the guest runs on the host's CPUs: no network latency); then TCP; then
 * vmsync matches that all go one way (no line: the machine keeps its own
 * clock, warned).
 */

#include <stdbool.h>

/* What can synchronize one machine with the reference. */
struct vm_sync_offer {
	bool vmsync;          /* vmsync matches (directly, or through other machines) */
	bool vmsync_line;     /* ... in both directions: a line */
	bool vcpu;            /* a vCPU fit */
	bool vcpu_pending;    /* read once: the vCPU method is still being tried */
	bool tcp;             /* TCP matches */
	bool tcp_line;        /* ... in both directions */
	/*
	 * Read once: vmsync reaches it only through another machine, which
	 * only a sync pass composes, and a sync pass can still take over.
	 */
	bool vmsync_elsewhere;
};

enum vm_sync_source {
	VM_SYNC_SOURCE_NONE,
	VM_SYNC_SOURCE_VMSYNC,
	VM_SYNC_SOURCE_VCPU,
	VM_SYNC_SOURCE_TCP,
	/* Read once: wait (the vCPU method, or the sync pass, may do better). */
	VM_SYNC_SOURCE_WAIT,
};

enum vm_sync_source vm_sync_precedence(const struct vm_sync_offer *offer);

/* "vmsync", "vcpu", "tcp"; "none" for NONE and WAIT. */
const char *vm_sync_source_name(enum vm_sync_source source);

#endif /* VM_SYNC_PRECEDENCE_H */
