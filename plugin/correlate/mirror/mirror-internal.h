#ifndef VM_CORRELATE_MIRROR_INTERNAL_H
#define VM_CORRELATE_MIRROR_INTERNAL_H

/*
 * What the mirror's files share: the mirror itself, its upstream -> output
 * mappings and the helpers that look them up. Not for the component's use:
 * it only sees mirror.h.
 */

#include <stdint.h>
#include <stdio.h>
#include <glib.h>

#include "common/address-hash.h"
#include "correlate/mirror/mirror.h"
#include "util/arena.h"

/*
 * One upstream -> output mapping: a GHashTable plus a small cache in front
 * of it. Once the merge interleaves streams, consecutive events rarely
 * share their stream or event class, but a trace set has few of them: each
 * keeps its slot. The cache is two-way (slots 2k and 2k+1 form a set, the
 * newest first): direct-mapped, the 68 event classes of vm-bench's traces
 * left two busy classes sharing a slot, and 12 % of the events went to the
 * hash table.
 */
#define MIRROR_MAP_CACHE_BITS 8

/*
 * Bytes per chunk of records (mirror-parked.c): a few hundred events, so
 * that a chunk goes back to malloc() soon after the look-ahead lets them go.
 */
#define MIRROR_PARK_CHUNK_SIZE (64 * 1024)

struct mirror_map_slot {
	const void *key;
	void *value;
};

struct mirror_map {
	GHashTable *table;
	struct mirror_map_slot cache[1 << MIRROR_MAP_CACHE_BITS];
};

/* The first cache slot of the set of `key`, an object's address. */
static inline struct mirror_map_slot *mirror_map_set(struct mirror_map *map,
		const void *key)
{
	return &map->cache[vm_address_hash(key, MIRROR_MAP_CACHE_BITS) & ~(size_t) 1];
}

/* `key` becomes the newest of its set; the older one leaves it. */
static inline void mirror_map_cache(struct mirror_map *map, const void *key, void *value)
{
	struct mirror_map_slot *set = mirror_map_set(map, key);

	set[1] = set[0];
	set[0].key = key;
	set[0].value = value;
}

/*
 * An upstream stream's mirror, with the packet it has open (babeltrace2
 * packets of one stream never overlap), so that an event finds its output
 * packet without another lookup.
 */
struct mirror_stream {
	bt_stream *out;
	/* Of the upstream stream class, asked once rather than on every event. */
	bool has_clock;     /* a default clock class */
	bool has_packets;
	/* The open upstream packet (referenced) and its mirror, or NULL. */
	const bt_packet *in_packet;
	bt_packet *out_packet;
};

struct mirror {
	bt_self_message_iterator *self_msg_iter;
	bt_self_component *self_comp;
	bt_logging_level log_level;
	mirror_time_fn time_fn;
	mirror_trace_created_fn created_fn;
	void *data;

	/* The reference time base: the default clock class of every output stream. */
	bt_clock_class *clock_class;

	/*
	 * Upstream object (a reference is held, so that its address cannot be
	 * reused by another object) -> output object (a reference is held).
	 */
	struct mirror_map trace_classes;
	struct mirror_map traces;
	struct mirror_map stream_classes;
	/* Values: struct mirror_event_class. */
	struct mirror_map event_classes;
	/* Values: struct mirror_stream. */
	struct mirror_map streams;
	/*
	 * Upstream field class -> its output copy, to find the output length or
	 * selector field class of a dynamic array, option or variant.
	 */
	GHashTable *field_classes;
	/*
	 * Upstream event class -> struct mirror_park_plans, and the buffer a
	 * record is written in (mirror-parked.c).
	 */
	struct mirror_map park_plans;
	GByteArray *park_scratch;
	struct vm_arena *park_arena;   /* the records themselves */

	/*
	 * The last conversion: the component asks mirror_message_time() and
	 * then mirror_convert() for the same message, and applying a formula
	 * is the costliest step of an event.
	 */
	struct {
		const bt_clock_class *clock_class;
		int64_t ns_from_origin;
		uint64_t value;
	} last_conversion;

