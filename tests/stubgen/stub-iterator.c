/*
 * Message iterator of source.vmstub.stub: emits the stub's event lines in
 * global time order, each CPU in its own stream, cut in packets of at most
 * `packet-size` events.
 */

#include "stub-source.h"

#include <inttypes.h>

#include "stub-event-line.h"
#include "stub-net-layout.h"
#include "stub-reader.h"

#define ITER_ERROR(iter, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR((iter)->self, __VA_ARGS__)

struct cpu_stream {
	bt_stream *stream;
	/* The open packet, or NULL. */
	bt_packet *packet;
	uint64_t packet_events;
	bool had_packet;
	/* Event lines of this CPU so far. */
	uint64_t events;
	/* The CPU's losses (stub_scan_losses(), NULL: none) and the next one. */
	const GArray *losses;
	guint next_loss;
	/* The open packet is the one the next loss closes. */
	bool closed_by_loss;
};

enum iterator_phase {
	PHASE_START,
	PHASE_EVENTS,
	PHASE_ENDED,
};

struct stub_iterator {
	struct stub_source *source;
	bt_self_message_iterator *self;
	bt_trace *trace;
	/* struct cpu_stream, indexed by CPU */
	GArray *cpus;
	struct stub_reader *reader;
	struct stub_lexer lexer;
	struct stub_event_line event;
	/* Built messages not yet handed downstream (bt_message *). */
	GQueue *pending;
	enum iterator_phase phase;
	uint64_t last_ts;
	/* Set when an error happened after messages were already handed out. */
	bool failed;
	GString *error;
};

static void clear_cpu_stream(gpointer data)
{
	struct cpu_stream *cpu = data;

	bt_packet_put_ref(cpu->packet);
	bt_stream_put_ref(cpu->stream);
}

static void destroy_iterator(struct stub_iterator *iter)
{
	if (!iter) {
		return;
	}
	if (iter->pending) {
		g_queue_free_full(iter->pending, (GDestroyNotify) bt_message_put_ref);
	}
	if (iter->cpus) {
		g_array_free(iter->cpus, TRUE);
	}
	bt_trace_put_ref(iter->trace);
	stub_reader_close(iter->reader);
	stub_lexer_fini(&iter->lexer);
	stub_event_line_fini(&iter->event);
	g_string_free(iter->error, TRUE);
	g_free(iter);
}

static bool create_streams(struct stub_iterator *iter)
{
	uint64_t count = stub_scan_stream_count(&iter->source->scan);

	iter->cpus = g_array_sized_new(FALSE, TRUE, sizeof(struct cpu_stream), (guint) count);
	g_array_set_clear_func(iter->cpus, clear_cpu_stream);
	g_array_set_size(iter->cpus, (guint) count);
	for (uint64_t cpu = 0; cpu < count; cpu++) {
		struct cpu_stream *stream = &g_array_index(iter->cpus, struct cpu_stream, cpu);

		stream->stream = stub_cpu_stream_create(&iter->source->classes, iter->trace, cpu);
		stream->losses = stub_scan_losses(&iter->source->scan, cpu);
		if (!stream->stream) {
			return false;
		}
	}
	return true;
}

