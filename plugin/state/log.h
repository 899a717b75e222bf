#ifndef VM_PLUGIN_STATE_LOG_H
#define VM_PLUGIN_STATE_LOG_H

/*
 * Logging of filter.vm.state at the component's log level, on the standard
 * error stream like babeltrace2's own logging (the library's logging macros
 * are not public).
 */

#include <babeltrace2/babeltrace.h>
#include <glib.h>

void state_log(bt_self_component *self_comp, bt_logging_level level,
		const char *format, ...) G_GNUC_PRINTF(3, 4);

#endif /* VM_PLUGIN_STATE_LOG_H */
