/*
 * Recognition of synchronization events: see sync-events.h.
 */

#include <stdint.h>
#include <string.h>
#include <glib.h>

#include "common/address-hash.h"
#include "correlate/sync-events.h"

/*
 * Where three key fields live: a walk from the payload down to the
 * structure that holds them. LTTng >= 2.9 network events nest the TCP
 * header under variants (network_header on the protocol, transport_header on
 * the transport), so a walk may cross variants; it then only applies when
 * the variant selects the option it went through.
 */
#define MAX_STEPS 8
#define MAX_PATHS 4
#define KEY_FIELDS 3

struct field_step {
	bool is_variant;
	uint64_t index;   /* member index, or variant option index */
};

struct field_path {
	unsigned int step_count;
	struct field_step steps[MAX_STEPS];
	uint64_t key_members[KEY_FIELDS];  /* indices in the final structure */
};

enum class_kind {
	CLASS_OTHER,
	CLASS_KVM_ENTRY,
	CLASS_VMSYNC,
	CLASS_TCP,
};

struct class_info {
	enum class_kind kind;
	enum vm_sync_role role;
	uint64_t direction;   /* vmsync: 0 guest to host, 1 host to guest */
	unsigned int path_count;
	struct field_path paths[MAX_PATHS];
};

/*
 * A small cache in front of the class table: the sync pass reads every
 * event, the merged streams interleave, and a trace set has few event
 * classes. Two-way (slots 2k and 2k+1 form a set, the newest first), as the
 * mirror's maps: direct-mapped, two busy classes can share a slot.
 */
#define CLASS_CACHE_BITS 8

struct class_cache_slot {
	const bt_event_class *event_class;
	struct class_info *info;
};

struct sync_event_reader {
	/* const bt_event_class * -> struct class_info * (owned). */
	GHashTable *classes;
	struct class_cache_slot cache[1 << CLASS_CACHE_BITS];
};

struct name_rule {
	const char *name;
	enum class_kind kind;
	enum vm_sync_role role;
	uint64_t direction;
};

static const struct name_rule name_rules[] = {
	{ "kvm_entry", CLASS_KVM_ENTRY, VM_SYNC_SEND, 0 },
	{ "kvm_x86_entry", CLASS_KVM_ENTRY, VM_SYNC_SEND, 0 },
	{ "vmsync_gh_guest", CLASS_VMSYNC, VM_SYNC_SEND, 0 },
	{ "vmsync_gh_host", CLASS_VMSYNC, VM_SYNC_RECEIVE, 0 },
	{ "vmsync_hg_host", CLASS_VMSYNC, VM_SYNC_SEND, 1 },
	{ "vmsync_hg_guest", CLASS_VMSYNC, VM_SYNC_RECEIVE, 1 },
	{ "inet_sock_local_out", CLASS_TCP, VM_SYNC_SEND, 0 },
	{ "net_dev_queue", CLASS_TCP, VM_SYNC_SEND, 0 },
	{ "inet_sock_local_in", CLASS_TCP, VM_SYNC_RECEIVE, 0 },
	{ "netif_receive_skb", CLASS_TCP, VM_SYNC_RECEIVE, 0 },
	{ "net_if_receive_skb", CLASS_TCP, VM_SYNC_RECEIVE, 0 },
};

static const char *const vmsync_keys[KEY_FIELDS] = { "vm_uid", "cnt", NULL };
static const char *const tcp_keys[KEY_FIELDS] = { "seq", "ack_seq", "flags" };

struct sync_event_reader *sync_event_reader_create(void)
{
	struct sync_event_reader *reader = g_new0(struct sync_event_reader, 1);

	reader->classes = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		NULL, g_free);
	return reader;
}

void sync_event_reader_destroy(struct sync_event_reader *reader)
{
	if (!reader) {
		return;
	}

	g_hash_table_destroy(reader->classes);
	g_free(reader);
}

static bool is_integer_class(const bt_field_class *fc)
{
	bt_field_class_type type = bt_field_class_get_type(fc);

	return bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_INTEGER);
}

