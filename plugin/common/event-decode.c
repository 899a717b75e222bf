/*
 * Translation of babeltrace2 event messages into plain events.
 *
 * Each event class is recognized once: its name gives the kind, and the
 * payload members the kind needs are located by name and remembered by
 * index, as is `cpu_id` in the packet context. Later events of the class
 * only read fields by index. Traces usually interleave few event classes, so
 * a one-entry cache in front of the hash table saves most lookups.
 */

#include <stdint.h>
#include <string.h>
#include <glib.h>

#include "common/event-decode.h"
#include "common/address-hash.h"

/* The largest number of payload members one kind reads. */
#define MAX_MEMBERS 8

/* Index of a member a class does not have. */
#define NO_MEMBER UINT64_MAX

/*
 * How a member's field is read. The field class of a member never changes,
 * so this is found once per class rather than asked of every field.
 */
enum member_type {
	MEMBER_OTHER = 0,  /* absent, or of a type the decoder cannot read */
	MEMBER_SIGNED,     /* signed integer or enumeration */
	MEMBER_UNSIGNED,   /* unsigned integer or enumeration */
	MEMBER_STRING,
	/* array or sequence of integers: its length and last element */
	MEMBER_SIGNED_ARRAY,
	MEMBER_UNSIGNED_ARRAY,
};

struct class_info {
	enum vm_event_kind kind;
	/* Payload member indexes, in the order of the kind's name list. */
	uint64_t members[MAX_MEMBERS];
	enum member_type member_types[MAX_MEMBERS];
	/* Index of `cpu_id` in the packet context, NO_MEMBER if none. */
	uint64_t cpu_id_member;
	enum member_type cpu_id_type;
	/*
	 * Index of the `pid_ns` context (`lttng add-context -t pid_ns`) in
	 * the stream's event common context, NO_MEMBER if none.
	 */
	uint64_t pid_ns_member;
	enum member_type pid_ns_type;
	/* The default clock class of the stream class, NULL if none. */
	const bt_clock_class *clock_class;
};

/* Slots of the decoder's packet cache (a few streams per CPU interleave). */
#define PACKET_CACHE_BITS 6
#define PACKET_CACHE_SIZE (1 << PACKET_CACHE_BITS)
#define PACKET_CACHE_WAYS 4

#define CLASS_CACHE_BITS 8
#define CLASS_CACHE_SIZE (1 << CLASS_CACHE_BITS)

struct event_decoder {
	/* const bt_event_class * (one reference held) -> struct class_info * */
	GHashTable *classes;
	/*
	 * Two-way cache in front of `classes` (slots 2k and 2k+1 form a set):
	 * the merged streams of several traces interleave a few dozen event
	 * classes, which a one-entry cache keeps missing, and two frequent
	 * classes often share a slot of a direct-mapped one. The table holds
	 * a reference on each class, so a cached address cannot name another
	 * class later.
	 */
	struct {
		const bt_event_class *event_class;
		const struct class_info *info;
	} cache[CLASS_CACHE_SIZE];
	/*
	 * The cpu_id of recent packets, read once per packet rather than per
	 * event. A reference is held on each cached packet: a packet freed
	 * goes back to its stream's pool and may come back, same address, with
	 * another context.
	 */
	struct {
		const bt_packet *packet;
		int64_t cpu_id;
	} packets[PACKET_CACHE_SIZE];
	/* String members read as "" (event_decoder_create_without_strings()). */
	bool skip_strings;
};

struct kind_name {
	const char *name;
	enum vm_event_kind kind;
};

