/* Durations and percentages for people: units chosen per value. */

#include <glib.h>
#include <inttypes.h>
#include <stdio.h>

#include "writers/text-units.h"

struct time_unit {
	uint64_t ns;
	const char *symbol;
};

/* "us" rather than "µs": one byte a character keeps columns aligned in any
 * terminal and tool. */
static const struct time_unit time_units[] = {
	{ UINT64_C(1000), "us" },
	{ UINT64_C(1000000), "ms" },
	{ UINT64_C(1000000000), "s" },
};

/* Value in thousandths of the unit, rounded half up. */
static uint64_t thousandths(uint64_t ns, const struct time_unit *unit)
{
	uint64_t step = unit->ns / 1000;

	return (ns + step / 2) / step;
}

void vm_text_duration(int64_t ns, char buf[VM_TEXT_UNITS_BUF])
{
	uint64_t magnitude = ns < 0 ? -(uint64_t) ns : (uint64_t) ns;
	const char *sign = ns < 0 ? "-" : "";
	size_t unit = 0;
	uint64_t value;

	if (magnitude < time_units[0].ns) {
		snprintf(buf, VM_TEXT_UNITS_BUF, "%s%" PRIu64 " ns", sign, magnitude);
		return;
	}
	while (unit + 1 < G_N_ELEMENTS(time_units) &&
			magnitude >= time_units[unit + 1].ns) {
		unit++;
	}
	value = thousandths(magnitude, &time_units[unit]);
	/* Rounding may reach the next unit: 999.9996 ms is 1.000 s. */
	if (value >= 1000000 && unit + 1 < G_N_ELEMENTS(time_units)) {
		unit++;
		value = thousandths(magnitude, &time_units[unit]);
	}
	snprintf(buf, VM_TEXT_UNITS_BUF, "%s%" PRIu64 ".%03" PRIu64 " %s", sign,
		value / 1000, value % 1000, time_units[unit].symbol);
}

void vm_text_percent(int64_t part, int64_t total, char buf[VM_TEXT_UNITS_BUF])
{
	double ratio = total == 0 ? 0.0 : (double) part / (double) total;

	snprintf(buf, VM_TEXT_UNITS_BUF, "%.1f%%", 100.0 * ratio);
}
