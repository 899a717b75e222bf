/* The ground-truth history of one guest thread or vCPU: half-open
 * intervals [begin, end) in true (host) time, consecutive identical ones
 * merged, as SPEC.md's sink.vm.threads defines them. */
#ifndef VM_WORKLOAD_TRUTH_TRACK_H
#define VM_WORKLOAD_TRUTH_TRACK_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* What an interval says; -1 in a field means "empty" in the CSV. */
typedef struct wl_truth_value {
	int32_t state;
	int32_t vcpu;
	int32_t reason;
	int32_t host_tid;
	int32_t pcpu;
} wl_truth_value;

typedef struct wl_truth_interval {
	wl_truth_value value;
	uint64_t begin_ns;
	uint64_t end_ns;
} wl_truth_interval;

typedef struct wl_truth_track {
	GArray *closed; /* of wl_truth_interval */
	wl_truth_interval open;
	bool is_open;
} wl_truth_track;

bool wl_truth_value_equal(const wl_truth_value *a, const wl_truth_value *b);
void wl_truth_track_init(wl_truth_track *track);
void wl_truth_track_clear(wl_truth_track *track);
/* From NOW on the value is VALUE (a no-op when it already is). */
void wl_truth_track_set(wl_truth_track *track, uint64_t now, const wl_truth_value *value);
/* Ends the open interval at END (the last event of the whole run). */
void wl_truth_track_finish(wl_truth_track *track, uint64_t end);

#endif
