/*
 * Formulas that map a machine's times out of the output clock's range:
 * see formula-range.h.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/machines.h"
#include "correlate/formula-range.h"
#include "sync/formula-text.h"

/* "t_ref = S * t + O ns" with every digit (g_free it). */
static char *formula_text(const struct vm_sync_formula *formula)
{
	return vm_sync_formula_line(formula->slope, formula->offset_ns);
}

/* Where the formula comes from, and what the user can change. */
static char *what_to_do(const struct machine *machine, const struct machine_info *info,
		const char *param)
{
	if (strcmp(info->method, "transforms") == 0) {
		return g_strdup_printf("Check the formula given for `%s` in parameter "
			"`transforms` (a slope is a ratio of clock rates, close to "
			"1; an offset is in ns).", machine->name);
	}

	if (info->is_reference) {
		return g_strdup_printf("The reference `%s` keeps its own clock: pass "
			"`reference=\"OTHER\"` with parameter `transforms` giving `%s` "
			"an offset, or shift its clock with src.ctf.fs's "
			"`clock-class-offset-s` parameter.", machine->name, machine->name);
	}

	if (strcmp(info->method, "none") == 0) {
		return g_strdup_printf("Machine `%s` keeps its own clock: give it a "
			"formula with parameter `transforms`, e.g. "
			"transforms={%s={slope=1.0,offset-ns=O}}.", machine->name,
			param);
	}

	return g_strdup_printf("The synchronization (sync method `%s`, quality "
		"`%s`, %" PRIu64 " matches) is wrong for machine `%s`: give it a "
		"formula of your own with parameter `transforms`, e.g. "
		"transforms={%s={slope=1.0,offset-ns=O}}, or choose another method "
		"with parameter `sync` (`sync=\"none\"` keeps its own clock).",
		info->method, vm_sync_quality_name(info->quality), info->matches,
		machine->name, param);
}

/* The map of t, unrounded: what it is, even where it does not fit. */
static long double mapped_value(const struct vm_sync_formula *formula, int64_t t)
{
	return formula->slope * (long double) t + formula->offset_ns;
}

static void range_error(struct correlate_iter *iter, struct machine *machine,
		const char *times)
{
	struct machine_info *info = correlate_machine_info(iter, machine);
	char *formula = formula_text(&info->map.formula);
	char *param = machine_param_name(iter->machines, machine);
	char *advice = what_to_do(machine, info, param);

	ITER_ERROR(iter, "The formula of machine `%s` (%s, from %s) maps %s, out of "
		"the output clock's range (%" PRId64 " to %" PRId64 " ns from the "
		"Unix epoch): such times cannot be written, and are not clamped. %s",
		machine->name, formula,
		info->is_reference ? "the reference itself" :
		strcmp(info->method, "transforms") == 0 ? "parameter `transforms`" :
		strcmp(info->method, "none") == 0 ? "no synchronization" :
		"the synchronization", times, CORRELATE_OUTPUT_MIN_NS,
		CORRELATE_OUTPUT_MAX_NS, advice);
	g_free(advice);
	g_free(param);
	g_free(formula);
}

static bool check_span(struct correlate_iter *iter, struct machine *machine)
{
	struct machine_info *info = correlate_machine_info(iter, machine);
	int64_t mapped_first, mapped_last;
	char *times;

	/* The map increases: its ends decide, each with the segment it falls in. */
	const struct vm_sync_formula *at_first, *at_last;

	if (!machine->has_clock || !info->has_span) {
		return true;
	}

	at_first = vm_sync_map_formula_at(&info->map, info->first_ns);
	at_last = vm_sync_map_formula_at(&info->map, info->last_ns);
	if (vm_sync_formula_maps_span(at_first, info->first_ns, info->first_ns,
			CORRELATE_OUTPUT_MIN_NS, CORRELATE_OUTPUT_MAX_NS, &mapped_first,
			&mapped_last) &&
			vm_sync_formula_maps_span(at_last, info->last_ns, info->last_ns,
				CORRELATE_OUTPUT_MIN_NS, CORRELATE_OUTPUT_MAX_NS,
				&mapped_first, &mapped_last)) {
		return true;
	}

	times = g_strdup_printf("its times, %" PRId64 " to %" PRId64 " ns from its "
		"clock's origin, to %.12Lg to %.12Lg ns", info->first_ns, info->last_ns,
		mapped_value(at_first, info->first_ns), mapped_value(at_last, info->last_ns));
	range_error(iter, machine, times);
	g_free(times);
	return false;
}

