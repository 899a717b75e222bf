#ifndef VM_PLUGIN_THREADS_MACHINE_NAMES_H
#define VM_PLUGIN_THREADS_MACHINE_NAMES_H

/*
 * Which machine a trace comes from, and its name (SPEC, Machines): the
 * trace env `vm_machine` when filter.vm.correlate added it, else one machine
 * per (env `hostname`, clock class UUID), named after the hostname with a
 * `#2`, `#3`, ... suffix for later machines of the same hostname.
 */

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>

#include "threads/threads.h"

struct machine_names;

struct machine_names *machine_names_create(void);
void machine_names_destroy(struct machine_names *names);

struct machine_info {
	unsigned int index;   /* dense, from 0, in order of first sight */
	const char *name;     /* owned by `names` */
	enum vm_threads_role role; /* env `vm_role` of correlate, else unknown */
};

/*
 * The machine of the trace that holds `stream`. `is_new` tells whether this
 * machine was seen for the first time (its name is then to be announced).
 */
struct machine_info machine_names_of_stream(struct machine_names *names,
		const bt_stream *stream, bool *is_new);

#endif /* VM_PLUGIN_THREADS_MACHINE_NAMES_H */
