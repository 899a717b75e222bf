/* Messages between machines: vmsync exchanges between each guest and the
 * host, and TCP segments (host <-> guests, guest <-> guest) whose
 * inet_sock_local_out / inet_sock_local_in pairs the sync analysis matches. */
#ifndef VM_WORKLOAD_NETWORK_H
#define VM_WORKLOAD_NETWORK_H

#include "model.h"

typedef struct wl_flow {
	int src, dst; /* 0: the host, i: guest i */
	uint64_t sk;
	uint32_t seq;
	uint64_t next_send_ns;
	uint64_t last_arrival_ns; /* segments of a flow arrive in order */
	GQueue in_flight; /* of wl_message */
} wl_flow;

typedef struct wl_message {
	wl_flow *flow;
	uint32_t seq, ack_seq;
	uint8_t flags;
	uint64_t arrival_ns;
} wl_message;

typedef enum { WORK_VMSYNC, WORK_TCP_SEND, WORK_TCP_RECV } wl_work_kind;

/* Something a guest does once one of its vCPUs is in guest mode. */
typedef struct wl_work {
	wl_work_kind kind;
	wl_flow *flow; /* WORK_TCP_SEND */
	wl_message *message; /* WORK_TCP_RECV */
} wl_work;

void wl_network_init(wl_sim *sim);
void wl_network_clear(wl_sim *sim);
uint64_t wl_network_next_ns(wl_sim *sim);
void wl_network_step(wl_sim *sim);
/* Does WORK on VCPU (in guest mode) and frees it. */
void wl_work_run(wl_sim *sim, wl_vcpu *vcpu, wl_work *work);
void wl_work_free(gpointer work);
/* A host segment nobody receives: a harmless last event for the run. */
void wl_network_final_send(wl_sim *sim);

#endif