	/*
	 * Given by mirror_convert_at(): the converted time of the message's
	 * first snapshot, consumed by the first mirror_convert_snapshot() of
	 * that message.
	 */
	struct {
		bool valid;
		int64_t ref_ns;
	} known;
};

#define MIRROR_ERROR(_mirror, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR( \
		(_mirror)->self_msg_iter, __VA_ARGS__)

/*
 * Logs to the standard error, like babeltrace2's own components, with the
 * component's name, at the component's log level.
 */
#define MIRROR_LOG(_mirror, _level, _letter, _fmt, ...) \
	do { \
		if ((_mirror)->log_level <= (_level)) { \
			fprintf(stderr, _letter " PLUGIN/FLT.VM.CORRELATE/MIRROR [%s] " \
				_fmt "\n", \
				bt_component_get_name(bt_self_component_as_component( \
					(_mirror)->self_comp)), \
				__VA_ARGS__); \
		} \
	} while (0)

#define MIRROR_DEBUG(_mirror, _fmt, ...) \
	MIRROR_LOG(_mirror, BT_LOGGING_LEVEL_DEBUG, "D", _fmt, __VA_ARGS__)

/* mirror.c: the mappings. */

/* The mapped value of `key`, or NULL. */
static inline void *mirror_map_lookup(struct mirror_map *map, const void *key)
{
	struct mirror_map_slot *set = mirror_map_set(map, key);
	void *value;

	if (set[0].key == key) {
		return set[0].value;
	}

	if (set[1].key == key) {
		return set[1].value;
	}

	value = g_hash_table_lookup(map->table, key);
	if (value) {
		mirror_map_cache(map, key, value);
	}

	return value;
}

/* Takes ownership of the references to `key` and `value`. */
void mirror_map_insert(struct mirror_map *map, const void *key, void *value);

/*
 * The converted value of `snapshot` (ns since the Unix epoch, reference time
 * base, which is also the output clock's value). On failure: false, with an
 * error cause only when `report` is set.
 */
bool mirror_convert_snapshot(struct mirror *mirror,
		const bt_clock_snapshot *snapshot, bool report, uint64_t *value);

/*
 * The time the caller of mirror_convert_at() gave, when it is one the output
 * clock can hold: then the message's first snapshot need not even be
 * borrowed. Otherwise mirror_convert_snapshot() handles it.
 */
static inline bool mirror_take_known(struct mirror *mirror, uint64_t *value)
{
	if (!mirror->known.valid || mirror->known.ref_ns < 0) {
		return false;
	}

	mirror->known.valid = false;
	*value = (uint64_t) mirror->known.ref_ns;
	return true;
}

/* mirror-metadata.c: the output trace IR objects, created on first use. */

struct mirror_stream *mirror_output_stream(struct mirror *mirror,
		const bt_stream *in);

/* mirror-messages.c: the mirror of `in`, the open packet of `stream` (opened if needed). */
bt_packet *mirror_stream_packet(struct mirror *mirror, struct mirror_stream *stream,
		const bt_packet *in);

/* mirror-parked.c: frees a value of `park_plans`. */
void mirror_park_plans_destroy(void *plans);

/* mirror.c */

/* Forgets the stream's open packet, if any. */
void mirror_stream_close_packet(struct mirror_stream *stream);

/*
 * How to copy a field of one upstream field class, worked out once: its
 * class type, and for a structure the plan of each member, so that copying
 * an event's fields does not query field classes again.
 */
struct mirror_copy_plan {
	bt_field_class_type type;
	uint64_t member_count;                /* structures */
	struct mirror_copy_plan *members;     /* structures: member_count plans */
};

/* The mirror of an upstream event class: the value of `event_classes`. */
struct mirror_event_class {
	bt_event_class *out;
	/* NULL when the upstream event class has no such field class. */
	struct mirror_copy_plan *common_context;
	struct mirror_copy_plan *specific_context;
	struct mirror_copy_plan *payload;
};

struct mirror_event_class *mirror_output_event_class(struct mirror *mirror,
		const bt_event_class *in);

/* mirror-field-classes.c */

/*
 * Where the field classes being copied live upstream, to resolve the field
 * paths of length and selector fields. `event_class` is NULL while copying a
 * stream class's field classes.
 */
