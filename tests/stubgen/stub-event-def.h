/*
 * Event definitions of the stub format: an event name and its payload
 * fields, each with the integer type (signedness, size, display base) or
 * string type that lttng-modules gives it. The built-in table lists the
 * events the vm plugin reads; `event` directives add or redefine events.
 */

#ifndef VMSTUB_STUB_EVENT_DEF_H
#define VMSTUB_STUB_EVENT_DEF_H

#include <stdbool.h>
#include <stddef.h>
#include <glib.h>

enum stub_field_type {
	STUB_FIELD_S8,
	STUB_FIELD_S16,
	STUB_FIELD_S32,
	STUB_FIELD_S64,
	STUB_FIELD_U8,
	STUB_FIELD_U16,
	STUB_FIELD_U32,
	STUB_FIELD_U64,
	STUB_FIELD_X8,
	STUB_FIELD_X16,
	STUB_FIELD_X32,
	STUB_FIELD_X64,
	STUB_FIELD_STRING,
};

struct stub_field_def {
	char *name;
	/* of the elements, for a sequence */
	enum stub_field_type type;
	/*
	 * `TYPE[]`: a sequence of integers (lttng-modules' ctf_sequence),
	 * written `[1,2,3]` on event lines.
	 */
	bool is_sequence;
};

/* How the payload of an event is laid out in the trace. */
enum stub_event_layout {
	/* One payload member per field of the line. */
	STUB_EVENT_LAYOUT_FLAT,
	/* lttng-modules >= 2.9 network headers (stub-net-layout.h). */
	STUB_EVENT_LAYOUT_NET_HEADERS,
};

struct stub_event_def {
	char *name;
	enum stub_event_layout layout;
	/* Position in the definition table: the event class id follows it. */
	size_t index;
	/* struct stub_field_def, in payload order */
	GArray *fields;
};

/* The set of events a stub may use, in declaration order. */
struct stub_event_table {
	/* struct stub_event_def * (owned) */
	GPtrArray *defs;
	/* name -> struct stub_event_def * (borrowed from defs) */
	GHashTable *by_name;
	/*
	 * The fields every event carries in its context (`event-context`
	 * directive, like `lttng add-context`), integers only; NULL: none.
	 */
	struct stub_event_def *context;
};

bool stub_field_type_from_name(const char *name, enum stub_field_type *type);
const char *stub_field_type_accepted(void);
unsigned int stub_field_type_bits(enum stub_field_type type);
bool stub_field_type_is_signed(enum stub_field_type type);
bool stub_field_type_is_hex(enum stub_field_type type);

/* Index of a field in the payload, or -1. */
int stub_event_def_field_index(const struct stub_event_def *def, const char *name);

/* "a, b, c": the field names, for error messages. */
char *stub_event_def_field_list(const struct stub_event_def *def);

/* A table holding the built-in events. */
struct stub_event_table *stub_event_table_create(void);
void stub_event_table_destroy(struct stub_event_table *table);

/* "a, b, c": the event names, in declaration order, for error messages. */
char *stub_event_table_name_list(const struct stub_event_table *table);

const struct stub_event_def *stub_event_table_lookup(
		const struct stub_event_table *table, const char *name);

/*
 * Declares (or redefines) NAME with the FIELD:TYPE specs of `specs` (the
 * fields of its lines) and the payload layout. On a bad spec, returns false
 * and describes it in `error`.
 */
bool stub_event_table_declare(struct stub_event_table *table, const char *name,
		enum stub_event_layout layout, const char *const *specs, size_t spec_count,
		GString *error);

/*
 * Declares the event context fields (FIELD:TYPE specs, integer types, no
 * sequence); a later declaration replaces it. False + `error` when bad.
 */
bool stub_event_table_declare_context(struct stub_event_table *table,
		const char *const *specs, size_t spec_count, GString *error);

/* Gives NAME back its built-in definition; false when it has none. */
bool stub_event_table_restore_builtin(struct stub_event_table *table, const char *name);

#endif /* VMSTUB_STUB_EVENT_DEF_H */