static const struct kind_name kind_names[] = {
	{ "sched_switch", VM_EVENT_SCHED_SWITCH },
	{ "sched_wakeup", VM_EVENT_SCHED_WAKEUP },
	{ "sched_waking", VM_EVENT_SCHED_WAKEUP },
	{ "sched_wakeup_new", VM_EVENT_SCHED_WAKEUP },
	{ "sched_migrate_task", VM_EVENT_SCHED_MIGRATE },
	{ "sched_process_fork", VM_EVENT_PROCESS_FORK },
	{ "sched_process_exit", VM_EVENT_PROCESS_EXIT },
	{ "sched_process_free", VM_EVENT_PROCESS_FREE },
	{ "lttng_statedump_process_state", VM_EVENT_STATEDUMP_PROCESS },
	{ "lttng_statedump_process_pid_ns", VM_EVENT_STATEDUMP_PID_NS },
	{ "kvm_entry", VM_EVENT_KVM_ENTRY },
	{ "kvm_x86_entry", VM_EVENT_KVM_ENTRY },
	{ "kvm_exit", VM_EVENT_KVM_EXIT },
	{ "kvm_x86_exit", VM_EVENT_KVM_EXIT },
	{ "vmsync_gh_guest", VM_EVENT_VMSYNC_GH_GUEST },
	{ "vmsync_hg_guest", VM_EVENT_VMSYNC_HG_GUEST },
	{ "vmsync_gh_host", VM_EVENT_VMSYNC_GH_HOST },
	{ "vmsync_hg_host", VM_EVENT_VMSYNC_HG_HOST },
	{ "vm:vcpu_state", VM_EVENT_VCPU_STATE },
};

/*
 * The payload members each kind reads, in the order decode_payload() uses
 * their indexes. NULL-terminated.
 */
static const char *const *member_names(enum vm_event_kind kind)
{
	static const char *const sched_switch[] = { "prev_comm", "prev_tid",
		"prev_state", "next_comm", "next_tid", NULL };
	static const char *const wakeup[] = { "comm", "tid", "target_cpu", NULL };
	static const char *const fork[] = { "parent_comm", "parent_tid",
		"parent_pid", "child_comm", "child_tid", "child_pid",
		"child_ns_inum", "vtids", NULL };
	static const char *const exit[] = { "comm", "tid", NULL };
	static const char *const migrate[] = { "tid", "dest_cpu", NULL };
	static const char *const statedump[] = { "tid", "pid", "ppid", "name",
		"vtid", "vpid", "ns_level", "ns_inum", NULL };
	static const char *const pid_ns[] = { "tid", "vtid", "vpid", "vppid",
		"ns_level", "ns_inum", NULL };
	static const char *const kvm_entry[] = { "vcpu_id", NULL };
	static const char *const kvm_exit[] = { "exit_reason", "isa", "vcpu_id",
		NULL };
	static const char *const vmsync[] = { "cnt", "vm_uid", NULL };
	static const char *const vcpu_state[] = { "vm", "vcpu", "mode",
		"host_tid", "pcpu", "exit_reason", NULL };
	static const char *const none[] = { NULL };

	switch (kind) {
	case VM_EVENT_SCHED_SWITCH:
		return sched_switch;
	case VM_EVENT_SCHED_WAKEUP:
		return wakeup;
	case VM_EVENT_PROCESS_FORK:
		return fork;
	case VM_EVENT_PROCESS_EXIT:
	case VM_EVENT_PROCESS_FREE:
		return exit;
	case VM_EVENT_SCHED_MIGRATE:
		return migrate;
	case VM_EVENT_STATEDUMP_PROCESS:
		return statedump;
	case VM_EVENT_STATEDUMP_PID_NS:
		return pid_ns;
	case VM_EVENT_KVM_ENTRY:
		return kvm_entry;
	case VM_EVENT_KVM_EXIT:
		return kvm_exit;
	case VM_EVENT_VMSYNC_GH_GUEST:
	case VM_EVENT_VMSYNC_HG_GUEST:
	case VM_EVENT_VMSYNC_GH_HOST:
	case VM_EVENT_VMSYNC_HG_HOST:
		return vmsync;
	case VM_EVENT_VCPU_STATE:
		return vcpu_state;
	case VM_EVENT_LOSS:
		/* Made from discarded-items messages, never from an event. */
	case VM_EVENT_OTHER:
		break;
	}
	return none;
}