/* Whether `structure` holds every key field, as integers; fills `path`. */
static bool structure_holds_keys(const bt_field_class *structure,
		const char *const keys[KEY_FIELDS], struct field_path *path)
{
	uint64_t count = bt_field_class_structure_get_member_count(structure);
	unsigned int k;

	for (k = 0; k < KEY_FIELDS && keys[k]; k++) {
		uint64_t i;
		bool found = false;

		for (i = 0; i < count && !found; i++) {
			const bt_field_class_structure_member *member =
				bt_field_class_structure_borrow_member_by_index_const(
					structure, i);

			if (strcmp(bt_field_class_structure_member_get_name(member),
					keys[k]) == 0 &&
					is_integer_class(bt_field_class_structure_member_borrow_field_class_const(
						member))) {
				path->key_members[k] = i;
				found = true;
			}
		}

		if (!found) {
			return false;
		}
	}

	return true;
}

static void find_key_paths(const bt_field_class *fc, const char *const keys[KEY_FIELDS],
		struct field_path *current, struct class_info *info);

static void descend(const bt_field_class *child, bool is_variant, uint64_t index,
		const char *const keys[KEY_FIELDS], struct field_path *current,
		struct class_info *info)
{
	if (current->step_count == MAX_STEPS) {
		return;
	}

	current->steps[current->step_count++] = (struct field_step) {
		.is_variant = is_variant,
		.index = index,
	};
	find_key_paths(child, keys, current, info);
	current->step_count--;
}

static void find_key_paths(const bt_field_class *fc, const char *const keys[KEY_FIELDS],
		struct field_path *current, struct class_info *info)
{
	bt_field_class_type type = bt_field_class_get_type(fc);
	uint64_t i;

	if (info->path_count == MAX_PATHS) {
		return;
	}

	if (type == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		if (structure_holds_keys(fc, keys, current)) {
			info->paths[info->path_count++] = *current;
			return;
		}

		for (i = 0; i < bt_field_class_structure_get_member_count(fc); i++) {
			descend(bt_field_class_structure_member_borrow_field_class_const(
					bt_field_class_structure_borrow_member_by_index_const(fc, i)),
				false, i, keys, current, info);
		}
	} else if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_VARIANT)) {
		for (i = 0; i < bt_field_class_variant_get_option_count(fc); i++) {
			descend(bt_field_class_variant_option_borrow_field_class_const(
					bt_field_class_variant_borrow_option_by_index_const(fc, i)),
				true, i, keys, current, info);
		}
	}
}

/* The rule of an event class name, NULL when none applies. */
static const struct name_rule *rule_of(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < G_N_ELEMENTS(name_rules); i++) {
		if (strcmp(name, name_rules[i].name) == 0) {
			return &name_rules[i];
		}
	}

	return NULL;
}

bool sync_event_name_is_kvm_entry(const char *name)
{
	const struct name_rule *rule = rule_of(name);

	return rule && rule->kind == CLASS_KVM_ENTRY;
}

bool sync_event_name_is_message(const char *name)
{
	const struct name_rule *rule = rule_of(name);

	return rule && (rule->kind == CLASS_VMSYNC || rule->kind == CLASS_TCP);
}

static struct class_info *classify(const bt_event_class *event_class)
{
	struct class_info *info = g_new0(struct class_info, 1);
	const char *name = bt_event_class_get_name(event_class);
	const bt_field_class *payload =
		bt_event_class_borrow_payload_field_class_const(event_class);
	struct field_path current = { 0 };
	const struct name_rule *rule = rule_of(name);

	info->kind = rule ? rule->kind : CLASS_OTHER;
	if (rule) {
		info->role = rule->role;
		info->direction = rule->direction;
	}

	if (!payload || (info->kind != CLASS_VMSYNC && info->kind != CLASS_TCP)) {
		return info;
	}

