/*
 * Machine identification: see machine.h.
 */

#include <string.h>
#include <glib.h>

#include "common/machine.h"

struct machine_table {
	/* struct machine *, owned, in registration order. */
	GPtrArray *machines;

	/* "hostname\x1fuuid" -> struct machine * (machines with a UUID). */
	GHashTable *by_identity;

	/* const bt_clock_class * -> struct machine *. */
	GHashTable *by_clock_class;

	/* const bt_trace * -> struct machine * (of its first stream). */
	GHashTable *by_trace;

	/* Whether the first naming (the sorted one) happened. */
	bool names_assigned;
};

static void machine_destroy(gpointer data)
{
	struct machine *machine = data;

	g_free(machine->hostname);
	g_free(machine->clock_key);
	g_free(machine->name);
	g_free(machine);
}

struct machine_table *machine_table_create(void)
{
	struct machine_table *table = g_new0(struct machine_table, 1);

	table->machines = g_ptr_array_new_with_free_func(machine_destroy);
	table->by_identity = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, NULL);
	table->by_clock_class = g_hash_table_new(g_direct_hash, g_direct_equal);
	table->by_trace = g_hash_table_new(g_direct_hash, g_direct_equal);
	return table;
}

void machine_table_destroy(struct machine_table *table)
{
	if (!table) {
		return;
	}

	g_hash_table_destroy(table->by_trace);
	g_hash_table_destroy(table->by_clock_class);
	g_hash_table_destroy(table->by_identity);
	g_ptr_array_free(table->machines, TRUE);
	g_free(table);
}

/*
 * A trace without `hostname` belongs to a machine named "unknown", as the
 * downstream components name it: an empty name could not be given back in
 * the `reference`, `host` or `transforms` parameters.
 */
static const char *trace_hostname(const bt_trace *trace)
{
	const bt_value *value =
		bt_trace_borrow_environment_entry_value_by_name_const(trace, "hostname");

	if (!value || !bt_value_is_string(value)) {
		return "unknown";
	}

	return bt_value_string_get(value);
}

static char *uuid_text(bt_uuid uuid)
{
	return g_strdup_printf("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		"%02x%02x%02x%02x%02x%02x",
		uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6],
		uuid[7], uuid[8], uuid[9], uuid[10], uuid[11], uuid[12],
		uuid[13], uuid[14], uuid[15]);
}

static struct machine *machine_table_add(struct machine_table *table,
		const char *hostname, char *clock_key, bool has_clock)
{
	struct machine *machine = g_new0(struct machine, 1);

	machine->index = table->machines->len;
	machine->hostname = g_strdup(hostname);
	machine->clock_key = clock_key;
	machine->has_clock = has_clock;
	g_ptr_array_add(table->machines, machine);
	return machine;
}

/* The machine of a clock class never met before. */
static struct machine *machine_of_new_clock_class(struct machine_table *table,
		const char *hostname, const bt_clock_class *clock_class)
{
	bt_uuid uuid = bt_clock_class_get_uuid(clock_class);
	struct machine *machine;
	char *key;
	char *identity;

	if (!uuid) {
		/* No UUID: nothing can tell that two such clocks are one. */
		return machine_table_add(table, hostname, g_strdup("~"), true);
	}

	key = uuid_text(uuid);
	identity = g_strdup_printf("%s\x1f%s", hostname, key);
	machine = g_hash_table_lookup(table->by_identity, identity);
	if (machine) {
		g_free(identity);
		g_free(key);
		return machine;
	}

	machine = machine_table_add(table, hostname, key, true);
	g_hash_table_insert(table->by_identity, identity, machine);
	return machine;
}

struct machine *machine_table_machine_of_stream(struct machine_table *table,
		const bt_stream *stream)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const bt_clock_class *clock_class =
		bt_stream_class_borrow_default_clock_class_const(
			bt_stream_borrow_class_const(stream));
	struct machine *machine;

	if (clock_class) {
		machine = g_hash_table_lookup(table->by_clock_class, clock_class);
		if (!machine) {
			machine = machine_of_new_clock_class(table,
				trace_hostname(trace), clock_class);
			g_hash_table_insert(table->by_clock_class,
				(gpointer) clock_class, machine);
		}
	} else {
		/* No clock: the trace is the only identity left. */
		machine = g_hash_table_lookup(table->by_trace, trace);
		if (!machine) {
			machine = machine_table_add(table, trace_hostname(trace),
				g_strdup("~"), false);
		}
	}

	if (!g_hash_table_contains(table->by_trace, trace)) {
		g_hash_table_insert(table->by_trace, (gpointer) trace, machine);
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

static void name_machine(struct machine_table *table, struct machine *machine)
{
	unsigned int suffix = 2;
	char *name = g_strdup(machine->hostname);

	while (name_taken(table, name)) {
		g_free(name);
		name = g_strdup_printf("%s#%u", machine->hostname, suffix++);
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

	for (i = 0; i < order->len; i++) {
		name_machine(table, g_ptr_array_index(order, i));
	}

	g_ptr_array_free(order, TRUE);
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
		struct machine *machine = machine_table_at(table, i);

		g_ptr_array_add(names, machine->name ? machine->name : machine->hostname);
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
	uint64_t bit = UINT64_C(1) << (kind & 63);

	if (machine->warned & bit) {
		return false;
	}

	machine->warned |= bit;
	return true;
}