static enum vm_event_kind kind_of_name(const char *name)
{
	size_t i;

	if (!name) {
		return VM_EVENT_OTHER;
	}
	for (i = 0; i < G_N_ELEMENTS(kind_names); i++) {
		if (strcmp(kind_names[i].name, name) == 0) {
			return kind_names[i].kind;
		}
	}
	return VM_EVENT_OTHER;
}

/*
 * Kinds whose strings even a decoder without strings reads: rare events
 * that name threads (QEMU names its vCPU threads `CPU <n>/KVM`, which
 * model/vcpu-numbers.h may need).
 */
static bool names_a_thread(enum vm_event_kind kind)
{
	return kind == VM_EVENT_STATEDUMP_PROCESS || kind == VM_EVENT_PROCESS_FORK ||
		kind == VM_EVENT_STATEDUMP_PID_NS;
}

static enum member_type type_of(const bt_field_class *fc)
{
	bt_field_class_type type = bt_field_class_get_type(fc);

	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		return MEMBER_SIGNED;
	}
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		return MEMBER_UNSIGNED;
	}
	if (type == BT_FIELD_CLASS_TYPE_STRING) {
		return MEMBER_STRING;
	}
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_ARRAY)) {
		bt_field_class_type element = bt_field_class_get_type(
			bt_field_class_array_borrow_element_field_class_const(fc));

		if (bt_field_class_type_is(element,
				BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
			return MEMBER_SIGNED_ARRAY;
		}
		if (bt_field_class_type_is(element,
				BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
			return MEMBER_UNSIGNED_ARRAY;
		}
	}
	return MEMBER_OTHER;
}

/* The type of member `index` of a structure field class. */
static enum member_type member_type(const bt_field_class *struct_fc,
		uint64_t index)
{
	if (index == NO_MEMBER) {
		return MEMBER_OTHER;
	}
	return type_of(bt_field_class_structure_member_borrow_field_class_const(
		bt_field_class_structure_borrow_member_by_index_const(struct_fc,
			index)));
}

/* Index of the member `name` of a structure field class, NO_MEMBER if none. */
static uint64_t member_index(const bt_field_class *struct_fc, const char *name)
{
	uint64_t i, count;

	if (!struct_fc || bt_field_class_get_type(struct_fc) !=
			BT_FIELD_CLASS_TYPE_STRUCTURE) {
		return NO_MEMBER;
	}
	count = bt_field_class_structure_get_member_count(struct_fc);
	for (i = 0; i < count; i++) {
		const bt_field_class_structure_member *member =
			bt_field_class_structure_borrow_member_by_index_const(
				struct_fc, i);

		if (strcmp(bt_field_class_structure_member_get_name(member),
				name) == 0) {
			return i;
		}
	}
	return NO_MEMBER;
}

static struct class_info *class_info_create(const struct event_decoder *decoder,
		const bt_event_class *event_class)
{
	struct class_info *info = g_new0(struct class_info, 1);
	const bt_field_class *payload_fc =
		bt_event_class_borrow_payload_field_class_const(event_class);
	const bt_stream_class *stream_class =
		bt_event_class_borrow_stream_class_const(event_class);
	const bt_field_class *packet_fc =
		bt_stream_class_borrow_packet_context_field_class_const(stream_class);
	const char *const *names;
	size_t i;

	info->kind = kind_of_name(bt_event_class_get_name(event_class));
	names = member_names(info->kind);
	for (i = 0; i < MAX_MEMBERS; i++) {
		info->members[i] = NO_MEMBER;
	}
	for (i = 0; i < MAX_MEMBERS && names[i]; i++) {
		info->members[i] = member_index(payload_fc, names[i]);
		info->member_types[i] = member_type(payload_fc, info->members[i]);
		if (decoder->skip_strings && info->member_types[i] == MEMBER_STRING &&
				!names_a_thread(info->kind)) {
			info->member_types[i] = MEMBER_OTHER;
		}
	}
	info->cpu_id_member = member_index(packet_fc, "cpu_id");
	info->cpu_id_type = member_type(packet_fc, info->cpu_id_member);
	info->pid_ns_member = member_index(
		bt_stream_class_borrow_event_common_context_field_class_const(
			stream_class), "pid_ns");
	info->pid_ns_type = member_type(
		bt_stream_class_borrow_event_common_context_field_class_const(
			stream_class), info->pid_ns_member);
	/* Borrowed: the table holds a reference on the event class. */
	info->clock_class =
		bt_stream_class_borrow_default_clock_class_const(stream_class);
	return info;
}

static void event_class_put(gpointer event_class)
{
	bt_event_class_put_ref(event_class);
}

struct event_decoder *event_decoder_create(void)
{
	struct event_decoder *decoder = g_new0(struct event_decoder, 1);

	/*
	 * The table holds a reference on each event class so that its address
	 * cannot be reused by another class while the entry exists.
	 */
	decoder->classes = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		event_class_put, g_free);
	return decoder;
}

