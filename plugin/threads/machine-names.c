#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "machine-names.h"

struct machine {
	struct machine_info info;
	char *name;
};

struct machine_names {
	GHashTable *by_trace;     /* const bt_trace * (a reference) -> struct machine */
	GHashTable *by_identity;  /* identity string -> struct machine (owned) */
	GHashTable *hostname_uses; /* hostname -> number of machines using it */
	unsigned int count;
};

static void machine_destroy(gpointer data)
{
	struct machine *m = data;

	g_free(m->name);
	g_free(m);
}

struct machine_names *machine_names_create(void)
{
	struct machine_names *names = g_new0(struct machine_names, 1);

	/* A reference keeps the address from naming another trace later. */
	names->by_trace = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		(GDestroyNotify) bt_trace_put_ref, NULL);
	names->by_identity = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		machine_destroy);
	names->hostname_uses = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return names;
}

void machine_names_destroy(struct machine_names *names)
{
	if (!names)
		return;
	g_hash_table_destroy(names->by_trace);
	g_hash_table_destroy(names->by_identity);
	g_hash_table_destroy(names->hostname_uses);
	g_free(names);
}

/* A string entry of the trace environment, NULL if absent or not a string. */
static const char *env_string(const bt_trace *trace, const char *key)
{
	const bt_value *value =
		bt_trace_borrow_environment_entry_value_by_name_const(trace, key);

	return value && bt_value_is_string(value) ? bt_value_string_get(value) : NULL;
}

static char *clock_uuid(const bt_stream *stream)
{
	const bt_clock_class *clock = bt_stream_class_borrow_default_clock_class_const(
		bt_stream_borrow_class_const(stream));
	bt_uuid uuid = clock ? bt_clock_class_get_uuid(clock) : NULL;
	GString *s = g_string_new("");

	for (int i = 0; uuid && i < 16; i++)
		g_string_append_printf(s, "%02x", uuid[i]);
	return g_string_free(s, FALSE);
}

static enum vm_threads_role role_of(const bt_trace *trace)
{
	const char *role = env_string(trace, "vm_role");

	if (role && strcmp(role, "host") == 0)
		return VM_THREADS_ROLE_HOST;
	if (role && strcmp(role, "guest") == 0)
		return VM_THREADS_ROLE_GUEST;
	return VM_THREADS_ROLE_UNKNOWN;
}

/* `hostname`, then `hostname#2`, `hostname#3`, ... */
static char *next_name_for(struct machine_names *names, const char *hostname)
{
	guint uses = GPOINTER_TO_UINT(g_hash_table_lookup(names->hostname_uses, hostname)) + 1;

	g_hash_table_insert(names->hostname_uses, g_strdup(hostname), GUINT_TO_POINTER(uses));
	return uses == 1 ? g_strdup(hostname) : g_strdup_printf("%s#%u", hostname, uses);
}

static struct machine *machine_for_trace(struct machine_names *names,
		const bt_stream *stream, bool *is_new)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const char *given = env_string(trace, "vm_machine");
	const char *hostname = env_string(trace, "hostname");
	char *uuid = clock_uuid(stream);
	char *identity;
	struct machine *m;

	/* As filter.vm.state names it: its `vm` fields must match our names. */
	if (!hostname)
		hostname = "unknown";
	identity = given ? g_strdup_printf("vm_machine\n%s", given) :
		g_strdup_printf("host\n%s\n%s", hostname, uuid);
	g_free(uuid);
	m = g_hash_table_lookup(names->by_identity, identity);
	if (m) {
		g_free(identity);
		return m;
	}
	m = g_new0(struct machine, 1);
	m->name = given ? g_strdup(given) : next_name_for(names, hostname);
	m->info.index = names->count++;
	m->info.name = m->name;
	m->info.role = role_of(trace);
	g_hash_table_insert(names->by_identity, identity, m);
	*is_new = true;
	return m;
}

struct machine_info machine_names_of_stream(struct machine_names *names,
		const bt_stream *stream, bool *is_new)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	struct machine *m = g_hash_table_lookup(names->by_trace, trace);

	*is_new = false;
	if (!m) {
		m = machine_for_trace(names, stream, is_new);
		bt_trace_get_ref(trace);
		g_hash_table_insert(names->by_trace, (gpointer) trace, m);
	}
	return m->info;
}
