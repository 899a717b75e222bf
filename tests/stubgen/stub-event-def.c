/*
 * Event definitions of the stub format and the built-in table of the
 * lttng-modules events the vm plugin reads.
 */

#include "stub-event-def.h"

#include <string.h>

struct field_type_name {
	const char *name;
	enum stub_field_type type;
	unsigned int bits;
	bool is_signed;
	bool is_hex;
};

/* `xN` are unsigned integers that LTTng displays in hexadecimal. */
static const struct field_type_name field_types[] = {
	{ "s8", STUB_FIELD_S8, 8, true, false },
	{ "s16", STUB_FIELD_S16, 16, true, false },
	{ "s32", STUB_FIELD_S32, 32, true, false },
	{ "s64", STUB_FIELD_S64, 64, true, false },
	{ "u8", STUB_FIELD_U8, 8, false, false },
	{ "u16", STUB_FIELD_U16, 16, false, false },
	{ "u32", STUB_FIELD_U32, 32, false, false },
	{ "u64", STUB_FIELD_U64, 64, false, false },
	{ "x8", STUB_FIELD_X8, 8, false, true },
	{ "x16", STUB_FIELD_X16, 16, false, true },
	{ "x32", STUB_FIELD_X32, 32, false, true },
	{ "x64", STUB_FIELD_X64, 64, false, true },
	{ "string", STUB_FIELD_STRING, 0, false, false },
};

struct builtin_event {
	const char *name;
	const char *fields;
};

/*
 * Field names and types as lttng-modules (2.10 era) declares them: pid_t
 * and int are s32, long is s64, pointers are hexadecimal, comm arrays are
 * text (read back as strings). The enumerations of the statedump (type,
 * mode, submode, status) are written as their s32 container. The `vtids`
 * sequence of sched_process_fork is left out: a stub that needs it declares
 * it (`vtids:s32[]`, stub-traces/README.md), so that the traces of all
 * other stubs stay as they were.
 */
static const struct builtin_event builtin_events[] = {
	{ "sched_switch", "prev_comm:string prev_tid:s32 prev_prio:s32 prev_state:s64 "
		"next_comm:string next_tid:s32 next_prio:s32" },
	{ "sched_wakeup", "comm:string tid:s32 prio:s32 target_cpu:s32" },
	{ "sched_waking", "comm:string tid:s32 prio:s32 target_cpu:s32" },
	{ "sched_wakeup_new", "comm:string tid:s32 prio:s32 target_cpu:s32" },
	{ "sched_process_fork", "parent_comm:string parent_tid:s32 parent_pid:s32 "
		"parent_ns_inum:u32 child_comm:string child_tid:s32 child_pid:s32 "
		"child_ns_inum:u32" },
	{ "sched_process_exit", "comm:string tid:s32 prio:s32" },
	{ "sched_process_free", "comm:string tid:s32 prio:s32" },
	{ "lttng_statedump_start", "" },
	{ "lttng_statedump_end", "" },
	{ "lttng_statedump_process_state", "tid:s32 vtid:s32 pid:s32 vpid:s32 ppid:s32 "
		"vppid:s32 name:string type:s32 mode:s32 submode:s32 status:s32 ns_level:s32 "
		"ns_inum:u32 cpu:u32" },
	{ "kvm_entry", "vcpu_id:u32" },
	{ "kvm_x86_entry", "vcpu_id:u32" },
	{ "kvm_exit", "exit_reason:u32 guest_rip:x64 isa:u32 info1:u64 info2:u64" },
	{ "kvm_x86_exit", "exit_reason:u32 guest_rip:x64 isa:u32 info1:u64 info2:u64" },
	{ "kvm_x86_hypercall", "nr:u64 a0:u64 a1:u64 a2:u64 a3:u64" },
	{ "kvm_x86_write_tsc_offset", "vcpu_id:u32 previous_tsc_offset:u64 next_tsc_offset:u64" },
	{ "vmsync_gh_guest", "cnt:u32 vm_uid:u64" },
	{ "vmsync_hg_guest", "cnt:u32 vm_uid:u64" },
	{ "vmsync_gh_host", "cnt:u32 vm_uid:u64" },
	{ "vmsync_hg_host", "cnt:u32 vm_uid:u64" },
	{ "inet_sock_local_in", "sk:x64 seq:u32 ack_seq:u32 flags:u8" },
	{ "inet_sock_local_out", "sk:x64 seq:u32 ack_seq:u32 flags:u8" },
	{ "net_dev_queue", "skbaddr:x64 len:u32 name:string seq:u32 ack_seq:u32 flags:u8" },
	{ "netif_receive_skb", "skbaddr:x64 len:u32 name:string seq:u32 ack_seq:u32 flags:u8" },
	{ "net_if_receive_skb", "skbaddr:x64 len:u32 name:string seq:u32 ack_seq:u32 flags:u8" },
};

