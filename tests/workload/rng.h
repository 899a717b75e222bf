/* Seeded pseudo-random numbers for the workload generator.
 *
 * xoshiro256** seeded through splitmix64: every random choice of a run comes
 * from one of these, so the same seed and options give the same bytes. */
#ifndef VM_WORKLOAD_RNG_H
#define VM_WORKLOAD_RNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct wl_rng {
	uint64_t s[4];
} wl_rng;

void wl_rng_seed(wl_rng *rng, uint64_t seed);
uint64_t wl_rng_next(wl_rng *rng);
/* Uniform in [lo, hi] (both included); lo when hi <= lo. */
uint64_t wl_rng_range(wl_rng *rng, uint64_t lo, uint64_t hi);
/* True with probability permille / 1000. */
bool wl_rng_chance(wl_rng *rng, unsigned permille);
/* A random UUID, xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx, in OUT. */
void wl_rng_uuid(wl_rng *rng, char *out, size_t size);

#endif
