/*
 * The machine registry: see machine.h.
 */

#include <string.h>
#include <glib.h>

#include "common/machine.h"
#include "common/stream-cache.h"
#include "util/machine-name.h"

struct machine_table {
	/* struct machine *, owned, in order of first sight. */
	GPtrArray *machines;

	/* Identity text (see identity_of()) -> struct machine *. */
	GHashTable *by_identity;

	/* const bt_clock_class * (one reference held) -> struct machine *. */
	GHashTable *by_clock_class;

	/* const bt_trace * (one reference held) -> struct machine *. */
	GHashTable *by_trace;

	/*
	 * The machine of recent streams, asked for every event: the lookups
	 * through the stream's trace are only for the others.
	 */
	struct stream_cache streams;

	/* Whether the first naming (the sorted one) happened. */
	bool names_assigned;
};

static void machine_destroy(gpointer data)
{
	struct machine *machine = data;

	g_free(machine->hostname);
	g_free(machine->given_name);
	g_free(machine->clock_key);
	g_free(machine->name);
	vm_warn_once_destroy(machine->warned);
	g_free(machine);
}

/* References are held so that an address cannot name another object later. */
static void trace_put(gpointer trace)
{
	bt_trace_put_ref(trace);
}

static void clock_class_put(gpointer clock_class)
{
	bt_clock_class_put_ref(clock_class);
}

struct machine_table *machine_table_create(void)
{
	struct machine_table *table = g_new0(struct machine_table, 1);

	table->machines = g_ptr_array_new_with_free_func(machine_destroy);
	table->by_identity = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, NULL);
	table->by_clock_class = g_hash_table_new_full(g_direct_hash,
		g_direct_equal, clock_class_put, NULL);
	table->by_trace = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		trace_put, NULL);
	return table;
}

void machine_table_destroy(struct machine_table *table)
{
	if (!table) {
		return;
	}

	stream_cache_clear(&table->streams);
	g_hash_table_destroy(table->by_trace);
	g_hash_table_destroy(table->by_clock_class);
	g_hash_table_destroy(table->by_identity);
	g_ptr_array_free(table->machines, TRUE);
	g_free(table);
}

/* A string entry of the trace environment, NULL if absent or not a string. */
static const char *env_string(const bt_trace *trace, const char *key)
{
	const bt_value *value =
		bt_trace_borrow_environment_entry_value_by_name_const(trace, key);

	return value && bt_value_is_string(value) ? bt_value_string_get(value) : NULL;
}

/*
 * A trace without `hostname` belongs to a machine named "unknown": an empty
 * name could not be given back in the `reference`, `host`, `transforms` or
 * `vm-pids` parameters.
 */
static const char *trace_hostname(const bt_trace *trace)
{
	const char *hostname = env_string(trace, "hostname");

	return hostname && hostname[0] ? hostname : "unknown";
}

/* A `vm_machine` worth following: a non-empty string. */
static const char *trace_given_name(const bt_trace *trace)
{
	const char *given = env_string(trace, "vm_machine");

	return given && given[0] ? given : NULL;
}

/* Environment `vm_host_pid`, -1 if absent, not a signed integer or negative. */
static int64_t trace_host_pid(const bt_trace *trace)
{
	const bt_value *value =
		bt_trace_borrow_environment_entry_value_by_name_const(trace, "vm_host_pid");
	int64_t pid;

	if (!value || !bt_value_is_signed_integer(value)) {
		return -1;
	}

	pid = bt_value_integer_signed_get(value);
	return pid >= 0 ? pid : -1;
}

static enum machine_role trace_role(const bt_trace *trace)
{
	const char *role = env_string(trace, "vm_role");

	if (role && strcmp(role, "host") == 0) {
		return MACHINE_ROLE_HOST;
	}

	if (role && strcmp(role, "guest") == 0) {
		return MACHINE_ROLE_GUEST;
	}

