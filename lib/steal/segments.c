#include "steal/segments.h"

bool vm_steal_key_equal(const struct vm_steal_key *a, const struct vm_steal_key *b)
{
	return a->victim_tid == b->victim_tid && a->victim_comm == b->victim_comm &&
		a->pcpu == b->pcpu && a->culprit_tid == b->culprit_tid &&
		a->culprit_comm == b->culprit_comm;
}

static void emit_held(struct vm_steal_segments *s, vm_steal_emit_cb emit, void *data)
{
	if (s->held_valid) {
		emit(&s->held, s->held_begin, s->held_end, data);
	}
	s->held_valid = false;
}

/* Ends the open row at `ts`; a zero-length one is dropped. */
static void close_open(struct vm_steal_segments *s, int64_t ts, vm_steal_emit_cb emit,
		void *data)
{
	if (!s->open_valid) {
		return;
	}
	s->open_valid = false;
	if (ts <= s->open_begin) {
		return;
	}
	if (s->held_valid && s->held_end == s->open_begin &&
			vm_steal_key_equal(&s->held, &s->open)) {
		s->held_end = ts;
		return;
	}
	emit_held(s, emit, data);
	s->held_valid = true;
	s->held = s->open;
	s->held_begin = s->open_begin;
	s->held_end = ts;
}

void vm_steal_segments_set(struct vm_steal_segments *s, int64_t ts,
		const struct vm_steal_key *key, vm_steal_emit_cb emit, void *data)
{
	if (s->open_valid && ts < s->open_begin) {
		ts = s->open_begin;
	}
	if (s->open_valid && key && vm_steal_key_equal(&s->open, key)) {
		return;
	}
	close_open(s, ts, emit, data);
	if (!key) {
		return;
	}
	s->open_valid = true;
	s->open = *key;
	s->open_begin = ts;
}

void vm_steal_segments_end(struct vm_steal_segments *s, int64_t ts,
		vm_steal_emit_cb emit, void *data)
{
	close_open(s, ts, emit, data);
	emit_held(s, emit, data);
}
