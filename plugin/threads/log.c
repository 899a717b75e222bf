#include <stdarg.h>
#include <stdio.h>

#include "log.h"

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

void threads_log(bt_self_component *self_comp, bt_logging_level level,
		const char *format, ...)
{
	const bt_component *comp = bt_self_component_as_component(self_comp);
	va_list args;

	if (level < bt_component_get_logging_level(comp))
		return;
	va_start(args, format);
	fprintf(stderr, "%c sink.vm.threads [%s]: ", level_letter(level),
		bt_component_get_name(comp));
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
	va_end(args);
}