	return MACHINE_ROLE_UNKNOWN;
}

static const bt_clock_class *stream_clock_class(const bt_stream *stream)
{
	return bt_stream_class_borrow_default_clock_class_const(
		bt_stream_borrow_class_const(stream));
}

static char *uuid_text(bt_uuid uuid)
{
	return g_strdup_printf("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		"%02x%02x%02x%02x%02x%02x",
		uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6],
		uuid[7], uuid[8], uuid[9], uuid[10], uuid[11], uuid[12],
		uuid[13], uuid[14], uuid[15]);
}

/* The clock UUID of a stream as text, or NULL. */
static char *stream_uuid_text(const bt_stream *stream)
{
	const bt_clock_class *clock_class = stream_clock_class(stream);
	bt_uuid uuid = clock_class ? bt_clock_class_get_uuid(clock_class) : NULL;

	return uuid ? uuid_text(uuid) : NULL;
}

/*
 * The identity of the machine of a trace not met before (see machine.h),
 * or NULL when the trace is a machine of its own. `clock_key` receives what
 * orders it among the machines of its hostname.
 */
static char *identity_of(const bt_stream *stream, char **clock_key)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const char *given = trace_given_name(trace);
	char *uuid;
	char *identity;

	if (given) {
		*clock_key = g_strdup("~");
		return g_strdup_printf("vm_machine\x1f%s", given);
	}

	uuid = stream_uuid_text(stream);
	if (!uuid) {
		*clock_key = g_strdup("~");
		return NULL;
	}

	identity = g_strdup_printf("hostname\x1f%s\x1f%s", trace_hostname(trace), uuid);
	*clock_key = uuid;
	return identity;
}

static struct machine *machine_table_add(struct machine_table *table,
		const bt_trace *trace, char *clock_key)
{
	struct machine *machine = g_new0(struct machine, 1);
	const char *given = trace_given_name(trace);

	machine->warned = vm_warn_once_create();
	machine->index = table->machines->len;
	machine->hostname = g_strdup(trace_hostname(trace));
	machine->given_name = given ? g_strdup(given) : NULL;
	machine->clock_key = clock_key;
	machine->host_pid = -1;
	g_ptr_array_add(table->machines, machine);
	return machine;
}

/* The machine of a trace not met before, added if its identity is new. */
static struct machine *machine_of_new_trace(struct machine_table *table,
		const bt_stream *stream, bool *is_new)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	char *clock_key;
	char *identity = identity_of(stream, &clock_key);
	struct machine *machine =
		identity ? g_hash_table_lookup(table->by_identity, identity) : NULL;

	if (machine) {
		g_free(identity);
		g_free(clock_key);
	} else {
		machine = machine_table_add(table, trace, clock_key);
		*is_new = true;
		if (identity) {
			g_hash_table_insert(table->by_identity, identity, machine);
		}
	}

	bt_trace_get_ref(trace);
	g_hash_table_insert(table->by_trace, (gpointer) trace, machine);
	if (machine->role == MACHINE_ROLE_UNKNOWN) {
		machine->role = trace_role(trace);
	}

	if (env_string(trace, "vm_sync_quality")) {
		const char *method = env_string(trace, "vm_sync_method");

		machine->from_correlate = true;
		if (method && strcmp(method, "reference") == 0) {
			machine->was_reference = true;
		}
	}

	if (machine->host_pid < 0) {
		machine->host_pid = trace_host_pid(trace);
	}

	return machine;
}

/* A stream not in the cache: through its trace, then its clock class. */
static struct machine *machine_of_uncached_stream(struct machine_table *table,
		const bt_stream *stream, bool *is_new)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const bt_clock_class *clock_class = stream_clock_class(stream);
	struct machine *machine = g_hash_table_lookup(table->by_trace, trace);

	if (!machine) {
		machine = machine_of_new_trace(table, stream, is_new);
	}

	if (clock_class) {
		machine->has_clock = true;
		if (!g_hash_table_contains(table->by_clock_class, clock_class)) {
			bt_clock_class_get_ref(clock_class);
			g_hash_table_insert(table->by_clock_class,
				(gpointer) clock_class, machine);
		}
	}

	return machine;
}