	if (info->kind == CLASS_VMSYNC) {
		/* vmsync fields are always top-level. */
		if (bt_field_class_get_type(payload) == BT_FIELD_CLASS_TYPE_STRUCTURE &&
				structure_holds_keys(payload, vmsync_keys, &current)) {
			info->paths[info->path_count++] = current;
		}
	} else {
		find_key_paths(payload, tcp_keys, &current, info);
	}

	return info;
}

static uint64_t integer_bits(const bt_field *field)
{
	if (bt_field_class_type_is(bt_field_get_class_type(field),
			BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		return bt_field_integer_unsigned_get_value(field);
	}

	return (uint64_t) bt_field_integer_signed_get_value(field);
}

/* The structure `path` leads to in this event, or NULL if a variant differs. */
static const bt_field *follow(const bt_field *field, const struct field_path *path)
{
	unsigned int i;

	for (i = 0; i < path->step_count; i++) {
		const struct field_step *step = &path->steps[i];

		if (!step->is_variant) {
			field = bt_field_structure_borrow_member_field_by_index_const(
				field, step->index);
		} else if (bt_field_variant_get_selected_option_index(field) == step->index) {
			field = bt_field_variant_borrow_selected_option_field_const(field);
		} else {
			return NULL;
		}
	}

	return field;
}

static bool read_key(const struct class_info *info, const bt_field *payload,
		struct vm_sync_key *key)
{
	unsigned int p;

	for (p = 0; p < info->path_count; p++) {
		const struct field_path *path = &info->paths[p];
		const bt_field *holder = follow(payload, path);
		uint64_t values[KEY_FIELDS] = { 0 };
		unsigned int k;

		if (!holder) {
			continue;
		}

		for (k = 0; k < KEY_FIELDS; k++) {
			if (info->kind == CLASS_VMSYNC && !vmsync_keys[k]) {
				continue;
			}

			values[k] = integer_bits(bt_field_structure_borrow_member_field_by_index_const(
				holder, path->key_members[k]));
		}

		key->a = values[0];
		key->b = values[1];
		/* vmsync: the direction keeps the two exchanges of one count apart. */
		key->c = info->kind == CLASS_VMSYNC ? info->direction : values[2];
		return true;
	}

	return false;
}

/* What the reader knows of `event_class`, classified on first sight. */
static const struct class_info *class_info_of(struct sync_event_reader *reader,
		const bt_event_class *event_class)
{
	struct class_cache_slot *set =
		&reader->cache[vm_address_hash(event_class, CLASS_CACHE_BITS) & ~(size_t) 1];
	struct class_info *info;

	if (set[0].event_class == event_class) {
		return set[0].info;
	}

	if (set[1].event_class == event_class) {
		return set[1].info;
	}

	info = g_hash_table_lookup(reader->classes, event_class);
	if (!info) {
		info = classify(event_class);
		g_hash_table_insert(reader->classes, (gpointer) event_class, info);
	}

	set[1] = set[0];
	set[0].event_class = event_class;
	set[0].info = info;
	return info;
}

enum sync_event_kind sync_event_read(struct sync_event_reader *reader,
		const bt_event *event, struct sync_message *out, bool *missing_fields)
{
	const struct class_info *info =
		class_info_of(reader, bt_event_borrow_class_const(event));

	*missing_fields = false;

	switch (info->kind) {
	case CLASS_KVM_ENTRY:
		return SYNC_EVENT_KVM_ENTRY;
	case CLASS_VMSYNC:
	case CLASS_TCP:
		break;
	default:
		return SYNC_EVENT_NONE;
	}

	if (info->path_count == 0) {
		*missing_fields = true;
		return SYNC_EVENT_NONE;
	}

	if (!read_key(info, bt_event_borrow_payload_field_const(event), &out->key)) {
		/* Not a TCP packet (another protocol option): nothing to match. */
		return SYNC_EVENT_NONE;
	}

	out->protocol = info->kind == CLASS_VMSYNC ? SYNC_PROTOCOL_VMSYNC :
		SYNC_PROTOCOL_TCP;
	out->role = info->role;
	return SYNC_EVENT_MESSAGE;
}