bt_message_iterator_class_initialize_method_status stub_iterator_init(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *config __attribute__((unused)),
		bt_self_component_port_output *self_port __attribute__((unused)))
{
	struct stub_iterator *iter = g_new0(struct stub_iterator, 1);

	iter->self = self_msg_iter;
	iter->source = bt_self_component_get_data(
		bt_self_message_iterator_borrow_component(self_msg_iter));
	iter->error = g_string_new(NULL);
	iter->pending = g_queue_new();
	stub_lexer_init(&iter->lexer);
	stub_event_line_init(&iter->event);
	iter->trace = stub_trace_create(&iter->source->classes, &iter->source->scan.header);
	if (!iter->trace || !create_streams(iter)) {
		ITER_ERROR(iter, "Cannot create the trace and streams of %s (out of memory?).",
			iter->source->path);
		goto error;
	}
	iter->reader = stub_reader_open(iter->source->path, iter->source->scan.globally_ordered,
		iter->error);
	if (!iter->reader) {
		ITER_ERROR(iter, "%s", iter->error->str);
		goto error;
	}
	bt_self_message_iterator_set_data(self_msg_iter, iter);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;

error:
	destroy_iterator(iter);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void stub_iterator_finalize(bt_self_message_iterator *self_msg_iter)
{
	destroy_iterator(bt_self_message_iterator_get_data(self_msg_iter));
}

static bool has_clock(const struct stub_iterator *iter)
{
	return iter->source->classes.clock_class != NULL;
}

static bool push(struct stub_iterator *iter, bt_message *msg)
{
	if (!msg) {
		g_string_assign(iter->error, "Cannot create a message (out of memory?).");
		return false;
	}
	g_queue_push_tail(iter->pending, msg);
	return true;
}

static bool push_stream_beginnings(struct stub_iterator *iter)
{
	for (guint cpu = 0; cpu < iter->cpus->len; cpu++) {
		bt_stream *stream = g_array_index(iter->cpus, struct cpu_stream, cpu).stream;

		if (!push(iter, bt_message_stream_beginning_create(iter->self, stream))) {
			return false;
		}
	}
	return true;
}

static const struct stub_loss *next_loss(const struct cpu_stream *cpu)
{
	return cpu->losses && cpu->next_loss < cpu->losses->len ?
		&g_array_index(cpu->losses, struct stub_loss, cpu->next_loss) : NULL;
}

/*
 * Whether the next loss closes the packet that opens now: it comes before
 * that packet is full, or right after its last event (a full packet stays
 * open when its buffer overflows).
 */
static bool next_packet_closed_by_loss(const struct stub_iterator *iter,
		const struct cpu_stream *cpu)
{
	const struct stub_loss *loss = next_loss(cpu);

	return loss && loss->ordinal <= cpu->events + iter->source->scan.header.packet_size;
}

/*
 * End time of the packet that a loss closes: the time of the CPU's first
 * event after the loss (the event itself goes in the next packet), like
 * lttng-modules' packet switch, or the trace's end when none follows.
 */
static uint64_t loss_packet_end(const struct stub_iterator *iter, const struct stub_loss *loss)
{
	if (loss->next_event_ts == STUB_LOSS_AT_END) {
		return iter->source->scan.last_ts;
	}
	return loss->next_event_ts + iter->source->scan.header.packet_end_overlap_ns;
}

/*
 * The discarded-events message of the next loss, as src.ctf.fs makes it
 * from the `events_discarded` counter of the packet that the loss closes:
 * from the end of the packet before (`begin`) to the end of that packet,
 * with the count; before a stream's first packet, the packet's own time
 * range and no count (src.ctf.fs cannot tell how many were lost before it).
 * sink.ctf.fs accepts exactly this between two packets.
 */
static bool push_discarded(struct stub_iterator *iter, struct cpu_stream *cpu, uint64_t begin,
		bool with_count)
{
	const struct stub_loss *loss = next_loss(cpu);
	bt_message *msg = has_clock(iter) ?
		bt_message_discarded_events_create_with_default_clock_snapshots(iter->self,
			cpu->stream, begin, loss_packet_end(iter, loss)) :
		bt_message_discarded_events_create(iter->self, cpu->stream);

	if (msg && with_count) {
		bt_message_discarded_events_set_count(msg, loss->count);
	}
	return push(iter, msg);
}

static bool open_packet(struct stub_iterator *iter, struct cpu_stream *cpu, uint64_t cpu_id,
		uint64_t ts)
{
	bt_field *context;

	cpu->closed_by_loss = next_packet_closed_by_loss(iter, cpu);
	if (cpu->closed_by_loss && !cpu->had_packet && !push_discarded(iter, cpu, ts, false)) {
		return false;
	}

	cpu->packet = bt_packet_create(cpu->stream);
	if (!cpu->packet) {
		g_string_assign(iter->error, "Cannot create a packet (out of memory?).");
		return false;
	}
	context = bt_packet_borrow_context_field(cpu->packet);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(context, 0), cpu_id);
	cpu->packet_events = 0;
	cpu->had_packet = true;
	return push(iter, has_clock(iter) ?
		bt_message_packet_beginning_create_with_default_clock_snapshot(iter->self,
			cpu->packet, ts) :
		bt_message_packet_beginning_create(iter->self, cpu->packet));
}

