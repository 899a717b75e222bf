/* Work a guest does on whichever of its vCPUs is next in guest mode:
 * starting a vmsync exchange, sending or receiving a TCP segment. */
#ifndef VM_WORKLOAD_GUEST_WORK_H
#define VM_WORKLOAD_GUEST_WORK_H

#include "model.h"
#include "tcp.h"

typedef enum { WORK_VMSYNC, WORK_TCP_SEND, WORK_TCP_RECV } wl_work_kind;

typedef struct wl_work {
	wl_work_kind kind;
	wl_flow *flow; /* WORK_TCP_SEND */
	wl_message *message; /* WORK_TCP_RECV */
} wl_work;

/* Queues work; a device interrupt wakes a halted vCPU if none runs. */
void wl_work_push(wl_sim *sim, wl_guest *guest, wl_work_kind kind, wl_flow *flow,
		  wl_message *message);
/* Does the guest's oldest work on VCPU (in guest mode). */
void wl_work_run_next(wl_sim *sim, wl_vcpu *vcpu);
void wl_work_free(gpointer work);

#endif
