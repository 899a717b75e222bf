#ifndef VM_COMMON_LOG_H
#define VM_COMMON_LOG_H

/*
 * Log lines of the components of the plugin, on the standard error stream
 * at the component's log level (babeltrace2's logging macros are not
 * public). Every component writes the line shape of babeltrace2's own
 * plugins (BT_COMP_LOG() of babeltrace2 2.0), so that one filter reads
 * them all:
 *
 *   `MM-DD hh:mm:ss.mmm PID TID L TAG FUNCTION@FILE:LINE [COMPONENT] MESSAGE`
 *
 * where PID and TID are right-aligned on 5 columns, L is the level letter
 * (T, D, I, W, E, F), TAG is `PLUGIN/` and the component class in capitals
 * with babeltrace2's abbreviations (`PLUGIN/FLT.VM.STATE`,
 * `PLUGIN/SINK.VM.THREADS`), and COMPONENT the component's name.
 */

#include <babeltrace2/babeltrace.h>
#include <glib.h>

/* Logs when `level` is at least `component_level`; `tag` as above. */
#define vm_log_bt(component_level, level, tag, component_name, ...) \
	vm_log_write(__func__, __FILE__, __LINE__, (component_level), (level), \
		(tag), (component_name), __VA_ARGS__)

/*
 * Logs when `level` is at least the log level of `self_comp`, whose class
 * is `class_name` (e.g. "filter.vm.state": the tag is made from it).
 */
#define vm_log_comp(self_comp, level, class_name, ...) \
	vm_log_comp_write(__func__, __FILE__, __LINE__, (self_comp), (level), \
		(class_name), __VA_ARGS__)

void vm_log_write(const char *func, const char *file, int line,
		bt_logging_level component_level, bt_logging_level level,
		const char *tag, const char *component_name, const char *fmt, ...)
	G_GNUC_PRINTF(8, 9);

void vm_log_comp_write(const char *func, const char *file, int line,
		bt_self_component *self_comp, bt_logging_level level,
		const char *class_name, const char *fmt, ...) G_GNUC_PRINTF(7, 8);

#endif /* VM_COMMON_LOG_H */
