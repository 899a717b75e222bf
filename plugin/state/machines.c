#include <string.h>
#include <glib.h>

#include "state/machines.h"

struct state_machines {
	/* Machine names (char *), by index. */
	GPtrArray *names;
	/* Identity key (char *) -> GUINT_TO_POINTER(index + 1) */
	GHashTable *by_identity;
	/* Hostname (char *) -> GUINT_TO_POINTER(machines with it) */
	GHashTable *hostname_uses;
	/* const bt_trace * (one reference held) -> GUINT_TO_POINTER(index + 1) */
	GHashTable *by_trace;
	const bt_trace *last_trace;
	unsigned int last_index;
};

static void trace_put(gpointer trace)
{
	bt_trace_put_ref(trace);
}

struct state_machines *state_machines_create(void)
{
	struct state_machines *machines = g_new0(struct state_machines, 1);

	machines->names = g_ptr_array_new_with_free_func(g_free);
	machines->by_identity = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, NULL);
	machines->hostname_uses = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, NULL);
	/* A reference on each trace: its address cannot be reused meanwhile. */
	machines->by_trace = g_hash_table_new_full(g_direct_hash,
		g_direct_equal, trace_put, NULL);
	return machines;
}

void state_machines_destroy(struct state_machines *machines)
{
	if (!machines)
		return;
	g_ptr_array_free(machines->names, TRUE);
	g_hash_table_destroy(machines->by_identity);
	g_hash_table_destroy(machines->hostname_uses);
	g_hash_table_destroy(machines->by_trace);
	g_free(machines);
}

static const char *env_string(const bt_trace *trace, const char *name)
{
	const bt_value *value = bt_trace_borrow_environment_entry_value_by_name_const(
		trace, name);

	return value && bt_value_is_string(value) ? bt_value_string_get(value) : NULL;
}

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

/* A name not taken yet: the hostname, else hostname#2, #3, ... */
static char *new_machine_name(struct state_machines *machines,
		const char *hostname)
{
	unsigned int uses = GPOINTER_TO_UINT(g_hash_table_lookup(
		machines->hostname_uses, hostname));

	g_hash_table_insert(machines->hostname_uses, g_strdup(hostname),
		GUINT_TO_POINTER(uses + 1));
	if (uses == 0)
		return g_strdup(hostname);
	return g_strdup_printf("%s#%u", hostname, uses + 1);
}

static unsigned int machine_of_identity(struct state_machines *machines,
		char *identity, const char *hostname, bool given_name)
{
	gpointer known = g_hash_table_lookup(machines->by_identity, identity);
	unsigned int index;

	if (known) {
		g_free(identity);
		return GPOINTER_TO_UINT(known) - 1;
	}
	index = machines->names->len;
	g_ptr_array_add(machines->names, given_name ? g_strdup(hostname) :
		new_machine_name(machines, hostname));
	g_hash_table_insert(machines->by_identity, identity,
		GUINT_TO_POINTER(index + 1));
	return index;
}

static unsigned int identify(struct state_machines *machines,
		const bt_stream *stream)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const char *given = env_string(trace, "vm_machine");
	const char *hostname = env_string(trace, "hostname");
	char *uuid;
	char *identity;

	if (given)
		return machine_of_identity(machines,
			g_strdup_printf("vm_machine\x1f%s", given), given, true);
	if (!hostname)
		hostname = "unknown";
	uuid = clock_uuid_text(stream);
	identity = g_strdup_printf("%s\x1f%s", hostname, uuid);
	g_free(uuid);
	return machine_of_identity(machines, identity, hostname, false);
}

unsigned int state_machines_of_stream(struct state_machines *machines,
		const bt_stream *stream, bool *is_new)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	unsigned int count = machines->names->len;
	gpointer known;
	unsigned int index;

	*is_new = false;
	if (trace == machines->last_trace)
		return machines->last_index;
	known = g_hash_table_lookup(machines->by_trace, trace);
	if (known) {
		index = GPOINTER_TO_UINT(known) - 1;
	} else {
		index = identify(machines, stream);
		*is_new = machines->names->len > count;
		bt_trace_get_ref(trace);
		g_hash_table_insert(machines->by_trace, (gpointer) trace,
			GUINT_TO_POINTER(index + 1));
	}
	machines->last_trace = trace;
	machines->last_index = index;
	return index;
}

unsigned int state_machines_count(const struct state_machines *machines)
{
	return machines->names->len;
}

const char *state_machines_name(const struct state_machines *machines,
		unsigned int index)
{
	if (index >= machines->names->len)
		return "";
	return g_ptr_array_index(machines->names, index);
}

bool state_machines_find(const struct state_machines *machines,
		const char *name, unsigned int *index)
{
	guint i;

	for (i = 0; i < machines->names->len; i++) {
		if (strcmp(g_ptr_array_index(machines->names, i), name) == 0) {
			*index = i;
			return true;
		}
	}
	return false;
}

char *state_machines_list(const struct state_machines *machines)
{
	GString *list = g_string_new(NULL);
	guint i;

	for (i = 0; i < machines->names->len; i++)
		g_string_append_printf(list, "%s`%s`", i ? ", " : "",
			(const char *) g_ptr_array_index(machines->names, i));
	if (machines->names->len == 0)
		g_string_append(list, "(none)");
	return g_string_free(list, FALSE);
}
