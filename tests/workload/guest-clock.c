#include "guest-clock.h"

#define NS_PER_S 1000000000

/* floor(num / den) for den > 0. */
static __int128 floor_div(__int128 num, __int128 den)
{
	__int128 q = num / den;

	return (num % den != 0 && num < 0) ? q - 1 : q;
}

uint64_t wl_clock_read(const wl_clock *clock, uint64_t t)
{
	__int128 elapsed = (__int128)t - clock->origin_ns;
	/* round(x / 1e9) = floor((2x + 1e9) / 2e9) */
	__int128 drift = floor_div(2 * elapsed * clock->drift_ppb + NS_PER_S,
				   2 * (__int128)NS_PER_S);

	return (uint64_t)((__int128)t + clock->offset_ns + drift);
}

void wl_clock_inverse(const wl_clock *clock, long double *slope, long double *offset)
{
	/* m = t * (1 + k) + offset - k * origin with k = ppb / 1e9, hence
	 * t = (m - offset + k * origin) / (1 + k). */
	long double k_origin = (long double)((__int128)clock->drift_ppb * clock->origin_ns) /
			       NS_PER_S;

	*slope = (long double)NS_PER_S / ((long double)NS_PER_S + clock->drift_ppb);
	*offset = (k_origin - clock->offset_ns) * *slope;
}