/*
 * Closes the open packet at `ts`. Unless the stream ends, a loss that
 * closes the next packet gets its discarded-events message right now: it
 * starts at this packet's end, so this is its place in time order.
 */
static bool close_packet(struct stub_iterator *iter, struct cpu_stream *cpu, uint64_t ts,
		bool stream_ends)
{
	bool ok = push(iter, has_clock(iter) ?
		bt_message_packet_end_create_with_default_clock_snapshot(iter->self, cpu->packet, ts) :
		bt_message_packet_end_create(iter->self, cpu->packet));

	bt_packet_put_ref(cpu->packet);
	cpu->packet = NULL;
	if (cpu->closed_by_loss) {
		cpu->next_loss++;
		cpu->closed_by_loss = false;
	}
	if (ok && !stream_ends && next_packet_closed_by_loss(iter, cpu)) {
		ok = push_discarded(iter, cpu, ts, true);
	}
	return ok;
}

/* A sequence's elements, checked when its line was parsed. */
static bool set_sequence(const struct stub_field_def *def, const union stub_value *value,
		bt_field *length, bt_field *field)
{
	GArray *elements = g_array_new(FALSE, FALSE, sizeof(union stub_value));
	/* The length member is a u8, as in lttng-modules. */
	bool ok = stub_sequence_parse(def->type, value->seq.text, value->seq.len, elements) &&
		elements->len <= UINT8_MAX &&
		bt_field_array_dynamic_set_length(field, elements->len) ==
			BT_FIELD_DYNAMIC_ARRAY_SET_LENGTH_STATUS_OK;

	if (ok) {
		bt_field_integer_unsigned_set_value(length, elements->len);
	}
	for (guint i = 0; ok && i < elements->len; i++) {
		bt_field *element = bt_field_array_borrow_element_field_by_index(field, i);

		if (stub_field_type_is_signed(def->type)) {
			bt_field_integer_signed_set_value(element,
				g_array_index(elements, union stub_value, i).s);
		} else {
			bt_field_integer_unsigned_set_value(element,
				g_array_index(elements, union stub_value, i).u);
		}
	}
	g_array_free(elements, TRUE);
	return ok;
}

static bool set_payload(struct stub_iterator *iter, bt_field *payload)
{
	const struct stub_event_line *event = &iter->event;

	if (event->def->layout == STUB_EVENT_LAYOUT_NET_HEADERS) {
		return stub_net_payload_set(payload, event, iter->error);
	}
	/* A sequence takes two members: its length (stub-trace.c), then itself. */
	for (guint i = 0, member = 0; i < event->def->fields->len; i++, member++) {
		const struct stub_field_def *def =
			&g_array_index(event->def->fields, struct stub_field_def, i);
		const union stub_value *value = &g_array_index(event->values, union stub_value, i);
		bt_field *field;

		if (def->is_sequence) {
			member++;
		}
		field = bt_field_structure_borrow_member_field_by_index(payload, member);
		if (def->is_sequence) {
			if (!set_sequence(def, value,
					bt_field_structure_borrow_member_field_by_index(payload,
						member - 1), field)) {
				g_string_assign(iter->error, "Cannot set a sequence field (out of memory?).");
				return false;
			}
		} else if (def->type == STUB_FIELD_STRING) {
			if (bt_field_string_set_value(field, value->str) !=
					BT_FIELD_STRING_SET_VALUE_STATUS_OK) {
				g_string_assign(iter->error, "Cannot set a string field (out of memory?).");
				return false;
			}
		} else if (stub_field_type_is_signed(def->type)) {
			bt_field_integer_signed_set_value(field, value->s);
		} else {
			bt_field_integer_unsigned_set_value(field, value->u);
		}
	}
	return true;
}