static const struct field_type_name *find_field_type(enum stub_field_type type)
{
	for (size_t i = 0; i < G_N_ELEMENTS(field_types); i++) {
		if (field_types[i].type == type) {
			return &field_types[i];
		}
	}
	g_assert_not_reached();
	return NULL;
}

bool stub_field_type_from_name(const char *name, enum stub_field_type *type)
{
	for (size_t i = 0; i < G_N_ELEMENTS(field_types); i++) {
		if (strcmp(field_types[i].name, name) == 0) {
			*type = field_types[i].type;
			return true;
		}
	}
	return false;
}

const char *stub_field_type_accepted(void)
{
	return "s8 s16 s32 s64 u8 u16 u32 u64 x8 x16 x32 x64 string "
		"(an integer type followed by `[]`: a sequence)";
}

unsigned int stub_field_type_bits(enum stub_field_type type)
{
	return find_field_type(type)->bits;
}

bool stub_field_type_is_signed(enum stub_field_type type)
{
	return find_field_type(type)->is_signed;
}

bool stub_field_type_is_hex(enum stub_field_type type)
{
	return find_field_type(type)->is_hex;
}

int stub_event_def_field_index(const struct stub_event_def *def, const char *name)
{
	for (guint i = 0; i < def->fields->len; i++) {
		if (strcmp(g_array_index(def->fields, struct stub_field_def, i).name, name) == 0) {
			return (int) i;
		}
	}
	return -1;
}

char *stub_event_def_field_list(const struct stub_event_def *def)
{
	GString *list = g_string_new(NULL);

	for (guint i = 0; i < def->fields->len; i++) {
		g_string_append_printf(list, "%s%s", i ? ", " : "",
			g_array_index(def->fields, struct stub_field_def, i).name);
	}
	if (def->fields->len == 0) {
		g_string_append(list, "(none)");
	}
	return g_string_free(list, FALSE);
}

static void clear_field_def(gpointer data)
{
	g_free(((struct stub_field_def *) data)->name);
}

static void destroy_event_def(gpointer data)
{
	struct stub_event_def *def = data;

	g_free(def->name);
	g_array_free(def->fields, TRUE);
	g_free(def);
}

static bool is_identifier(const char *name)
{
	if (!g_ascii_isalpha(name[0]) && name[0] != '_') {
		return false;
	}
	for (const char *c = name; *c; c++) {
		if (!g_ascii_isalnum(*c) && *c != '_') {
			return false;
		}
	}
	return true;
}

static bool parse_field_spec(const char *spec, struct stub_field_def *field, GString *error)
{
	const char *colon = strchr(spec, ':');
	enum stub_field_type type;
	char *name;
	char *type_name;
	bool is_sequence;

	if (!colon) {
		g_string_printf(error, "field `%s` has no type: expecting FIELD:TYPE with TYPE one of %s",
			spec, stub_field_type_accepted());
		return false;
	}
	name = g_strndup(spec, colon - spec);
	if (!is_identifier(name)) {
		g_string_printf(error, "bad field name `%s`: expecting letters, digits and `_`", name);
		g_free(name);
		return false;
	}
	is_sequence = g_str_has_suffix(colon + 1, "[]");
	type_name = g_strndup(colon + 1, strlen(colon + 1) - (is_sequence ? 2 : 0));
	if (!stub_field_type_from_name(type_name, &type) ||
			(is_sequence && type == STUB_FIELD_STRING)) {
		g_string_printf(error, "unknown type `%s` of field `%s`: expecting one of %s",
			colon + 1, name, stub_field_type_accepted());
		g_free(name);
		g_free(type_name);
		return false;
	}
	g_free(type_name);
	field->name = name;
	field->type = type;
	field->is_sequence = is_sequence;
	return true;
}

