/*
 * Log lines of the components: see log.h.
 */

#include <stdarg.h>
#include <stdio.h>
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

/* The message and the end of a line whose prefix is written, stderr locked. */
static void end_line(const char *fmt, va_list args)
{
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void vm_log_bt(bt_logging_level component_level, bt_logging_level level,
		const char *tag, const char *component_name, const char *fmt, ...)
{
	struct timespec now;
	struct tm local;
	va_list args;

	if (level < component_level)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &local);
	flockfile(stderr);
	fprintf(stderr, "%02d-%02d %02d:%02d:%02d.%03ld %d %ld %c %s [%s] ",
		local.tm_mon + 1, local.tm_mday, local.tm_hour, local.tm_min,
		local.tm_sec, now.tv_nsec / 1000000, (int) getpid(),
		(long) syscall(SYS_gettid), level_letter(level), tag,
		component_name);
	va_start(args, fmt);
	end_line(fmt, args);
	va_end(args);
}

void vm_log_comp(bt_self_component *self_comp, bt_logging_level level,
		const char *class_name, const char *fmt, ...)
{
	const bt_component *comp = bt_self_component_as_component(self_comp);
	va_list args;

	if (level < bt_component_get_logging_level(comp))
		return;
	flockfile(stderr);
	fprintf(stderr, "%c %s [%s]: ", level_letter(level), class_name,
		bt_component_get_name(comp));
	va_start(args, fmt);
	end_line(fmt, args);
	va_end(args);
}
