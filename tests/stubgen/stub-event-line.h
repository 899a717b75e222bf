/*
 * Event lines of the stub format: `TIMESTAMP CPU NAME [FIELD=VALUE ...]`.
 */

#ifndef VMSTUB_STUB_EVENT_LINE_H
#define VMSTUB_STUB_EVENT_LINE_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "stub-event-def.h"
#include "stub-header.h"
#include "stub-lexer.h"

union stub_value {
	int64_t s;
	uint64_t u;
	const char *str;
	/* a sequence: the text between its brackets, checked ("" when empty) */
	struct {
		const char *text;
		size_t len;
	} seq;
};

/*
 * The elements of a sequence value `[a,b,...]` of element type `type`:
 * appends them to `values` (union stub_value); false on a bad element.
 */
bool stub_sequence_parse(enum stub_field_type type, const char *text, size_t len,
		GArray *values);

/* The NAME of a loss line: `TIMESTAMP CPU !lost COUNT` (stub-traces/README.md). */
#define STUB_LOSS_NAME "!lost"

struct stub_event_line {
	uint64_t ts;
	uint64_t cpu;
	/* NULL for a loss line */
	const struct stub_event_def *def;
	/* A loss line: how many events the CPU's stream lost there (>= 1); else 0. */
	uint64_t lost;
	/* The event context fields (`event-context`), NULL when none. */
	const struct stub_event_def *context;
	/*
	 * union stub_value per payload field, then per context field; strings
	 * point into the lexer
	 */
	GArray *values;
	/* gboolean per payload field, then per context field: given by the line */
	GArray *given;
};

/* Whether the line is an event line (its first non-blank is a digit). */
bool stub_line_is_event(const char *line, size_t len);

/*
 * Reads TIMESTAMP and CPU only (fast scan of a file); false + `error`
 * when they are not unsigned integers.
 */
bool stub_event_line_peek(const char *line, size_t len, uint64_t *ts, uint64_t *cpu,
		GString *error);

void stub_event_line_init(struct stub_event_line *event);
void stub_event_line_fini(struct stub_event_line *event);

/* Parses a split event line or loss line; false + `error` when bad. */
bool stub_event_line_parse(struct stub_event_line *event, const struct stub_lexer *lexer,
		const struct stub_event_table *events, GString *error);

#endif /* VMSTUB_STUB_EVENT_LINE_H */
