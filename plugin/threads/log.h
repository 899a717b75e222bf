#ifndef VM_PLUGIN_THREADS_LOG_H
#define VM_PLUGIN_THREADS_LOG_H

/*
 * Logging of sink.vm.threads at the component's log level, on the standard
 * error stream like babeltrace2's own logging. The library's logging macros
 * are not public, hence this small helper.
 */

#include <babeltrace2/babeltrace.h>
#include <glib.h>

void threads_log(bt_self_component *self_comp, bt_logging_level level,
		const char *format, ...) G_GNUC_PRINTF(3, 4);

#endif /* VM_PLUGIN_THREADS_LOG_H */