struct event_decoder *event_decoder_create_without_strings(void)
{
	struct event_decoder *decoder = event_decoder_create();

	decoder->skip_strings = true;
	return decoder;
}

void event_decoder_destroy(struct event_decoder *decoder)
{
	if (!decoder) {
		return;
	}
	for (size_t i = 0; i < PACKET_CACHE_SIZE; i++) {
		bt_packet_put_ref(decoder->packets[i].packet);
	}
	g_hash_table_destroy(decoder->classes);
	g_free(decoder);
}

/* A miss of the cache: `slot` (the set's first) gets the class's info. */
static G_GNUC_NO_INLINE const struct class_info *lookup_class_missed(
		struct event_decoder *decoder, const bt_event_class *event_class,
		size_t slot)
{
	struct class_info *info;

	/* The set's older entry (second) goes: first the newest. */
	decoder->cache[slot + 1] = decoder->cache[slot];
	info = g_hash_table_lookup(decoder->classes, event_class);
	if (!info) {
		info = class_info_create(decoder, event_class);
		bt_event_class_get_ref(event_class);
		g_hash_table_insert(decoder->classes, (gpointer) event_class, info);
	}
	decoder->cache[slot].event_class = event_class;
	decoder->cache[slot].info = info;
	return info;
}

/*
 * Inlined in both users (the kind of a class, and decoding), which look up
 * one class in a row: the hits cost no call.
 */
static inline const struct class_info *lookup_class(struct event_decoder *decoder,
		const bt_event_class *event_class)
{
	size_t slot = vm_address_hash(event_class, CLASS_CACHE_BITS) & ~(size_t) 1;

	if (decoder->cache[slot].event_class == event_class) {
		return decoder->cache[slot].info;
	}
	if (decoder->cache[slot + 1].event_class == event_class) {
		return decoder->cache[slot + 1].info;
	}
	return lookup_class_missed(decoder, event_class, slot);
}

enum vm_event_kind event_decoder_kind(struct event_decoder *decoder,
		const bt_event_class *event_class)
{
	return lookup_class(decoder, event_class)->kind;
}

static const bt_field *member_field(const bt_field *struct_field,
		uint64_t index)
{
	if (!struct_field || index == NO_MEMBER) {
		return NULL;
	}
	return bt_field_structure_borrow_member_field_by_index_const(
		struct_field, index);
}

/*
 * An integer field, signed or unsigned (enumerations included); unsigned
 * values keep their bit pattern. Anything else reads VM_FIELD_MISSING.
 */
static inline int64_t read_integer(const bt_field *struct_field, uint64_t index,
		enum member_type type)
{
	const bt_field *field;

	if (type != MEMBER_SIGNED && type != MEMBER_UNSIGNED) {
		return VM_FIELD_MISSING;
	}
	field = member_field(struct_field, index);
	if (!field) {
		return VM_FIELD_MISSING;
	}
	if (type == MEMBER_SIGNED) {
		return bt_field_integer_signed_get_value(field);
	}
	return (int64_t) bt_field_integer_unsigned_get_value(field);
}