static GArray *parse_field_specs(const char *const *specs, size_t spec_count, GString *error)
{
	GArray *fields = g_array_new(FALSE, FALSE, sizeof(struct stub_field_def));

	g_array_set_clear_func(fields, clear_field_def);
	for (size_t i = 0; i < spec_count; i++) {
		struct stub_field_def field;
		struct stub_event_def probe = { .fields = fields };

		if (!parse_field_spec(specs[i], &field, error)) {
			goto error;
		}
		if (stub_event_def_field_index(&probe, field.name) >= 0) {
			g_string_printf(error, "field `%s` is declared twice", field.name);
			g_free(field.name);
			goto error;
		}
		g_array_append_val(fields, field);
	}
	return fields;

error:
	g_array_free(fields, TRUE);
	return NULL;
}

bool stub_event_table_declare(struct stub_event_table *table, const char *name,
		enum stub_event_layout layout, const char *const *specs, size_t spec_count,
		GString *error)
{
	struct stub_event_def *def;
	GArray *fields = parse_field_specs(specs, spec_count, error);

	if (!fields) {
		return false;
	}
	def = g_hash_table_lookup(table->by_name, name);
	if (def) {
		/* A redefinition keeps the event's place (and class id). */
		g_array_free(def->fields, TRUE);
		def->fields = fields;
		def->layout = layout;
		return true;
	}
	def = g_new0(struct stub_event_def, 1);
	def->name = g_strdup(name);
	def->layout = layout;
	def->index = table->defs->len;
	def->fields = fields;
	g_ptr_array_add(table->defs, def);
	g_hash_table_insert(table->by_name, def->name, def);
	return true;
}

bool stub_event_table_declare_context(struct stub_event_table *table,
		const char *const *specs, size_t spec_count, GString *error)
{
	GArray *fields = parse_field_specs(specs, spec_count, error);
	struct stub_event_def *def;

	if (!fields) {
		return false;
	}
	for (guint i = 0; i < fields->len; i++) {
		const struct stub_field_def *field =
			&g_array_index(fields, struct stub_field_def, i);

		if (field->type == STUB_FIELD_STRING || field->is_sequence) {
			g_string_printf(error, "context field `%s` must be an integer", field->name);
			g_array_free(fields, TRUE);
			return false;
		}
	}
	if (table->context) {
		destroy_event_def(table->context);
	}
	def = g_new0(struct stub_event_def, 1);
	def->name = g_strdup("event-context");
	def->layout = STUB_EVENT_LAYOUT_FLAT;
	def->fields = fields;
	table->context = def;
	return true;
}

static void declare_builtin(struct stub_event_table *table, const struct builtin_event *event)
{
	GString *error = g_string_new(NULL);
	char **specs = g_strsplit(event->fields, " ", -1);

	/* "" splits into no spec at all: an event without payload. */
	if (!stub_event_table_declare(table, event->name, STUB_EVENT_LAYOUT_FLAT,
			(const char *const *) specs, g_strv_length(specs), error)) {
		g_error("built-in event %s: %s", event->name, error->str);
	}
	g_strfreev(specs);
	g_string_free(error, TRUE);
}

struct stub_event_table *stub_event_table_create(void)
{
	struct stub_event_table *table = g_new0(struct stub_event_table, 1);

	table->defs = g_ptr_array_new_with_free_func(destroy_event_def);
	table->by_name = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t i = 0; i < G_N_ELEMENTS(builtin_events); i++) {
		declare_builtin(table, &builtin_events[i]);
	}
	return table;
}

bool stub_event_table_restore_builtin(struct stub_event_table *table, const char *name)
{
	for (size_t i = 0; i < G_N_ELEMENTS(builtin_events); i++) {
		if (strcmp(builtin_events[i].name, name) == 0) {
			declare_builtin(table, &builtin_events[i]);
			return true;
		}
	}
	return false;
}

void stub_event_table_destroy(struct stub_event_table *table)
{
	if (!table) {
		return;
	}
	g_hash_table_destroy(table->by_name);
	g_ptr_array_free(table->defs, TRUE);
	if (table->context) {
		destroy_event_def(table->context);
	}
	g_free(table);
}

char *stub_event_table_name_list(const struct stub_event_table *table)
{
	GString *list = g_string_new(NULL);

	for (guint i = 0; i < table->defs->len; i++) {
		const struct stub_event_def *def = g_ptr_array_index(table->defs, i);

		g_string_append_printf(list, "%s%s", i ? ", " : "", def->name);
	}
	return g_string_free(list, FALSE);
}

const struct stub_event_def *stub_event_table_lookup(
		const struct stub_event_table *table, const char *name)
{
	return g_hash_table_lookup(table->by_name, name);
}
