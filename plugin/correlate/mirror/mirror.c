/*
 * The mirror's life cycle, its mappings and the conversion of clock
 * snapshots to the reference time base.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/mirror/mirror-internal.h"

/* GDestroyNotify adapters: babeltrace2's put functions take typed pointers. */
static void put_trace_class(gpointer p) { bt_trace_class_put_ref(p); }
static void put_trace(gpointer p) { bt_trace_put_ref(p); }
static void put_stream_class(gpointer p) { bt_stream_class_put_ref(p); }
static void put_event_class(gpointer p) { bt_event_class_put_ref(p); }

static void destroy_mirror_event_class(gpointer p)
{
	struct mirror_event_class *mapped = p;

	mirror_copy_plan_destroy(mapped->common_context);
	mirror_copy_plan_destroy(mapped->specific_context);
	mirror_copy_plan_destroy(mapped->payload);
	bt_event_class_put_ref(mapped->out);
	g_free(mapped);
}
static void put_stream(gpointer p) { bt_stream_put_ref(p); }
static void put_field_class(gpointer p) { bt_field_class_put_ref(p); }

void mirror_stream_close_packet(struct mirror_stream *stream)
{
	bt_packet_put_ref(stream->in_packet);
	bt_packet_put_ref(stream->out_packet);
	stream->in_packet = NULL;
	stream->out_packet = NULL;
}

static void destroy_mirror_stream(gpointer p)
{
	struct mirror_stream *stream = p;

	mirror_stream_close_packet(stream);
	bt_stream_put_ref(stream->out);
	g_free(stream);
}

static void mirror_map_init(struct mirror_map *map, GDestroyNotify put_key,
		GDestroyNotify put_value)
{
	map->table = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		put_key, put_value);
	memset(map->cache, 0, sizeof(map->cache));
}

static void mirror_map_fini(struct mirror_map *map)
{
	if (map->table) {
		g_hash_table_destroy(map->table);
		map->table = NULL;
	}
}

void mirror_map_insert(struct mirror_map *map, const void *key, void *value)
{
	g_hash_table_insert(map->table, (gpointer) key, value);
	mirror_map_cache(map, key, value);
}

/*
 * The reference time base: nanoseconds since the Unix epoch, named like
 * LTTng's kernel clock so that a trace written by sink.ctf.fs and read back
 * by src.ctf.fs keeps its LTTng semantics.
 */
static bt_clock_class *create_reference_clock_class(bt_self_component *self_comp)
{
	bt_clock_class *clock_class = bt_clock_class_create(self_comp);

	if (!clock_class) {
		return NULL;
	}

	bt_clock_class_set_frequency(clock_class, UINT64_C(1000000000));
	bt_clock_class_set_offset(clock_class, 0, 0);
	bt_clock_class_set_origin_is_unix_epoch(clock_class, BT_TRUE);
	if (bt_clock_class_set_name(clock_class, "monotonic") ||
			bt_clock_class_set_description(clock_class,
				"Reference time base of filter.vm.correlate: "
				"every machine's time converted to it")) {
		bt_clock_class_put_ref(clock_class);
		return NULL;
	}

	return clock_class;
}

struct mirror *mirror_create(bt_self_message_iterator *self_msg_iter,
		bt_self_component *self_comp, bt_logging_level log_level,
		mirror_time_fn time_fn, mirror_trace_created_fn created_fn,
		void *data)
{
	struct mirror *mirror = g_new0(struct mirror, 1);

	mirror->self_msg_iter = self_msg_iter;
	mirror->self_comp = self_comp;
	mirror->log_level = log_level;
	mirror->time_fn = time_fn;
	mirror->created_fn = created_fn;
	mirror->data = data;
	mirror->clock_class = create_reference_clock_class(self_comp);
	if (!mirror->clock_class) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"Cannot create the reference clock class of the output traces "
			"(out of memory?).");
		g_free(mirror);
		return NULL;
	}

	mirror_map_init(&mirror->trace_classes, put_trace_class, put_trace_class);
	mirror_map_init(&mirror->traces, put_trace, put_trace);
	mirror_map_init(&mirror->stream_classes, put_stream_class, put_stream_class);
	mirror_map_init(&mirror->event_classes, put_event_class,
		destroy_mirror_event_class);
	mirror_map_init(&mirror->streams, put_stream, destroy_mirror_stream);
	mirror_map_init(&mirror->park_plans, put_event_class, mirror_park_plans_destroy);
	mirror->park_scratch = g_byte_array_new();
	mirror->park_arena = vm_arena_create(MIRROR_PARK_CHUNK_SIZE);
	mirror->field_classes = g_hash_table_new_full(g_direct_hash,
		g_direct_equal, put_field_class, put_field_class);
	return mirror;
}