struct machine *machine_table_machine_of_stream(struct machine_table *table,
		const bt_stream *stream, bool *is_new)
{
	struct machine *machine;
	unsigned int index;
	bool registered = false;

	if (stream_cache_find(&table->streams, stream, &index)) {
		machine = machine_table_at(table, index);
	} else {
		machine = machine_of_uncached_stream(table, stream, &registered);
		stream_cache_add(&table->streams, stream, machine->index);
	}

	if (is_new) {
		*is_new = registered;
	}

	return machine;
}

struct machine *machine_table_machine_of_clock_class(
		const struct machine_table *table, const bt_clock_class *clock_class)
{
	return g_hash_table_lookup(table->by_clock_class, clock_class);
}

struct machine *machine_table_machine_of_trace(const struct machine_table *table,
		const bt_trace *trace)
{
	return g_hash_table_lookup(table->by_trace, trace);
}

/* The first key of `hash` whose machine is `machine`, or NULL. */
static gpointer key_of_machine(GHashTable *hash, const struct machine *machine)
{
	GHashTableIter iter;
	gpointer key, value;

	g_hash_table_iter_init(&iter, hash);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		if (value == machine) {
			return key;
		}
	}
	return NULL;
}

const bt_trace *machine_table_trace_of(const struct machine_table *table,
		const struct machine *machine)
{
	return key_of_machine(table->by_trace, machine);
}

const bt_clock_class *machine_table_clock_class_of(
		const struct machine_table *table, const struct machine *machine)
{
	return key_of_machine(table->by_clock_class, machine);
}

unsigned int machine_table_count(const struct machine_table *table)
{
	return table->machines->len;
}

struct machine *machine_table_at(const struct machine_table *table, unsigned int index)
{
	return g_ptr_array_index(table->machines, index);
}

static gint compare_identity(gconstpointer a, gconstpointer b)
{
	const struct machine *x = *(struct machine * const *) a;
	const struct machine *y = *(struct machine * const *) b;
	int diff = strcmp(x->hostname, y->hostname);

	if (diff) {
		return diff;
	}

	diff = strcmp(x->clock_key, y->clock_key);
	if (diff) {
		return diff;
	}

	return x->index < y->index ? -1 : x->index > y->index;
}

static bool name_taken(const struct machine_table *table, const char *name)
{
	return machine_table_find_by_name(table, name) != NULL;
}

/* `base`, else `base#2`, `base#3`, ...: the first one free. */
static void name_machine(struct machine_table *table, struct machine *machine,
		const char *base)
{
	unsigned int suffix = 2;
	char *name = g_strdup(base);

	while (name_taken(table, name)) {
		g_free(name);
		name = g_strdup_printf("%s#%u", base, suffix++);
	}

	machine->name = name;
}

void machine_table_assign_names(struct machine_table *table)
{
	GPtrArray *order = g_ptr_array_new();
	unsigned int i;

	for (i = 0; i < table->machines->len; i++) {
		struct machine *machine = machine_table_at(table, i);

		if (!machine->name) {
			g_ptr_array_add(order, machine);
		}
	}

	/* Later machines keep registration order: earlier names must not move. */
	if (!table->names_assigned) {
		g_ptr_array_sort(order, compare_identity);
		table->names_assigned = true;
	}

	/* Names correlate gave win over hostnames that would take them. */
	for (i = 0; i < order->len; i++) {
		struct machine *machine = g_ptr_array_index(order, i);

		if (machine->given_name && !name_taken(table, machine->given_name)) {
			machine->name = g_strdup(machine->given_name);
		}
	}

	for (i = 0; i < order->len; i++) {
		struct machine *machine = g_ptr_array_index(order, i);

		if (!machine->name) {
			name_machine(table, machine, machine->given_name ?
				machine->given_name : machine->hostname);
		}
	}

	g_ptr_array_free(order, TRUE);
}

