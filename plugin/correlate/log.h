#ifndef VM_CORRELATE_LOG_H
#define VM_CORRELATE_LOG_H

/*
 * Logging of filter.vm.correlate at the component's log level, in the shape
 * of babeltrace2's own log lines (date, pid, tid, level letter, tag).
 */

#include <babeltrace2/babeltrace.h>

#define CORRELATE_LOG_TAG "PLUGIN/FLT.VM.CORRELATE"

void correlate_log(bt_logging_level component_level, bt_logging_level level,
		const char *component_name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define CORRELATE_LOGW(lvl, name, ...) \
	correlate_log((lvl), BT_LOGGING_LEVEL_WARNING, (name), __VA_ARGS__)
#define CORRELATE_LOGI(lvl, name, ...) \
	correlate_log((lvl), BT_LOGGING_LEVEL_INFO, (name), __VA_ARGS__)
#define CORRELATE_LOGD(lvl, name, ...) \
	correlate_log((lvl), BT_LOGGING_LEVEL_DEBUG, (name), __VA_ARGS__)

#endif /* VM_CORRELATE_LOG_H */
