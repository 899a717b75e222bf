/* TCP segments between machines (host <-> each guest, guest <-> guest,
 * both directions): inet_sock_local_out on the sender, inet_sock_local_in on
 * the receiver at least the minimum latency later, keys never reused. */
#ifndef VM_WORKLOAD_TCP_H
#define VM_WORKLOAD_TCP_H

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

void wl_tcp_init(wl_sim *sim);
void wl_tcp_clear(wl_sim *sim);
uint64_t wl_tcp_next_ns(wl_sim *sim);
/* The earliest send or arrival. */
void wl_tcp_step(wl_sim *sim);
/* Writes the segment's inet_sock_local_out (on GUEST_VCPU, in guest mode,
 * or on a host CPU when NULL) and puts it in flight. */
void wl_tcp_send(wl_sim *sim, wl_flow *flow, wl_vcpu *guest_vcpu);
/* Writes inet_sock_local_in for the segment and frees it. */
void wl_tcp_receive(wl_sim *sim, wl_message *message, wl_vcpu *guest_vcpu);
/* A host segment nobody receives (in flight when tracing stops): a last
 * event for the run that changes no state. */
void wl_tcp_final_send(wl_sim *sim);

#endif