/* The event context fields, after the payload's in the line's values. */
static void set_context(const struct stub_event_line *event, bt_field *context)
{
	guint payload = event->def->fields->len;

	for (guint i = 0; event->context && i < event->context->fields->len; i++) {
		const struct stub_field_def *def =
			&g_array_index(event->context->fields, struct stub_field_def, i);
		const union stub_value *value =
			&g_array_index(event->values, union stub_value, payload + i);
		bt_field *field = bt_field_structure_borrow_member_field_by_index(context, i);

		if (stub_field_type_is_signed(def->type)) {
			bt_field_integer_signed_set_value(field, value->s);
		} else {
			bt_field_integer_unsigned_set_value(field, value->u);
		}
	}
}

static bool push_event(struct stub_iterator *iter, struct cpu_stream *cpu)
{
	const struct stub_event_line *event = &iter->event;
	const bt_event_class *event_class =
		g_ptr_array_index(iter->source->classes.event_classes, event->def->index);
	bt_message *msg = has_clock(iter) ?
		bt_message_event_create_with_packet_and_default_clock_snapshot(iter->self,
			event_class, cpu->packet, event->ts) :
		bt_message_event_create_with_packet(iter->self, event_class, cpu->packet);

	if (!msg) {
		g_string_assign(iter->error, "Cannot create an event message (out of memory?).");
		return false;
	}
	g_queue_push_tail(iter->pending, msg);
	if (event->context) {
		set_context(event, bt_event_borrow_common_context_field(
			bt_message_event_borrow_event(msg)));
	}
	return set_payload(iter, bt_event_borrow_payload_field(bt_message_event_borrow_event(msg)));
}

/*
 * With `packet-end-overlap`, a full packet stays open until the CPU's next
 * event so that its end time can be set after that event's time, as old
 * LTTng (2.1) wrote them.
 */
static bool close_full_packet_before(struct stub_iterator *iter, struct cpu_stream *cpu,
		uint64_t next_ts)
{
	uint64_t overlap = iter->source->scan.header.packet_end_overlap_ns;

	if (cpu->packet && cpu->closed_by_loss) {
		/* The first event after the loss closes the packet. */
		if (cpu->events == next_loss(cpu)->ordinal) {
			return close_packet(iter, cpu, loss_packet_end(iter, next_loss(cpu)), false);
		}
		return true;
	}
	if (cpu->packet && cpu->packet_events >= iter->source->scan.header.packet_size) {
		return close_packet(iter, cpu, next_ts + overlap, false);
	}
	return true;
}

/*
 * A loss line: the packet it closes is already open (it was known when
 * the packet opened), unless the stream had none yet: then an empty first
 * packet begins at the line's time.
 */
static bool push_loss_line(struct stub_iterator *iter, struct cpu_stream *cpu)
{
	iter->last_ts = MAX(iter->last_ts, iter->event.ts);
	if (cpu->packet) {
		return true;
	}
	return open_packet(iter, cpu, iter->event.cpu, iter->event.ts);
}