/*
 * The length is the string: src.ctf.fs 2.0.4 leaves an empty string with
 * the bytes of a recycled field in its value (see copy_string() of the
 * correlate mirror). A non-empty value always ends at its length.
 */
static inline const char *read_string(const bt_field *struct_field, uint64_t index,
		enum member_type type)
{
	const bt_field *field;

	if (type != MEMBER_STRING) {
		return "";
	}
	field = member_field(struct_field, index);
	if (!field || bt_field_string_get_length(field) == 0) {
		return "";
	}
	return bt_field_string_get_value(field);
}

/*
 * An array of integers: its length minus one (`level`) and its last element
 * (`last`), both VM_FIELD_MISSING when it is empty or not such an array.
 */
static void read_array_last(const bt_field *struct_field, uint64_t index,
		enum member_type type, int64_t *level, int64_t *last)
{
	const bt_field *field;
	const bt_field *element;
	uint64_t length;

	*level = VM_FIELD_MISSING;
	*last = VM_FIELD_MISSING;
	if (type != MEMBER_SIGNED_ARRAY && type != MEMBER_UNSIGNED_ARRAY)
		return;
	field = member_field(struct_field, index);
	length = field ? bt_field_array_get_length(field) : 0;
	if (length == 0)
		return;
	element = bt_field_array_borrow_element_field_by_index_const(field,
		length - 1);
	*level = (int64_t) (length - 1);
	*last = type == MEMBER_SIGNED_ARRAY ?
		bt_field_integer_signed_get_value(element) :
		(int64_t) bt_field_integer_unsigned_get_value(element);
}

/* Readers of the i-th member of the kind's list. */
#define INT_AT(i) read_integer(payload, info->members[i], info->member_types[i])
#define STR_AT(i) read_string(payload, info->members[i], info->member_types[i])

