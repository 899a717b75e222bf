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

struct stub_scan {
	struct stub_header header;
	uint64_t event_count;
	/* 1 + the highest CPU of an event line (0 without events) */
	uint64_t cpus_seen;
	bool globally_ordered;
};

/* false + `error` (naming file and line) when the file is bad. */
bool stub_scan_file(const char *path, struct stub_scan *scan, GString *error);
void stub_scan_fini(struct stub_scan *scan);

/* The number of per-CPU streams to write. */
uint64_t stub_scan_stream_count(const struct stub_scan *scan);

#endif /* VMSTUB_STUB_SCAN_H */