struct mirror_fc_scope {
	const bt_stream_class *stream_class;
	const bt_event_class *event_class;
};

/* A new output copy of `in` (and of everything it contains), or NULL. */
bt_field_class *mirror_copy_field_class(struct mirror *mirror,
		bt_trace_class *trace_class, const struct mirror_fc_scope *scope,
		const bt_field_class *in);

/* mirror-fields.c */

/* Copies the value of `in` into `out`, of the mirrored field class. */
bool mirror_copy_field(struct mirror *mirror, const bt_field *in, bt_field *out);

/* The copy plan of fields of class `fc` (NULL: NULL), for mirror_copy_field_planned(). */
struct mirror_copy_plan *mirror_copy_plan_create(const bt_field_class *fc);
void mirror_copy_plan_destroy(struct mirror_copy_plan *plan);

/* mirror_copy_field(), for a field whose class `plan` was made from. */
bool mirror_copy_field_planned(struct mirror *mirror, const struct mirror_copy_plan *plan,
		const bt_field *in, bt_field *out);

/* mirror-messages.c: the one builder of output event messages (fields left to fill). */
bt_message *mirror_create_event_message(struct mirror *mirror, struct mirror_stream *stream,
		struct mirror_event_class *ec, const bt_packet *in_packet, uint64_t time);

/*
 * The kinds of fields, by class type: the one table every walk over fields
 * switches on (field class copy, field copy, parked records written and
 * read back). A new field class type is one line here, then one case per
 * walk.
 */
enum mirror_field_kind {
	MIRROR_FIELD_BOOL,
	MIRROR_FIELD_BIT_ARRAY,
	MIRROR_FIELD_UNSIGNED,     /* unsigned integers and enumerations */
	MIRROR_FIELD_SIGNED,       /* signed integers and enumerations */
	MIRROR_FIELD_SINGLE,
	MIRROR_FIELD_DOUBLE,
	MIRROR_FIELD_STRING,
	MIRROR_FIELD_STRUCTURE,
	MIRROR_FIELD_ARRAY,        /* static and dynamic */
	MIRROR_FIELD_OPTION,       /* with or without a selector */
	MIRROR_FIELD_VARIANT,      /* with or without a selector */
	MIRROR_FIELD_UNSUPPORTED,
};

static inline enum mirror_field_kind mirror_field_kind_of(bt_field_class_type type)
{
	switch (type) {
	case BT_FIELD_CLASS_TYPE_BOOL:
		return MIRROR_FIELD_BOOL;
	case BT_FIELD_CLASS_TYPE_BIT_ARRAY:
		return MIRROR_FIELD_BIT_ARRAY;
	case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION:
		return MIRROR_FIELD_UNSIGNED;
	case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION:
		return MIRROR_FIELD_SIGNED;
	case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL:
		return MIRROR_FIELD_SINGLE;
	case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL:
		return MIRROR_FIELD_DOUBLE;
	case BT_FIELD_CLASS_TYPE_STRING:
		return MIRROR_FIELD_STRING;
	case BT_FIELD_CLASS_TYPE_STRUCTURE:
		return MIRROR_FIELD_STRUCTURE;
	case BT_FIELD_CLASS_TYPE_STATIC_ARRAY:
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITHOUT_LENGTH_FIELD:
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD:
		return MIRROR_FIELD_ARRAY;
	case BT_FIELD_CLASS_TYPE_OPTION_WITHOUT_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_BOOL_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_UNSIGNED_INTEGER_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_SIGNED_INTEGER_SELECTOR_FIELD:
		return MIRROR_FIELD_OPTION;
	case BT_FIELD_CLASS_TYPE_VARIANT_WITHOUT_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_VARIANT_WITH_UNSIGNED_INTEGER_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_VARIANT_WITH_SIGNED_INTEGER_SELECTOR_FIELD:
		return MIRROR_FIELD_VARIANT;
	default:
		return MIRROR_FIELD_UNSUPPORTED;
	}
}

/* The error cause for a field (class) type no walk supports; false. */
bool mirror_unsupported_field(struct mirror *mirror, bt_field_class_type type);

#endif /* VM_CORRELATE_MIRROR_INTERNAL_H */
