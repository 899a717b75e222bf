/*
 * First pass over a stub file.
 */

#include "stub-scan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stub-event-line.h"

struct scan_state {
	const char *path;
	struct stub_scan *scan;
	struct stub_lexer lexer;
	/* Every event line is parsed here, so that bad lines fail at init. */
	struct stub_event_line event;
	GString *detail;
	/* uint64_t per CPU: last timestamp, and its line (0: none yet) */
	GArray *last_ts;
	GArray *last_line;
	/* uint64_t per CPU: its event lines so far */
	GArray *cpu_events;
	uint64_t global_last_ts;
	/* event and loss lines so far */
	uint64_t lines;
};

static GArray *cpu_losses(struct stub_scan *scan, uint64_t cpu)
{
	if (cpu >= scan->losses->len) {
		g_ptr_array_set_size(scan->losses, (guint) cpu + 1);
	}
	if (!g_ptr_array_index(scan->losses, cpu)) {
		g_ptr_array_index(scan->losses, cpu) =
			g_array_new(FALSE, FALSE, sizeof(struct stub_loss));
	}
	return g_ptr_array_index(scan->losses, cpu);
}

/* The CPU's last loss, when no event of the CPU followed it yet. */
static struct stub_loss *open_loss(struct stub_scan *scan, uint64_t cpu)
{
	GArray *losses = cpu < scan->losses->len ? g_ptr_array_index(scan->losses, cpu) : NULL;
	struct stub_loss *last;

	if (!losses || losses->len == 0) {
		return NULL;
	}
	last = &g_array_index(losses, struct stub_loss, losses->len - 1);
	return last->next_event_ts == STUB_LOSS_AT_END ? last : NULL;
}

static void record_loss(struct scan_state *state, uint64_t cpu, uint64_t ts, uint64_t count)
{
	struct stub_loss *last = open_loss(state->scan, cpu);
	struct stub_loss loss = {
		.ordinal = g_array_index(state->cpu_events, uint64_t, cpu),
		.count = count,
		.line_ts = ts,
		.next_event_ts = STUB_LOSS_AT_END,
	};

	if (last) {
		/* Saturated: a count is a uint64_t in the CTF packet context too. */
		last->count = last->count > UINT64_MAX - count ? UINT64_MAX : last->count + count;
		return;
	}
	g_array_append_val(cpu_losses(state->scan, cpu), loss);
}

static void record_event(struct scan_state *state, uint64_t cpu, uint64_t ts)
{
	struct stub_loss *last = open_loss(state->scan, cpu);

	if (last) {
		last->next_event_ts = ts;
	}
	g_array_index(state->cpu_events, uint64_t, cpu)++;
}

static bool scan_directive(struct scan_state *state, const char *line, size_t len)
{
	if (!stub_lexer_split(&state->lexer, line, len, state->detail)) {
		return false;
	}
	if (stub_lexer_count(&state->lexer) == 0) {
		return true;
	}
	if (state->lines > 0) {
		g_string_printf(state->detail, "directive `%s` after an event line: "
			"directives must all come before the first event line",
			stub_lexer_token(&state->lexer, 0));
		return false;
	}
	return stub_header_apply(&state->scan->header, &state->lexer, state->detail);
}

