/*
 * Linear maps between clocks: t_ref = slope * t + offset_ns.
 *
 * The coefficients are long double (64-bit mantissa), the evaluation is done
 * in vm_sync_wide: slope * t is then exact enough that the only error left is
 * the representation of the coefficients (about 0.1 ns at 1.7e18 ns), well
 * under the rounding to the nanosecond.
 */
#include "sync/sync.h"
#include "sync/wide.h"

struct vm_sync_formula vm_sync_formula_identity(void)
{
	struct vm_sync_formula identity = { 1.0L, 0.0L };

	return identity;
}

/* v rounded to the nearest integer (halves away from zero), saturated. */
static int64_t round_saturated(vm_sync_wide v)
{
	/* 2^63 is exact in both candidate types. */
	const vm_sync_wide limit = (vm_sync_wide) 9223372036854775808.0L;
	int64_t whole;
	vm_sync_wide fraction;

	if (v != v)
		return 0;	/* NaN: from a degenerate formula, nothing sensible */
	if (v >= limit - (vm_sync_wide) 0.5)
		return INT64_MAX;
	if (v <= -limit - (vm_sync_wide) 0.5)
		return INT64_MIN;
	whole = (int64_t) v;	/* truncates toward zero */
	fraction = v - (vm_sync_wide) whole;	/* exact: |v| < 2^63 */
	if (fraction >= (vm_sync_wide) 0.5)
		whole++;
	else if (fraction <= (vm_sync_wide) -0.5)
		whole--;
	return whole;
}

int64_t vm_sync_formula_apply(const struct vm_sync_formula *formula, int64_t t)
{
	vm_sync_wide mapped = (vm_sync_wide) formula->slope * (vm_sync_wide) t +
		(vm_sync_wide) formula->offset_ns;

	return round_saturated(mapped);
}

struct vm_sync_formula vm_sync_formula_compose(const struct vm_sync_formula *f,
		const struct vm_sync_formula *g)
{
	struct vm_sync_formula composed;

	/* f(g(t)) = fs * (gs * t + go) + fo */
	composed.slope = (long double) ((vm_sync_wide) f->slope * (vm_sync_wide) g->slope);
	composed.offset_ns = (long double) ((vm_sync_wide) f->slope * (vm_sync_wide) g->offset_ns +
		(vm_sync_wide) f->offset_ns);
	return composed;
}

struct vm_sync_formula vm_sync_formula_invert(const struct vm_sync_formula *f)
{
	struct vm_sync_formula inverse;

	/* t = (t_ref - o) / s */
	inverse.slope = (long double) (1 / (vm_sync_wide) f->slope);
	inverse.offset_ns = (long double) (-(vm_sync_wide) f->offset_ns / (vm_sync_wide) f->slope);
	return inverse;
}