const char *machine_display_name(const struct machine *machine)
{
	return machine->name ? machine->name : machine->hostname;
}

struct machine *machine_table_find_by_name(const struct machine_table *table,
		const char *name)
{
	unsigned int i;

	for (i = 0; i < table->machines->len; i++) {
		struct machine *machine = machine_table_at(table, i);

		if (machine->name && strcmp(machine->name, name) == 0) {
			return machine;
		}
	}

	return NULL;
}

/*
 * The named machines (only those can be named by a parameter, as in
 * machine_table_find_by_name()) and their names, side by side.
 */
struct named_machines {
	GPtrArray *machines;
	GPtrArray *names;
};

static struct named_machines named_machines(const struct machine_table *table)
{
	struct named_machines named = { g_ptr_array_new(), g_ptr_array_new() };
	unsigned int i;

	for (i = 0; i < table->machines->len; i++) {
		struct machine *machine = machine_table_at(table, i);

		if (machine->name) {
			g_ptr_array_add(named.machines, machine);
			g_ptr_array_add(named.names, machine->name);
		}
	}

	return named;
}

static void named_machines_free(struct named_machines *named)
{
	g_ptr_array_free(named->machines, TRUE);
	g_ptr_array_free(named->names, TRUE);
}

struct machine *machine_table_find_by_param(const struct machine_table *table,
		const char *spelling)
{
	struct named_machines named = named_machines(table);
	int index = vm_machine_name_match(spelling,
		(const char *const *) named.names->pdata, named.names->len);
	struct machine *found = index < 0 ? NULL :
		g_ptr_array_index(named.machines, (unsigned int) index);

	named_machines_free(&named);
	return found;
}

char *machine_param_name(const struct machine_table *table,
		const struct machine *machine)
{
	struct named_machines named = named_machines(table);
	char *spelled = vm_machine_name_for_param(machine_display_name(machine),
		(const char *const *) named.names->pdata, named.names->len);

	named_machines_free(&named);
	return spelled;
}

static gint compare_strings(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char * const *) a, *(char * const *) b);
}

char *machine_table_names_text(const struct machine_table *table)
{
	GPtrArray *names = g_ptr_array_new();
	GString *text = g_string_new(NULL);
	unsigned int i;

	for (i = 0; i < table->machines->len; i++) {
		g_ptr_array_add(names,
			(gpointer) machine_display_name(machine_table_at(table, i)));
	}

	g_ptr_array_sort(names, compare_strings);
	for (i = 0; i < names->len; i++) {
		g_string_append_printf(text, "%s`%s`", i ? ", " : "",
			(char *) g_ptr_array_index(names, i));
	}

	if (names->len == 0) {
		g_string_append(text, "(none)");
	}

	g_ptr_array_free(names, TRUE);
	return g_string_free(text, FALSE);
}

bool machine_warn_once(struct machine *machine, unsigned int kind)
{
	return vm_warn_once_first_id(machine->warned, kind, 0);
}

bool machine_table_rekey_params(const struct machine_table *table, GHashTable **params,
		char **bad_key, const struct machine **machine)
{
	GHashTable *resolved = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	GHashTableIter it;
	gpointer key, value;

	g_hash_table_iter_init(&it, *params);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		*machine = machine_table_find_by_param(table, key);
		if (!*machine || g_hash_table_contains(resolved, (*machine)->name)) {
			*bad_key = g_strdup(key);
			g_hash_table_destroy(resolved);
			return false;
		}

		g_hash_table_iter_steal(&it);
		g_hash_table_insert(resolved, g_strdup((*machine)->name), value);
		g_free(key);
	}

	g_hash_table_destroy(*params);
	*params = resolved;
	return true;
}