bool correlate_check_formula_spans(struct correlate_iter *iter)
{
	unsigned int i;

	for (i = 0; i < machine_table_count(iter->machines); i++) {
		if (!check_span(iter, machine_table_at(iter->machines, i))) {
			return false;
		}
	}

	return true;
}

/* Whether `converted`, `formula` at `ns`, is an output time; else the error cause. */
static bool fits_output(struct correlate_iter *iter, struct machine *machine,
		const struct vm_sync_formula *formula, int64_t ns, bool fits, int64_t converted)
{
	char *times;

	if (fits && converted >= CORRELATE_OUTPUT_MIN_NS) {
		return true;
	}

	times = g_strdup_printf("its time %" PRId64 " ns from its clock's origin "
		"to %.12Lg ns", ns, mapped_value(formula, ns));
	range_error(iter, machine, times);
	g_free(times);
	return false;
}

bool correlate_convert_time(struct correlate_iter *iter, struct machine *machine,
		const struct vm_sync_prepared *prepared, int64_t ns, int64_t *converted)
{
	bool fits = vm_sync_prepared_apply_checked(prepared, ns, converted);

	return fits_output(iter, machine, &prepared->formula, ns, fits, *converted);
}

bool correlate_clock_time(void *data, const bt_clock_class *clock_class,
		int64_t ns_from_origin, int64_t *ref_ns)
{
	struct correlate_iter *iter = data;
	struct machine *machine =
		machine_table_machine_of_clock_class(iter->machines, clock_class);
	const struct vm_sync_formula *formula;
	bool fits;

	if (!machine) {
		const char *name = bt_clock_class_get_name(clock_class);

		ITER_ERROR(iter, "Clock class `%s` belongs to no machine known to "
			"filter.vm.correlate: cannot convert its times to the reference "
			"time base. Check that every input trace has a `hostname` "
			"environment entry.", name ? name : "(unnamed)");
		return false;
	}

	formula = vm_sync_map_formula_near(&correlate_machine_info(iter, machine)->map,
		ns_from_origin);
	fits = vm_sync_formula_apply_checked(formula, ns_from_origin, ref_ns);
	return fits_output(iter, machine, formula, ns_from_origin, fits, *ref_ns);
}

void correlate_overflow_error(struct correlate_iter *iter, const struct machine *machine,
		uint64_t clock_value)
{
	ITER_ERROR(iter, "A time of machine `%s` (clock value %" PRIu64 ") does not "
		"fit in signed 64-bit nanoseconds from its clock's origin: the "
		"trace's clock offset or frequency is wrong. Fix its metadata, or "
		"shift it with src.ctf.fs's `clock-class-offset-s` parameter.",
		machine_display_name(machine), clock_value);
}

/*
 * A lower bound of vm_sync_formula_apply(formula, t), cheaply: the exact
 * map works in 128-bit floating point, in software, and the bound is
 * recomputed on every message. In double precision, slope * t + offset is
 * within (|slope * t| + |offset|) * 2^-51 of the exact value, so the bound
 * keeps twice that (1.5 us at today's Unix-epoch nanoseconds) plus 2 ns
 * below it.
 */
int64_t correlate_formula_lower_bound(const struct vm_sync_formula *formula, int64_t t)
{
	double scaled = (double) formula->slope * (double) t;
	double offset = (double) formula->offset_ns;
	double approx = scaled + offset;

	approx -= ((scaled < 0 ? -scaled : scaled) + (offset < 0 ? -offset : offset)) *
		0x1p-50 + 2;
	if (approx <= (double) INT64_MIN + 4096) {
		return INT64_MIN;
	}

	/* Truncation, one more below for negative values: floor() is slow. */
	return approx >= (double) INT64_MAX ? INT64_MAX : (int64_t) approx - 1;
}
