#ifndef VM_PLUGIN_STATE_MACHINES_H
#define VM_PLUGIN_STATE_MACHINES_H

/*
 * The machines of the input (SPEC, Machines): the trace env `vm_machine`
 * when filter.vm.correlate wrote it, else one machine per (env `hostname`,
 * clock class UUID), named after the hostname, with `#2`, `#3`, ... for
 * later machines of the same hostname. Indexes are dense, from 0, in order
 * of first sight: they are the `machine` of the plain events.
 */

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>

struct state_machines;

struct state_machines *state_machines_create(void);
void state_machines_destroy(struct state_machines *machines);

/* The machine of the trace holding `stream`; `is_new` on first sight. */
unsigned int state_machines_of_stream(struct state_machines *machines,
		const bt_stream *stream, bool *is_new);

unsigned int state_machines_count(const struct state_machines *machines);
const char *state_machines_name(const struct state_machines *machines,
		unsigned int index);
bool state_machines_find(const struct state_machines *machines,
		const char *name, unsigned int *index);

/* "`host`, `guest`" for error messages (g_free() it). */
char *state_machines_list(const struct state_machines *machines);

#endif /* VM_PLUGIN_STATE_MACHINES_H */
