#ifndef VM_TEST_VCPU_HARNESS_H
#define VM_TEST_VCPU_HARNESS_H

/*
 * Drives a vCPU tracker with hand-written plain events and records what it
 * calls back: the release order, the mode changes, the warnings. Checks that
 * the output is in input order and in time order, and turns mode changes
 * into intervals to compare with expected ones.
 */

#include <glib.h>

#include "event.h"
#include "model/model.h"
#include "vcpu/tracker.h"

struct harness {
	struct vm_model *model;
	struct vm_vcpu_tracker *tracker;
	/* What the tracker called back, in order: struct output_item. */
	GArray *outputs;
	/* struct vm_vcpu_change */
	GArray *changes;
	/* struct warning_item */
	GArray *warnings;
	GPtrArray *messages;
	/* Timestamps of the inputs pushed, by cookie - 1. */
	GArray *input_ts;
	int64_t last_ts;
	uint64_t max_held;
};

struct output_item {
	bool is_change;
	guint index; /* input index (release) or index in changes */
};

struct warning_item {
	enum vm_vcpu_warning kind;
	unsigned int machine;
};

struct expected_interval {
	const char *mode;
	int64_t begin;
	int64_t end;
	int64_t exit_reason; /* -1: none */
};

/* A harness on `cls` (the KVM model if NULL), default or given limits. */
struct harness *harness_new(const struct vm_model_class *cls,
		const struct vm_vcpu_limits *limits);
void harness_free(struct harness *h);

void harness_push(struct harness *h, const struct vm_event *event);
/* An input that is not an event (a packet boundary, say). */
void harness_push_other(struct harness *h);
void harness_flush(struct harness *h);

/* Number of warnings of that kind and machine. */
unsigned int harness_warnings(const struct harness *h,
		enum vm_vcpu_warning kind, unsigned int machine);

/*
 * Fails the test unless the changes of (vm, vcpu) give exactly `expected`
 * (intervals where the mode is not unknown, the last one ending at the last
 * input's time). Also checks release and time order.
 */
void harness_check_intervals(const struct harness *h, unsigned int vm,
		uint64_t vcpu, const struct expected_interval *expected,
		size_t count);

/* Number of changes reported for (vm, vcpu) (any mode). */
unsigned int harness_change_count(const struct harness *h, unsigned int vm,
		uint64_t vcpu);

/* Event builders. */
struct vm_event ev_switch(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t prev_tid, int64_t prev_state, int64_t next_tid);
struct vm_event ev_entry(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t vcpu_id);
struct vm_event ev_exit(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t exit_reason);
/* A kvm exit that carries the vCPU number (lttng-modules >= 2.13, Linux >= 5.10). */
struct vm_event ev_exit_id(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t exit_reason, int64_t vcpu_id);
struct vm_event ev_vmsync(enum vm_event_kind kind, unsigned int machine,
		int64_t ts, int64_t cpu, int64_t cnt, int64_t vm_uid);
struct vm_event ev_statedump(unsigned int machine, int64_t ts, int64_t tid,
		int64_t pid);
/* A state dump entry of a thread named `name` (static storage). */
struct vm_event ev_statedump_named(unsigned int machine, int64_t ts, int64_t tid,
		int64_t pid, const char *name);
struct vm_event ev_wakeup(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t tid);
struct vm_event ev_thread_exit(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t tid);
/* A located gap on CPU `cpu`: nothing recorded in [ts, end], `count` lost. */
struct vm_event ev_loss(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t end, int64_t count);

#endif /* VM_TEST_VCPU_HARNESS_H */
