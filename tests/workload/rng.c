#include "rng.h"

#include <glib.h>

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void wl_rng_seed(wl_rng *rng, uint64_t seed)
{
	uint64_t state = seed;

	for (int i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&state);
}

uint64_t wl_rng_next(wl_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t wl_rng_range(wl_rng *rng, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return lo;
	uint64_t span = hi - lo + 1;

	/* span == 0 means the whole 64-bit range. The modulo bias is far
	 * below anything a test could notice for the spans used here. */
	return span == 0 ? wl_rng_next(rng) : lo + wl_rng_next(rng) % span;
}

bool wl_rng_chance(wl_rng *rng, unsigned permille)
{
	return wl_rng_next(rng) % 1000 < permille;
}

void wl_rng_uuid(wl_rng *rng, char *out, size_t size)
{
	uint64_t a = wl_rng_next(rng);
	uint64_t b = wl_rng_next(rng);

	/* a version 4 (random) UUID */
	g_snprintf(out, size, "%08x-%04x-4%03x-%04x-%012" G_GINT64_MODIFIER "x",
		   (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
		   (unsigned)((b >> 48) & 0x3fff) | 0x8000, (guint64)(b & UINT64_C(0xffffffffffff)));
}
