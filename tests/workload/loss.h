/* Lost events (--loss-rate): now and then a stream (one CPU of one machine)
 * stops recording for a while, as LTTng does in discard mode when a buffer
 * is full. The simulation goes on (the truth is the real state); only the
 * stub misses the events, and says so with a loss line when the stream
 * records again. Losses draw from a random generator of their own, so the
 * simulation and its truth are the same with or without them.
 *
 * The module also logs, when losses are on, the events that decide thread
 * states and vCPU modes (recorded or not), from which loss-truth.c tells
 * which windows of the truth the lost events can affect. */
#ifndef VM_WORKLOAD_LOSS_H
#define VM_WORKLOAD_LOSS_H

#include "model.h"

/* Machine index of the host; a guest's is its index (1-based). */
#define LOSS_HOST 0

/* One loss: a gap of one stream that lost at least one event. */
typedef struct wl_gap {
	int machine;
	int cpu;
	/* When the stream stopped and would have recorded again (true time). */
	uint64_t start_ns, end_ns;
	/* True times of the stream's last recorded event before the gap and of
	 * its first one after it (the end of the trace when none follows). */
	uint64_t last_before_ns, first_after_ns;
	uint64_t lost;
	/* Whether the trace says how many were lost: not when the loss closes
	 * the stream's first packet (src.ctf.fs then gives no count). */
	bool counted;
} wl_gap;

typedef enum {
	DECIDE_GUEST_SWITCH, /* a = prev tid, b = next tid */
	DECIDE_GUEST_WAKE, /* a = tid */
	DECIDE_HOST_SWITCH, /* a = prev tid, b = next tid */
	DECIDE_KVM_ENTRY, /* machine = guest, a = host tid, b = vCPU */
	DECIDE_KVM_EXIT, /* the same, c = exit reason */
} wl_decide_kind;

/* An event that decides a state, as the simulation made it. */
typedef struct wl_decision {
	uint64_t ns;
	uint8_t kind; /* wl_decide_kind */
	bool recorded;
	int16_t machine;
	int32_t cpu; /* the stream that records it: host CPU or guest CPU */
	int32_t a, b, c;
} wl_decision;

typedef struct wl_loss_stream {
	uint64_t recorded; /* events written */
	uint64_t last_ns; /* true time of the last one written */
	bool had_loss;
	bool in_gap;
	wl_gap gap; /* valid while in_gap */
} wl_loss_stream;

typedef struct wl_losses {
	wl_rng rng;
	/* per machine: GArray of wl_loss_stream, and the next gap's start */
	GPtrArray *streams;
	GArray *next_ns; /* of uint64_t */
	GArray *gaps; /* of wl_gap, finished, in the order they ended */
	GArray *log; /* of wl_decision, in time order */
	bool stopped;
} wl_losses;

/* Sets up sim->losses when --loss-rate is not 0 (else leaves it NULL). */
void wl_loss_init(wl_sim *sim);
void wl_loss_clear(wl_sim *sim);

/* Whether the event of true time t, on that stream, is recorded; when it
 * ends a gap, first writes the loss line (machine_ns: the event's clock). */
bool wl_loss_record(wl_sim *sim, int machine, int cpu, uint64_t t, uint64_t machine_ns);
/* The same for an event that follows the last one within its time step
 * (emit.h, wl_host_emit_next): gaps due by then start only at the next
 * event, as without it, so that the gaps are the same with or without such
 * events. */
bool wl_loss_record_next(wl_sim *sim, int machine, int cpu, uint64_t t, uint64_t machine_ns);
/* Logs a deciding event (no-op without losses). */
void wl_loss_decided(wl_sim *sim, wl_decide_kind kind, int machine, int cpu, bool recorded,
		     int a, int b, int c);
/* Before the last event of the run: ends every gap (loss lines at the
 * current time) and records everything from now on. */
void wl_loss_finish(wl_sim *sim);

#endif