static bool push_event_line(struct stub_iterator *iter)
{
	const struct stub_header *header = &iter->source->scan.header;
	struct cpu_stream *cpu;

	/* The first pass checked this, unless the file changed since. */
	if (iter->event.cpu >= iter->cpus->len) {
		g_string_printf(iter->error, "%s: CPU %" PRIu64 " has no stream: the file "
			"changed while being read?", iter->source->path, iter->event.cpu);
		return false;
	}
	cpu = &g_array_index(iter->cpus, struct cpu_stream, iter->event.cpu);
	if (iter->event.lost) {
		return push_loss_line(iter, cpu);
	}
	if (!close_full_packet_before(iter, cpu, iter->event.ts)) {
		return false;
	}
	if (!cpu->packet && !open_packet(iter, cpu, iter->event.cpu, iter->event.ts)) {
		return false;
	}
	if (!push_event(iter, cpu)) {
		return false;
	}
	iter->last_ts = iter->event.ts;
	cpu->packet_events++;
	cpu->events++;
	if (cpu->packet_events >= header->packet_size && header->packet_end_overlap_ns == 0 &&
			!cpu->closed_by_loss) {
		return close_packet(iter, cpu, iter->event.ts, false);
	}
	return true;
}

/*
 * At the end, every stream's last packet ends at the trace's last event
 * time (like LTTng's flush at session stop); a CPU without events still gets
 * one empty packet, as LTTng writes one per stream.
 */
static bool push_stream_ends(struct stub_iterator *iter)
{
	for (guint i = 0; i < iter->cpus->len; i++) {
		struct cpu_stream *cpu = &g_array_index(iter->cpus, struct cpu_stream, i);

		if (!cpu->had_packet && !open_packet(iter, cpu, i, iter->last_ts)) {
			return false;
		}
		if (cpu->packet && !close_packet(iter, cpu, iter->last_ts, true)) {
			return false;
		}
		if (!push(iter, bt_message_stream_end_create(iter->self, cpu->stream))) {
			return false;
		}
	}
	return true;
}

static bool read_event_line(struct stub_iterator *iter, const char *line, size_t len,
		uint64_t line_no)
{
	GString *detail = g_string_new(NULL);
	bool ok = stub_lexer_split(&iter->lexer, line, len, detail) &&
		stub_event_line_parse(&iter->event, &iter->lexer,
			iter->source->scan.header.events, detail);

	if (!ok) {
		g_string_printf(iter->error, "%s:%" PRIu64 ": %s", iter->source->path, line_no,
			detail->str);
	}
	g_string_free(detail, TRUE);
	return ok;
}

/* Queues the messages of the next step; false + iter->error on error. */
static bool produce(struct stub_iterator *iter)
{
	const char *line;
	size_t len;
	uint64_t line_no;

	switch (iter->phase) {
	case PHASE_START:
		iter->phase = PHASE_EVENTS;
		return push_stream_beginnings(iter);
	case PHASE_EVENTS:
		switch (stub_reader_next(iter->reader, &line, &len, &line_no, iter->error)) {
		case STUB_READER_LINE:
			return read_event_line(iter, line, len, line_no) && push_event_line(iter);
		case STUB_READER_END:
			iter->phase = PHASE_ENDED;
			return push_stream_ends(iter);
		case STUB_READER_ERROR:
			return false;
		}
		break;
	case PHASE_ENDED:
		break;
	}
	return true;
}

bt_message_iterator_class_next_method_status stub_iterator_next(
		bt_self_message_iterator *self_msg_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count)
{
	struct stub_iterator *iter = bt_self_message_iterator_get_data(self_msg_iter);
	uint64_t filled = 0;

	if (iter->failed) {
		ITER_ERROR(iter, "%s", iter->error->str);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	while (filled < capacity) {
		if (g_queue_is_empty(iter->pending)) {
			if (iter->phase == PHASE_ENDED) {
				break;
			}
			if (!produce(iter)) {
				iter->failed = true;
				break;
			}
			continue;
		}
		msgs[filled++] = g_queue_pop_head(iter->pending);
	}
	if (iter->failed && filled == 0) {
		ITER_ERROR(iter, "%s", iter->error->str);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	*count = filled;
	if (filled == 0) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	}
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}
