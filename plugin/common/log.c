/*
 * Log lines of the components: see log.h.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"

static char level_letter(bt_logging_level level)
{
	switch (level) {
	case BT_LOGGING_LEVEL_TRACE:
		return 'T';
	case BT_LOGGING_LEVEL_DEBUG:
		return 'D';
	case BT_LOGGING_LEVEL_INFO:
		return 'I';
	case BT_LOGGING_LEVEL_WARNING:
		return 'W';
	case BT_LOGGING_LEVEL_ERROR:
		return 'E';
	default:
		return 'F';
	}
}

/* babeltrace2 names the source file alone, not its folders. */
static const char *file_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void vlog(const char *func, const char *file, int line,
		bt_logging_level level, const char *tag, const char *component_name,
		const char *fmt, va_list args)
{
	struct timespec now;
	struct tm local;

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &local);
	flockfile(stderr);
	fprintf(stderr, "%02d-%02d %02d:%02d:%02d.%03ld %5d %5ld %c %s %s@%s:%d [%s] ",
		local.tm_mon + 1, local.tm_mday, local.tm_hour, local.tm_min,
		local.tm_sec, now.tv_nsec / 1000000, (int) getpid(),
		(long) syscall(SYS_gettid), level_letter(level), tag, func,
		file_name(file), line, component_name ? component_name : "N/A");
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void vm_log_write(const char *func, const char *file, int line,
		bt_logging_level component_level, bt_logging_level level,
		const char *tag, const char *component_name, const char *fmt, ...)
{
	va_list args;

	if (level < component_level) {
		return;
	}
	va_start(args, fmt);
	vlog(func, file, line, level, tag, component_name, fmt, args);
	va_end(args);
}

/*
 * babeltrace2's tag of a component class: "filter.vm.state" gives
 * "PLUGIN/FLT.VM.STATE" (source: SRC, sink: SINK), as its own plugins'.
 */
static void class_tag(const char *class_name, char *tag, size_t size)
{
	static const struct { const char *type, *abbreviation; } types[] = {
		{ "filter.", "FLT." }, { "source.", "SRC." }, { "sink.", "SINK." },
	};
	const char *rest = class_name;
	size_t len;

	len = (size_t) snprintf(tag, size, "PLUGIN/");
	for (size_t i = 0; i < G_N_ELEMENTS(types); i++) {
		if (g_str_has_prefix(class_name, types[i].type)) {
			len += (size_t) snprintf(tag + len, size - len, "%s",
				types[i].abbreviation);
			rest = class_name + strlen(types[i].type);
			break;
		}
	}
	for (; *rest && len + 1 < size; rest++) {
		tag[len++] = g_ascii_toupper(*rest);
	}
	tag[len] = '\0';
}

void vm_log_comp_write(const char *func, const char *file, int line,
		bt_self_component *self_comp, bt_logging_level level,
		const char *class_name, const char *fmt, ...)
{
	const bt_component *comp = bt_self_component_as_component(self_comp);
	char tag[64];
	va_list args;

	if (level < bt_component_get_logging_level(comp)) {
		return;
	}
	class_tag(class_name, tag, sizeof(tag));
	va_start(args, fmt);
	vlog(func, file, line, level, tag, bt_component_get_name(comp), fmt, args);
	va_end(args);
}