static bool scan_event(struct scan_state *state, const char *line, size_t len, uint64_t line_no)
{
	uint64_t ts, cpu;
	struct stub_scan *scan = state->scan;

	if (!stub_lexer_split(&state->lexer, line, len, state->detail) ||
			!stub_event_line_parse(&state->event, &state->lexer, scan->header.events,
				state->detail)) {
		return false;
	}
	ts = state->event.ts;
	cpu = state->event.cpu;
	if (scan->header.cpus && cpu >= scan->header.cpus) {
		g_string_printf(state->detail, "CPU %" PRIu64 " is out of range: `cpus %" PRIu64
			"` accepts 0 to %" PRIu64, cpu, scan->header.cpus, scan->header.cpus - 1);
		return false;
	}
	if (cpu >= state->last_ts->len) {
		g_array_set_size(state->last_ts, (guint) cpu + 1);
		g_array_set_size(state->last_line, (guint) cpu + 1);
		g_array_set_size(state->cpu_events, (guint) cpu + 1);
	}
	if (g_array_index(state->last_line, uint64_t, cpu) &&
			ts < g_array_index(state->last_ts, uint64_t, cpu)) {
		g_string_printf(state->detail, "timestamp %" PRIu64 " of CPU %" PRIu64
			" is before %" PRIu64 " (line %" PRIu64 "): the lines of one CPU must have "
			"non-decreasing timestamps", ts, cpu, g_array_index(state->last_ts, uint64_t, cpu),
			g_array_index(state->last_line, uint64_t, cpu));
		return false;
	}
	if (state->lines > 0 && ts < state->global_last_ts) {
		scan->globally_ordered = false;
	}
	state->lines++;
	state->global_last_ts = MAX(state->global_last_ts, ts);
	scan->last_ts = state->global_last_ts;
	g_array_index(state->last_ts, uint64_t, cpu) = ts;
	g_array_index(state->last_line, uint64_t, cpu) = line_no;
	scan->cpus_seen = MAX(scan->cpus_seen, cpu + 1);
	if (state->event.lost) {
		record_loss(state, cpu, ts, state->event.lost);
		return true;
	}
	record_event(state, cpu, ts);
	scan->event_count++;
	return true;
}

static bool scan_lines(struct scan_state *state, FILE *file, GString *error)
{
	char *line = NULL;
	size_t capacity = 0;
	ssize_t len;
	uint64_t line_no = 0;
	bool ok = true;

	while (ok && (len = getline(&line, &capacity, file)) >= 0) {
		line_no++;
		if (stub_line_is_event(line, (size_t) len)) {
			ok = scan_event(state, line, (size_t) len, line_no);
		} else {
			ok = scan_directive(state, line, (size_t) len);
		}
		if (!ok) {
			g_string_printf(error, "%s:%" PRIu64 ": %s", state->path, line_no,
				state->detail->str);
		}
	}
	if (ok && !stub_header_check(&state->scan->header, state->detail)) {
		g_string_printf(error, "%s: %s", state->path, state->detail->str);
		ok = false;
	}
	if (ok && ferror(file)) {
		g_string_printf(error, "%s: cannot read: %s", state->path, g_strerror(errno));
		ok = false;
	}
	free(line);
	return ok;
}

static void free_losses(gpointer data)
{
	if (data) {
		g_array_free(data, TRUE);
	}
}

bool stub_scan_file(const char *path, struct stub_scan *scan, GString *error)
{
	struct scan_state state = { .path = path, .scan = scan };
	FILE *file;
	bool ok;

	memset(scan, 0, sizeof(*scan));
	stub_header_init(&scan->header, path);
	scan->globally_ordered = true;
	scan->losses = g_ptr_array_new_with_free_func(free_losses);
	file = fopen(path, "r");
	if (!file) {
		g_string_printf(error, "%s: cannot open the stub file: %s", path, g_strerror(errno));
		return false;
	}
	stub_lexer_init(&state.lexer);
	stub_event_line_init(&state.event);
	state.detail = g_string_new(NULL);
	state.last_ts = g_array_new(FALSE, TRUE, sizeof(uint64_t));
	state.last_line = g_array_new(FALSE, TRUE, sizeof(uint64_t));
	state.cpu_events = g_array_new(FALSE, TRUE, sizeof(uint64_t));
	ok = scan_lines(&state, file, error);
	g_array_free(state.last_ts, TRUE);
	g_array_free(state.last_line, TRUE);
	g_array_free(state.cpu_events, TRUE);
	g_string_free(state.detail, TRUE);
	stub_event_line_fini(&state.event);
	stub_lexer_fini(&state.lexer);
	fclose(file);
	return ok;
}

void stub_scan_fini(struct stub_scan *scan)
{
	stub_header_fini(&scan->header);
	if (scan->losses) {
		g_ptr_array_free(scan->losses, TRUE);
		scan->losses = NULL;
	}
}

const GArray *stub_scan_losses(const struct stub_scan *scan, uint64_t cpu)
{
	return scan->losses && cpu < scan->losses->len ?
		g_ptr_array_index(scan->losses, cpu) : NULL;
}

uint64_t stub_scan_stream_count(const struct stub_scan *scan)
{
	if (scan->header.cpus) {
		return scan->header.cpus;
	}
	/* An LTTng trace always has at least one stream. */
	return MAX(scan->cpus_seen, 1);
}
