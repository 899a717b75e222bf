/*
 * Header directives of the stub format (stub-traces/README.md): what the
 * trace looks like (hostname, clock, tracer, CPUs, packets) and the events
 * it may hold.
 */

#ifndef VMSTUB_STUB_HEADER_H
#define VMSTUB_STUB_HEADER_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "stub-event-def.h"
#include "stub-lexer.h"

/* Above this, a CPU number is a typo rather than a machine. */
#define STUB_MAX_CPUS 4096

struct stub_header {
	char *hostname;
	int64_t clock_offset_s;
	int64_t clock_offset_ns;
	bool has_clock_uuid;
	uint8_t clock_uuid[16];
	/* env `tracer_name`; only a non-LTTng name allows `clock none` */
	char *tracer_name;
	int64_t tracer_major;
	int64_t tracer_minor;
	/* 0: one stream per CPU up to the highest CPU of an event line */
	uint64_t cpus;
	uint64_t packet_size;
	/* false: the stream class has no clock class (`clock none`) */
	bool has_clock;
	/* Each packet but a stream's last ends this much after its next packet begins. */
	uint64_t packet_end_overlap_ns;
	struct stub_event_table *events;
};

/* Defaults of every directive; hostname is derived from the file name. */
void stub_header_init(struct stub_header *header, const char *path);
void stub_header_fini(struct stub_header *header);

/* Applies one directive line (already split); false + `error` when bad. */
bool stub_header_apply(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error);

/*
 * Checks the directives together once the header is complete; false +
 * `error` when they contradict each other.
 */
bool stub_header_check(const struct stub_header *header, GString *error);

/* The clock UUID: given, or derived from the hostname. */
void stub_header_clock_uuid(const struct stub_header *header, uint8_t uuid[16]);

#endif /* VMSTUB_STUB_HEADER_H */
