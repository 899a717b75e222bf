/*
 * Log lines of filter.vm.correlate: see log.h.
 */

#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "correlate/log.h"

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

void correlate_log(bt_logging_level component_level, bt_logging_level level,
		const char *component_name, const char *fmt, ...)
{
	struct timespec now;
	struct tm local;
	va_list args;

	if (level < component_level) {
		return;
	}

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &local);
	flockfile(stderr);
	fprintf(stderr, "%02d-%02d %02d:%02d:%02d.%03ld %d %ld %c %s [%s] ",
		local.tm_mon + 1, local.tm_mday, local.tm_hour, local.tm_min,
		local.tm_sec, now.tv_nsec / 1000000, (int) getpid(),
		(long) syscall(SYS_gettid), level_letter(level),
		CORRELATE_LOG_TAG, component_name);
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fputc('\n', stderr);
	funlockfile(stderr);
}
