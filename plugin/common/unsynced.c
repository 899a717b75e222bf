#include <glib.h>

#include "common/unsynced.h"

/*
 * `vm_machine` is correlate's too: filter.vm.state copies it (not the sync
 * entries) into its own trace, which can be the first one of its machine
 * met in a copy of their output read again.
 */
static bool went_through_correlate(const struct machine *machine)
{
	return machine->from_correlate || machine->given_name;
}

bool machines_unsynchronized(const struct machine_table *table)
{
	unsigned int count = machine_table_count(table);
	unsigned int i;

	if (count < 2) {
		return false;
	}
	for (i = 0; i < count; i++) {
		if (!went_through_correlate(machine_table_at(table, i))) {
			return true;
		}
	}
	return false;
}

char *machines_unsynchronized_message(const struct machine_table *table,
		const char *before)
{
	char *names = machine_table_names_text(table);
	char *message = g_strdup_printf("The input has several machines (%s) "
		"and did not go through filter.vm.correlate: their clocks are not "
		"synchronized (babeltrace2's muxer only aligns them by each tracing "
		"session's realtime offset), so guest events are placed micro- to "
		"milliseconds away from the host events they happened with, and "
		"the vCPU modes and thread states where they meet are wrong. Add "
		"`-c filter.vm.correlate` before `-c %s`.", names, before);

	g_free(names);
	return message;
}
