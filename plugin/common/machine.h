#ifndef VM_COMMON_MACHINE_H
#define VM_COMMON_MACHINE_H

/*
 * Machine identification, shared by the components of the plugin.
 *
 * A machine is one distinct (trace environment `hostname`, clock class UUID)
 * pair: the kernel and user space traces of one boot share a clock UUID and
 * are therefore one machine. Machines are registered as their streams show
 * up; once every machine is known, machine_table_assign_names() gives each a
 * unique name (its hostname, then `#2`, `#3`, ... for hostnames that repeat)
 * in a deterministic order, whatever the order in which they were met.
 *
 * This is filter.vm.correlate's table. Why common/machine-names.h exists
 * too: correlate sees every machine before it names any (its sync pass reads
 * the whole input first), so it can name them in sorted order, and it needs
 * the clock class lookups to convert times. filter.vm.state and
 * sink.vm.threads name machines in order of first sight instead, and
 * normally just read the `vm_machine` environment entry correlate wrote.
 */

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

struct machine {
	/* Position in the table (registration order); stable. */
	unsigned int index;

	/* Environment `hostname` of its traces, "unknown" when they have none. */
	char *hostname;

	/*
	 * What identifies its clock: the clock class UUID as text, or, for a
	 * clock class without UUID (or a stream class without clock class),
	 * a registration-unique text that sorts after every UUID.
	 */
	char *clock_key;

	/* Whether its streams have a default clock class at all. */
	bool has_clock;

	/* Unique name; NULL until machine_table_assign_names(). */
	char *name;

	/* Warning kinds already logged for this machine (bit per kind). */
	uint64_t warned;
};

struct machine_table;

struct machine_table *machine_table_create(void);
void machine_table_destroy(struct machine_table *table);

/*
 * The machine a stream belongs to, registered on first sight. Never NULL
 * (a stream without clock class gets a machine of its own per trace).
 */
struct machine *machine_table_machine_of_stream(struct machine_table *table,
		const bt_stream *stream);

/* The machine of an upstream clock class already met, or NULL. */
struct machine *machine_table_machine_of_clock_class(
		const struct machine_table *table, const bt_clock_class *clock_class);

/* The machine of the first stream met of an upstream trace, or NULL. */
struct machine *machine_table_machine_of_trace(const struct machine_table *table,
		const bt_trace *trace);

unsigned int machine_table_count(const struct machine_table *table);
struct machine *machine_table_at(const struct machine_table *table, unsigned int index);

/*
 * Names every machine that has no name yet. The first call sorts all
 * machines by (hostname, clock key, registration order); a machine met after
 * that call is named after every machine already named.
 */
void machine_table_assign_names(struct machine_table *table);

/* The machine named `name`, or NULL. */
struct machine *machine_table_find_by_name(const struct machine_table *table,
		const char *name);

/* "a, b, c": every machine name, sorted, for error messages (g_free it). */
char *machine_table_names_text(const struct machine_table *table);

/* True the first time it is called for this machine and kind (0 .. 63). */
bool machine_warn_once(struct machine *machine, unsigned int kind);

#endif /* VM_COMMON_MACHINE_H */