static void decode_payload(const struct class_info *info,
		const bt_field *payload, struct vm_event *out)
{
	switch (info->kind) {
	case VM_EVENT_SCHED_SWITCH:
		out->u.sched_switch.prev_comm = STR_AT(0);
		out->u.sched_switch.prev_tid = INT_AT(1);
		out->u.sched_switch.prev_state = INT_AT(2);
		out->u.sched_switch.next_comm = STR_AT(3);
		out->u.sched_switch.next_tid = INT_AT(4);
		break;
	case VM_EVENT_SCHED_WAKEUP:
		out->u.wakeup.comm = STR_AT(0);
		out->u.wakeup.tid = INT_AT(1);
		out->u.wakeup.target_cpu = INT_AT(2);
		break;
	case VM_EVENT_PROCESS_FORK:
		out->u.fork.parent_comm = STR_AT(0);
		out->u.fork.parent_tid = INT_AT(1);
		out->u.fork.parent_pid = INT_AT(2);
		out->u.fork.child_comm = STR_AT(3);
		out->u.fork.child_tid = INT_AT(4);
		out->u.fork.child_pid = INT_AT(5);
		out->u.fork.child_ns_inum = INT_AT(6);
		read_array_last(payload, info->members[7], info->member_types[7],
			&out->u.fork.child_ns_level, &out->u.fork.child_vtid);
		break;
	case VM_EVENT_PROCESS_EXIT:
	case VM_EVENT_PROCESS_FREE:
		out->u.exit.comm = STR_AT(0);
		out->u.exit.tid = INT_AT(1);
		break;
	case VM_EVENT_SCHED_MIGRATE:
		out->u.migrate.tid = INT_AT(0);
		out->u.migrate.dest_cpu = INT_AT(1);
		break;
	case VM_EVENT_STATEDUMP_PROCESS:
		out->u.statedump.tid = INT_AT(0);
		out->u.statedump.pid = INT_AT(1);
		out->u.statedump.ppid = INT_AT(2);
		out->u.statedump.name = STR_AT(3);
		out->u.statedump.vtid = INT_AT(4);
		out->u.statedump.vpid = INT_AT(5);
		out->u.statedump.ns_level = INT_AT(6);
		out->u.statedump.ns_inum = INT_AT(7);
		break;
	case VM_EVENT_STATEDUMP_PID_NS:
		out->u.pid_ns.tid = INT_AT(0);
		out->u.pid_ns.vtid = INT_AT(1);
		out->u.pid_ns.vpid = INT_AT(2);
		out->u.pid_ns.vppid = INT_AT(3);
		out->u.pid_ns.ns_level = INT_AT(4);
		out->u.pid_ns.ns_inum = INT_AT(5);
		break;
	case VM_EVENT_KVM_ENTRY:
		out->u.kvm_entry.vcpu_id = INT_AT(0);
		break;
	case VM_EVENT_KVM_EXIT:
		out->u.kvm_exit.exit_reason = INT_AT(0);
		out->u.kvm_exit.isa = INT_AT(1);
		out->u.kvm_exit.vcpu_id = INT_AT(2);
		break;
	case VM_EVENT_VMSYNC_GH_GUEST:
	case VM_EVENT_VMSYNC_HG_GUEST:
	case VM_EVENT_VMSYNC_GH_HOST:
	case VM_EVENT_VMSYNC_HG_HOST:
		out->u.vmsync.cnt = INT_AT(0);
		out->u.vmsync.vm_uid = INT_AT(1);
		break;
	case VM_EVENT_VCPU_STATE:
		out->u.vcpu_state.vm = STR_AT(0);
		out->u.vcpu_state.vcpu = INT_AT(1);
		out->u.vcpu_state.mode = STR_AT(2);
		out->u.vcpu_state.host_tid = INT_AT(3);
		out->u.vcpu_state.pcpu = INT_AT(4);
		out->u.vcpu_state.exit_reason = INT_AT(5);
		break;
	case VM_EVENT_LOSS:
	case VM_EVENT_OTHER:
		break;
	}
}

#undef INT_AT
#undef STR_AT

static int64_t read_packet_cpu_id(const struct class_info *info,
		const bt_packet *packet)
{
	return read_integer(bt_packet_borrow_context_field_const(packet),
		info->cpu_id_member, info->cpu_id_type);
}

/*
 * The packet's cpu_id, from the cache if it has the packet. A packet's
 * context does not change, and its stream class, which gives cpu_id's
 * index, is that of all its events.
 */
static int64_t read_cpu_id(struct event_decoder *decoder,
		const struct class_info *info, const bt_event *event)
{
	const bt_packet *packet;
	size_t set, way;

	if (info->cpu_id_member == NO_MEMBER) {
		return VM_FIELD_MISSING;
	}
	packet = bt_event_borrow_packet_const(event);
	if (!packet) {
		return VM_FIELD_MISSING;
	}
	/*
	 * Four-way (slots 4k to 4k+3 form a set, the newest first): the
	 * packets of the streams being merged are all in use at once, and a
	 * new one comes at each packet boundary.
	 */
	set = vm_address_hash(packet, PACKET_CACHE_BITS) &
		~(size_t) (PACKET_CACHE_WAYS - 1);
	for (way = 0; way < PACKET_CACHE_WAYS; way++) {
		if (decoder->packets[set + way].packet == packet) {
			return decoder->packets[set + way].cpu_id;
		}
	}
	bt_packet_put_ref(decoder->packets[set + PACKET_CACHE_WAYS - 1].packet);
	memmove(&decoder->packets[set + 1], &decoder->packets[set],
		(PACKET_CACHE_WAYS - 1) * sizeof(decoder->packets[0]));
	bt_packet_get_ref(packet);
	decoder->packets[set].packet = packet;
	decoder->packets[set].cpu_id = read_packet_cpu_id(info, packet);
	return decoder->packets[set].cpu_id;
}

