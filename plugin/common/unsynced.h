#ifndef VM_COMMON_UNSYNCED_H
#define VM_COMMON_UNSYNCED_H

/*
 * Several machines whose traces did not go through filter.vm.correlate:
 * babeltrace2's muxer merges LTTng traces by their realtime offsets only,
 * so host and guest events are micro- to milliseconds away from where they
 * happened relative to each other, and nothing says so. filter.vm.state
 * and sink.vm.threads (without state) say it once.
 */

#include <stdbool.h>

#include "common/machine.h"

/*
 * True when the table has several machines and one of them has none of
 * filter.vm.correlate's environment entries (`vm_sync_quality`,
 * `vm_machine`).
 */
bool machines_unsynchronized(const struct machine_table *table);

/*
 * The warning for such a table; `before` names what correlate goes before
 * (a component class name). g_free() it.
 */
char *machines_unsynchronized_message(const struct machine_table *table,
		const char *before);

#endif /* VM_COMMON_UNSYNCED_H */
