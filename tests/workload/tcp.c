#include "tcp.h"

#include "emit.h"
#include "guest-work.h"

enum {
	TCP_FLAG_ACK = 0x10,
	TCP_FLAG_PSH = 0x08,
	MAX_SEGMENT = 1448,
	/* Queueing and virtio notification on top of the minimum latency. */
	TCP_JITTER_NS = 20000,
};

#define TCP_FORMAT "sk=0x%" G_GINT64_MODIFIER "x seq=%u ack_seq=%u flags=%u"

static wl_guest *guest_at(wl_sim *sim, int machine)
{
	return g_ptr_array_index(sim->guests, machine - 1);
}

static uint64_t jittered_period(wl_sim *sim, uint64_t period)
{
	return wl_rng_range(&sim->rng, period - period / 4, period + period / 4);
}

static void add_flow(wl_sim *sim, int src, int dst)
{
	wl_flow *flow = g_new0(wl_flow, 1);

	flow->src = src;
	flow->dst = dst;
	flow->sk = UINT64_C(0xffff888000000000) | (wl_rng_next(&sim->rng) & 0xffffffc0);
	flow->seq = (uint32_t)wl_rng_next(&sim->rng);
	flow->next_send_ns = sim->now + jittered_period(sim, sim->opt.tcp_period_ns);
	g_queue_init(&flow->in_flight);
	g_ptr_array_add(sim->flows, flow);
}

static void free_flow(gpointer data)
{
	wl_flow *flow = data;

	g_queue_clear_full(&flow->in_flight, g_free);
	g_free(flow);
}

void wl_tcp_init(wl_sim *sim)
{
	int machines = (int)sim->guests->len + 1;

	sim->flows = g_ptr_array_new_with_free_func(free_flow);
	sim->tcp_keys = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	if (!sim->opt.tcp_period_ns)
		return;
	for (int src = 0; src < machines; src++)
		for (int dst = 0; dst < machines; dst++)
			if (src != dst)
				add_flow(sim, src, dst);
}

void wl_tcp_clear(wl_sim *sim)
{
	if (sim->flows)
		g_ptr_array_unref(sim->flows);
	if (sim->tcp_keys)
		g_hash_table_unref(sim->tcp_keys);
	sim->flows = NULL;
	sim->tcp_keys = NULL;
}

/* The (seq, ack_seq) of a new segment, never used before in the run. */
static wl_message *new_message(wl_sim *sim, wl_flow *flow)
{
	wl_message *message = g_new0(wl_message, 1);
	gint64 key;

	message->flow = flow;
	message->ack_seq = (uint32_t)wl_rng_next(&sim->rng);
	message->flags = wl_rng_chance(&sim->rng, 700) ? TCP_FLAG_ACK | TCP_FLAG_PSH : TCP_FLAG_ACK;
	for (;;) {
		key = (gint64)(((uint64_t)flow->seq << 32) | message->ack_seq);
		if (!g_hash_table_contains(sim->tcp_keys, &key))
			break;
		flow->seq++;
	}
	gint64 *stored = g_new(gint64, 1);

	*stored = key;
	g_hash_table_add(sim->tcp_keys, stored);
	message->seq = flow->seq;
	flow->seq += (uint32_t)wl_rng_range(&sim->rng, 1, MAX_SEGMENT);
	return message;
}

static int random_host_cpu(wl_sim *sim)
{
	return (int)wl_rng_range(&sim->rng, 0, sim->cpus->len - 1);
}

void wl_tcp_send(wl_sim *sim, wl_flow *flow, wl_vcpu *guest_vcpu)
{
	wl_message *message = new_message(sim, flow);

	if (guest_vcpu)
		wl_guest_emit(sim, guest_vcpu, "inet_sock_local_out", TCP_FORMAT, (guint64)flow->sk,
			      message->seq, message->ack_seq, message->flags);
	else
		wl_host_emit(sim, random_host_cpu(sim), "inet_sock_local_out", TCP_FORMAT,
			     (guint64)flow->sk, message->seq, message->ack_seq, message->flags);
	uint64_t earliest_arrival = sim->last_event_ns + sim->opt.latency_ns +
				    wl_rng_range(&sim->rng, 0, TCP_JITTER_NS);

	message->arrival_ns = MAX(flow->last_arrival_ns, earliest_arrival);
	flow->last_arrival_ns = message->arrival_ns;
	g_queue_push_tail(&flow->in_flight, message);
}

void wl_tcp_receive(wl_sim *sim, wl_message *message, wl_vcpu *guest_vcpu)
{
	/* The receiver's socket, seen from its side, is another sk. */
	guint64 sk = (guint64)(message->flow->sk ^ 0x1000);

	if (guest_vcpu)
		wl_guest_emit(sim, guest_vcpu, "inet_sock_local_in", TCP_FORMAT, sk, message->seq,
			      message->ack_seq, message->flags);
	else
		wl_host_emit(sim, random_host_cpu(sim), "inet_sock_local_in", TCP_FORMAT, sk,
			     message->seq, message->ack_seq, message->flags);
	g_free(message);
}

typedef enum { DUE_NONE, DUE_SEND, DUE_ARRIVAL } due_kind;

typedef struct due {
	due_kind kind;
	uint64_t when;
	guint index;
} due;

static void consider(due *best, due_kind kind, uint64_t when, guint index)
{
	if (when < best->when) {
		best->kind = kind;
		best->when = when;
		best->index = index;
	}
}

static due earliest(wl_sim *sim)
{
	due best = { DUE_NONE, NEVER, 0 };

	for (guint i = 0; i < sim->flows->len; i++) {
		wl_flow *flow = g_ptr_array_index(sim->flows, i);
		wl_message *head = g_queue_peek_head(&flow->in_flight);

		consider(&best, DUE_SEND, flow->next_send_ns, i);
		if (head)
			consider(&best, DUE_ARRIVAL, head->arrival_ns, i);
	}
	return best;
}

uint64_t wl_tcp_next_ns(wl_sim *sim)
{
	return earliest(sim).when;
}

static void flow_send_due(wl_sim *sim, wl_flow *flow)
{
	flow->next_send_ns = sim->now + jittered_period(sim, sim->opt.tcp_period_ns);
	if (flow->src == 0)
		wl_tcp_send(sim, flow, NULL);
	else
		wl_work_push(sim, guest_at(sim, flow->src), WORK_TCP_SEND, flow, NULL);
}

static void flow_arrival_due(wl_sim *sim, wl_flow *flow)
{
	wl_message *message = g_queue_pop_head(&flow->in_flight);

	if (flow->dst == 0)
		wl_tcp_receive(sim, message, NULL);
	else
		wl_work_push(sim, guest_at(sim, flow->dst), WORK_TCP_RECV, NULL, message);
}

void wl_tcp_step(wl_sim *sim)
{
	due next = earliest(sim);

	switch (next.kind) {
	case DUE_SEND:
		flow_send_due(sim, g_ptr_array_index(sim->flows, next.index));
		break;
	case DUE_ARRIVAL:
		flow_arrival_due(sim, g_ptr_array_index(sim->flows, next.index));
		break;
	case DUE_NONE:
		break;
	}
}

void wl_tcp_final_send(wl_sim *sim)
{
	wl_flow flow = { .sk = UINT64_C(0xffff888000fff000), .seq = 1 };

	g_queue_init(&flow.in_flight);
	wl_tcp_send(sim, &flow, NULL);
	g_queue_clear_full(&flow.in_flight, g_free);
}