/* The event's pid_ns context, 0 when it has none (see lib/event.h). */
static inline int64_t read_pid_ns(const struct class_info *info,
		const bt_event *event)
{
	int64_t value;

	if (info->pid_ns_member == NO_MEMBER)
		return 0;
	value = read_integer(bt_event_borrow_common_context_field_const(event),
		info->pid_ns_member, info->pid_ns_type);
	return value == VM_FIELD_MISSING ? 0 : value;
}

int64_t event_decoder_pid_ns(struct event_decoder *decoder, const bt_event *event)
{
	return read_pid_ns(lookup_class(decoder, bt_event_borrow_class_const(event)),
		event);
}

int64_t event_decoder_cpu_id(struct event_decoder *decoder, const bt_event *event)
{
	return read_cpu_id(decoder, lookup_class(decoder, bt_event_borrow_class_const(event)),
		event);
}

/* The time in ns from origin; fills `clock` if not NULL. */
static int64_t read_timestamp(const struct class_info *info,
		const bt_message *event_msg, struct event_clock *clock)
{
	const bt_clock_snapshot *snapshot;
	int64_t ns;

	if (clock) {
		clock->clock_class = info->clock_class;
	}
	if (!info->clock_class) {
		return VM_FIELD_MISSING;
	}
	snapshot = bt_message_event_borrow_default_clock_snapshot_const(event_msg);
	if (clock) {
		clock->value = bt_clock_snapshot_get_value(snapshot);
	}
	if (bt_clock_snapshot_get_ns_from_origin(snapshot, &ns) !=
			BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		/*
		 * An overflowing time is a missing one for the analysis; the
		 * library's error cause must not stay, or the next API call of
		 * this thread aborts.
		 */
		bt_current_thread_clear_error();
		return VM_FIELD_MISSING;
	}
	return ns;
}

/*
 * `out` emptied but for its machine, with the kind of the event's class:
 * the class's info, whose kind is VM_EVENT_OTHER for an event not decoded.
 */
static inline const struct class_info *start_decode(struct event_decoder *decoder,
		const bt_event *event, struct vm_event *out)
{
	const struct class_info *info =
		lookup_class(decoder, bt_event_borrow_class_const(event));
	unsigned int machine = out->machine;

	memset(out, 0, sizeof(*out));
	out->machine = machine;
	out->kind = info->kind;
	return info;
}

/* The CPU and the payload of an event of a decoded kind. */
static inline void decode_fields(struct event_decoder *decoder,
		const struct class_info *info, const bt_event *event,
		struct vm_event *out)
{
	out->cpu = read_cpu_id(decoder, info, event);
	out->pid_ns = read_pid_ns(info, event);
	decode_payload(info, bt_event_borrow_payload_field_const(event), out);
}

bool event_decoder_decode_with_clock(struct event_decoder *decoder,
		const bt_message *event_msg, struct vm_event *out,
		struct event_clock *clock)
{
	const bt_event *event = bt_message_event_borrow_event_const(event_msg);
	const struct class_info *info = start_decode(decoder, event, out);

	if (clock) {
		clock->clock_class = NULL;
	}
	if (info->kind == VM_EVENT_OTHER) {
		return false;
	}
	out->ts = read_timestamp(info, event_msg, clock);
	decode_fields(decoder, info, event, out);
	return true;
}

bool event_decoder_decode(struct event_decoder *decoder,
		const bt_message *event_msg, struct vm_event *out)
{
	return event_decoder_decode_with_clock(decoder, event_msg, out, NULL);
}

bool event_decoder_decode_at(struct event_decoder *decoder,
		const bt_event *event, int64_t ts, struct vm_event *out)
{
	const struct class_info *info = start_decode(decoder, event, out);

	if (info->kind == VM_EVENT_OTHER) {
		return false;
	}
	out->ts = ts;
	decode_fields(decoder, info, event, out);
	return true;
}
