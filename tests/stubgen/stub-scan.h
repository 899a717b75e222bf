/*
 * First pass over a stub file: applies the header directives and parses
 * every event line (timestamps must not go back on one CPU), so that a bad
 * file fails at component initialization, before anything is written, and
 * tells whether the file is globally time-ordered (then it is streamed,
 * else loaded and sorted).
 */

#ifndef VMSTUB_STUB_SCAN_H
#define VMSTUB_STUB_SCAN_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "stub-header.h"

/* Marks the trace's end as a loss's end (no event of its CPU follows it). */
#define STUB_LOSS_AT_END UINT64_MAX

/*
 * Where a CPU's stream lost events (its loss lines; consecutive ones, with
 * no event of the CPU between them, add up): the iterator must know it
 * when it opens the packet that the loss closes, before reaching the line.
 */
struct stub_loss {
	/* Events of the CPU before the loss. */
	uint64_t ordinal;
	uint64_t count;
	/* Time of the loss line (the first one when several add up). */
	uint64_t line_ts;
	/* Time of the CPU's first event after it, or STUB_LOSS_AT_END. */
	uint64_t next_event_ts;
};

struct stub_scan {
	struct stub_header header;
	/* Event lines (loss lines not included). */
	uint64_t event_count;
	/* The largest timestamp of all lines (0 without lines). */
	uint64_t last_ts;
	/* Per CPU (index), a GArray of struct stub_loss, in order; NULL: none. */
	GPtrArray *losses;
	/* 1 + the highest CPU of an event line (0 without events) */
	uint64_t cpus_seen;
	bool globally_ordered;
};

/* false + `error` (naming file and line) when the file is bad. */
bool stub_scan_file(const char *path, struct stub_scan *scan, GString *error);
void stub_scan_fini(struct stub_scan *scan);

/* The losses of one CPU's stream (NULL: none). */
const GArray *stub_scan_losses(const struct stub_scan *scan, uint64_t cpu);

/* The number of per-CPU streams to write. */
uint64_t stub_scan_stream_count(const struct stub_scan *scan);

#endif /* VMSTUB_STUB_SCAN_H */
