#ifndef VM_COMMON_LOG_H
#define VM_COMMON_LOG_H

/*
 * Log lines of the components of the plugin, on the standard error stream
 * at the component's log level (babeltrace2's logging macros are not
 * public). Two line shapes, each kept as its components have always
 * written it:
 *
 * - vm_log_bt(), babeltrace2's own shape (filter.vm.correlate):
 *   `MM-DD hh:mm:ss.mmm PID TID L TAG [component] message`
 * - vm_log_comp(), the short one (filter.vm.state, sink.vm.threads):
 *   `L class [component]: message`
 *
 * where L is the level letter (T, D, I, W, E, F).
 */

#include <babeltrace2/babeltrace.h>
#include <glib.h>

/* Logs when `level` is at least `component_level`. */
void vm_log_bt(bt_logging_level component_level, bt_logging_level level,
		const char *tag, const char *component_name, const char *fmt, ...)
	G_GNUC_PRINTF(5, 6);

/* Logs when `level` is at least the log level of `self_comp`. */
void vm_log_comp(bt_self_component *self_comp, bt_logging_level level,
		const char *class_name, const char *fmt, ...) G_GNUC_PRINTF(4, 5);

#endif /* VM_COMMON_LOG_H */