void mirror_destroy(struct mirror *mirror)
{
	if (!mirror) {
		return;
	}

	/* Children before parents, although references make any order safe. */
	mirror_map_fini(&mirror->streams);
	mirror_map_fini(&mirror->event_classes);
	mirror_map_fini(&mirror->stream_classes);
	mirror_map_fini(&mirror->traces);
	mirror_map_fini(&mirror->trace_classes);
	mirror_map_fini(&mirror->park_plans);
	bt_clock_class_put_ref(mirror->last_conversion.clock_class);
	g_byte_array_unref(mirror->park_scratch);
	/* Records still waiting (freed after the mirror) keep their chunks. */
	vm_arena_destroy(mirror->park_arena);
	g_hash_table_destroy(mirror->field_classes);
	bt_clock_class_put_ref(mirror->clock_class);
	g_free(mirror);
}

static const char *clock_class_name(const bt_clock_class *clock_class)
{
	const char *name = bt_clock_class_get_name(clock_class);

	return name ? name : "(unnamed)";
}

static bool snapshot_ns_from_origin(struct mirror *mirror,
		const bt_clock_snapshot *snapshot, bool report, int64_t *ns)
{
	if (bt_clock_snapshot_get_ns_from_origin(snapshot, ns) ==
			BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		return true;
	}

	if (!report) {
		/* The caller only asks; the library's cause must not stay behind. */
		bt_current_thread_clear_error();
		return false;
	}

	MIRROR_ERROR(mirror,
		"Clock snapshot value %" PRIu64 " of clock class `%s` "
		"overflows a signed 64-bit count of nanoseconds from its "
		"origin: the trace's clock offset or frequency is wrong; "
		"fix its metadata or shift it with src.ctf.fs's "
		"`clock-class-offset-s` parameter.",
		bt_clock_snapshot_get_value(snapshot),
		clock_class_name(bt_clock_snapshot_borrow_clock_class_const(snapshot)));
	return false;
}

/*
 * The reference time of a snapshot, from the component's conversion; a
 * caller that only asks (`report` false) leaves no error cause behind.
 */
static bool convert_time(struct mirror *mirror, const bt_clock_class *clock_class,
		int64_t ns_from_origin, bool report, int64_t *ref_ns)
{
	if (mirror->time_fn(mirror->data, clock_class, ns_from_origin, ref_ns)) {
		return true;
	}

	if (!report) {
		bt_current_thread_clear_error();
	}

	return false;
}

bool mirror_convert_snapshot(struct mirror *mirror,
		const bt_clock_snapshot *snapshot, bool report, uint64_t *value)
{
	const bt_clock_class *clock_class;
	int64_t ns_from_origin;
	int64_t ref_ns;

	if (mirror->known.valid) {
		/* Converted by the caller, which checked the output clock's range. */
		mirror->known.valid = false;
		if (mirror->known.ref_ns < 0) {
			if (report) {
				MIRROR_ERROR(mirror, "A converted time, %" PRId64 " ns, is "
					"before the output clock's origin (the Unix epoch).",
					mirror->known.ref_ns);
			}

			return false;
		}

		*value = (uint64_t) mirror->known.ref_ns;
		return true;
	}

	clock_class = bt_clock_snapshot_borrow_clock_class_const(snapshot);

	if (!snapshot_ns_from_origin(mirror, snapshot, report, &ns_from_origin)) {
		return false;
	}

	/* The cached clock class is referenced: its address is not reused. */
	if (mirror->last_conversion.clock_class == clock_class &&
			mirror->last_conversion.ns_from_origin == ns_from_origin) {
		*value = mirror->last_conversion.value;
		return true;
	}

	if (!convert_time(mirror, clock_class, ns_from_origin, report, &ref_ns)) {
		return false;
	}

	*value = (uint64_t) ref_ns;
	if (mirror->last_conversion.clock_class != clock_class) {
		bt_clock_class_get_ref(clock_class);
		bt_clock_class_put_ref(mirror->last_conversion.clock_class);
		mirror->last_conversion.clock_class = clock_class;
	}

	mirror->last_conversion.ns_from_origin = ns_from_origin;
	mirror->last_conversion.value = *value;
	return true;
}

bt_clock_class *mirror_borrow_clock_class(struct mirror *mirror)
{
	return mirror->clock_class;
}
