/*
 * Machines in order of first sight: see machine-names.h.
 */

#include <stdint.h>
#include <string.h>
#include <glib.h>

#include "common/machine-names.h"
#include "common/stream-cache.h"

struct machine_entry {
	struct machine_name_info info;
	char *name;
};

struct machine_names {
	/* struct machine_entry * (owned), by index. */
	GPtrArray *machines;
	/* Identity key (char *) -> struct machine_entry *. */
	GHashTable *by_identity;
	/* Hostname (char *) -> GUINT_TO_POINTER(machines with it). */
	GHashTable *hostname_uses;
	/* const bt_trace * (one reference held) -> struct machine_entry *. */
	GHashTable *by_trace;
	/*
	 * The machine of recent streams, asked for every event: the lookups
	 * through the stream's trace and `by_trace` are only for the others.
	 */
	struct stream_cache streams;
};

static void machine_entry_destroy(gpointer data)
{
	struct machine_entry *machine = data;

	g_free(machine->name);
	g_free(machine);
}

static void trace_put(gpointer trace)
{
	bt_trace_put_ref(trace);
}

struct machine_names *machine_names_create(void)
{
	struct machine_names *names = g_new0(struct machine_names, 1);

	names->machines = g_ptr_array_new_with_free_func(machine_entry_destroy);
	names->by_identity = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, NULL);
	names->hostname_uses = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, NULL);
	/* A reference on each trace: its address cannot name another one later. */
	names->by_trace = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		trace_put, NULL);
	return names;
}

void machine_names_destroy(struct machine_names *names)
{
	if (!names)
		return;
	stream_cache_clear(&names->streams);
	g_hash_table_destroy(names->by_trace);
	g_hash_table_destroy(names->by_identity);
	g_hash_table_destroy(names->hostname_uses);
	g_ptr_array_free(names->machines, TRUE);
	g_free(names);
}

/* A string entry of the trace environment, NULL if absent or not a string. */
static const char *env_string(const bt_trace *trace, const char *key)
{
	const bt_value *value =
		bt_trace_borrow_environment_entry_value_by_name_const(trace, key);

	return value && bt_value_is_string(value) ? bt_value_string_get(value) : NULL;
}

/* The clock class UUID as 32 hex digits, "" without one. */
static char *clock_uuid_text(const bt_stream *stream)
{
	const bt_clock_class *clock_class =
		bt_stream_class_borrow_default_clock_class_const(
			bt_stream_borrow_class_const(stream));
	bt_uuid uuid = clock_class ? bt_clock_class_get_uuid(clock_class) : NULL;
	GString *text = g_string_new(NULL);
	int i;

	for (i = 0; uuid && i < 16; i++)
		g_string_append_printf(text, "%02x", uuid[i]);
	return g_string_free(text, FALSE);
}

static enum machine_role role_of(const bt_trace *trace)
{
	const char *role = env_string(trace, "vm_role");

	if (role && strcmp(role, "host") == 0)
		return MACHINE_ROLE_HOST;
	if (role && strcmp(role, "guest") == 0)
		return MACHINE_ROLE_GUEST;
	return MACHINE_ROLE_UNKNOWN;
}

/* `hostname`, then `hostname#2`, `hostname#3`, ... */
static char *next_name_for(struct machine_names *names, const char *hostname)
{
	unsigned int uses = GPOINTER_TO_UINT(g_hash_table_lookup(
		names->hostname_uses, hostname)) + 1;

	g_hash_table_insert(names->hostname_uses, g_strdup(hostname),
		GUINT_TO_POINTER(uses));
	if (uses == 1)
		return g_strdup(hostname);
	return g_strdup_printf("%s#%u", hostname, uses);
}

/* The machine of a trace not met before, added on first sight. */
static struct machine_entry *machine_of_new_trace(struct machine_names *names,
		const bt_stream *stream, bool *is_new)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const char *given = env_string(trace, "vm_machine");
	const char *hostname = env_string(trace, "hostname");
	struct machine_entry *machine;
	char *identity;

	if (!hostname)
		hostname = "unknown";
	if (given) {
		identity = g_strdup_printf("vm_machine\x1f%s", given);
	} else {
		char *uuid = clock_uuid_text(stream);

		identity = g_strdup_printf("hostname\x1f%s\x1f%s", hostname, uuid);
		g_free(uuid);
	}
	machine = g_hash_table_lookup(names->by_identity, identity);
	if (machine) {
		g_free(identity);
		return machine;
	}
	machine = g_new0(struct machine_entry, 1);
	machine->name = given ? g_strdup(given) : next_name_for(names, hostname);
	machine->info.index = names->machines->len;
	machine->info.name = machine->name;
	machine->info.role = role_of(trace);
	g_ptr_array_add(names->machines, machine);
	g_hash_table_insert(names->by_identity, identity, machine);
	*is_new = true;
	return machine;
}

struct machine_name_info machine_names_of_stream(struct machine_names *names,
		const bt_stream *stream, bool *is_new)
{
	const bt_trace *trace;
	struct machine_entry *machine;
	unsigned int index;

	*is_new = false;
	if (stream_cache_find(&names->streams, stream, &index))
		return ((struct machine_entry *) g_ptr_array_index(names->machines,
			index))->info;
	trace = bt_stream_borrow_trace_const(stream);
	machine = g_hash_table_lookup(names->by_trace, trace);
	if (!machine) {
		machine = machine_of_new_trace(names, stream, is_new);
		bt_trace_get_ref(trace);
		g_hash_table_insert(names->by_trace, (gpointer) trace, machine);
	}
	stream_cache_add(&names->streams, stream, machine->info.index);
	return machine->info;
}

unsigned int machine_names_count(const struct machine_names *names)
{
	return names->machines->len;
}

static const struct machine_entry *machine_at(const struct machine_names *names,
		unsigned int index)
{
	return g_ptr_array_index(names->machines, index);
}

const char *machine_names_name(const struct machine_names *names,
		unsigned int index)
{
	if (index >= names->machines->len)
		return "";
	return machine_at(names, index)->name;
}

enum machine_role machine_names_role(const struct machine_names *names,
		unsigned int index)
{
	if (index >= names->machines->len)
		return MACHINE_ROLE_UNKNOWN;
	return machine_at(names, index)->info.role;
}

bool machine_names_find(const struct machine_names *names, const char *name,
		unsigned int *index)
{
	unsigned int i;

	for (i = 0; i < names->machines->len; i++) {
		if (strcmp(machine_at(names, i)->name, name) == 0) {
			*index = i;
			return true;
		}
	}
	return false;
}

char *machine_names_list(const struct machine_names *names)
{
	GString *list = g_string_new(NULL);
	unsigned int i;

	for (i = 0; i < names->machines->len; i++)
		g_string_append_printf(list, "%s`%s`", i ? ", " : "",
			machine_at(names, i)->name);
	if (names->machines->len == 0)
		g_string_append(list, "(none)");
	return g_string_free(list, FALSE);
}
