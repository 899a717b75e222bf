#ifndef TEST_SYNC_CLOCKS_H
#define TEST_SYNC_CLOCKS_H

/*
 * Simulated machine clocks for the sync tests: each machine reads
 * t = T * num / den + offset at true time T, exactly (T is always a multiple
 * of den). Message exchanges are generated so that the exact answer is known.
 */

#include <check.h>
#include <stdint.h>

#include "sync/formula.h"
#include "sync/prepared.h"
#include "sync/sync.h"

__extension__ typedef __int128 test_i128;

#define CLOCK_DEN INT64_C(1000000)

struct test_clock {
	int64_t num;	/* rate in ppm units: 1000000 + drift_ppm */
	int64_t offset;
};

static inline int64_t clock_read(const struct test_clock *clock, int64_t true_time)
{
	ck_assert(true_time % CLOCK_DEN == 0);
	return (int64_t) ((test_i128) true_time / CLOCK_DEN * clock->num) + clock->offset;
}

static inline int64_t round_div(test_i128 num, test_i128 den)
{
	test_i128 q, r;

	if (den < 0) {
		num = -num;
		den = -den;
	}
	q = num / den;
	r = num % den;
	if (2 * r >= den)
		q++;
	else if (2 * r <= -den)
		q--;
	return (int64_t) q;
}

/* The exact time of `to`'s clock when `from`'s clock reads t, rounded. */
static inline int64_t clock_convert(const struct test_clock *from,
		const struct test_clock *to, int64_t t)
{
	/* T = (t - from.offset) * den / from.num; to = T * to.num / den + to.offset */
	return round_div(((test_i128) t - from->offset) * to->num, from->num) + to->offset;
}

/*
 * `count` exchanges between machines m1 and m2, one per `period` of true time
 * from `start`. With x the pair's ref side (the lower index) and y the other:
 * x sends at T (received at T + latency), y sends at T - latency (received
 * at T). Both directions then give points at the same ref times, at the same
 * distance above and below the true line, which makes the hull's bisector
 * exact. `key_base` keeps the keys of different calls apart.
 */
static inline void exchange(struct vm_sync *sync, const struct test_clock *clocks,
		unsigned int m1, unsigned int m2, int64_t start, int64_t period,
		int count, int64_t latency, uint64_t key_base)
{
	unsigned int x = m1 < m2 ? m1 : m2;
	unsigned int y = m1 < m2 ? m2 : m1;

	for (int i = 0; i < count; i++) {
		int64_t t = start + i * period;
		struct vm_sync_key there = { key_base + (uint64_t) i, 1, 0 };
		struct vm_sync_key back = { key_base + (uint64_t) i, 2, 0 };

		/* In true-time order: y sends, x sends, x receives, y receives. */
		vm_sync_add_event(sync, 0, &back, VM_SYNC_SEND, y,
			clock_read(&clocks[y], t - latency));
		vm_sync_add_event(sync, 0, &there, VM_SYNC_SEND, x, clock_read(&clocks[x], t));
		vm_sync_add_event(sync, 0, &back, VM_SYNC_RECEIVE, x, clock_read(&clocks[x], t));
		vm_sync_add_event(sync, 0, &there, VM_SYNC_RECEIVE, y,
			clock_read(&clocks[y], t + latency));
	}
}

/* Checks that `formula` maps machine `from`'s clock to `to`'s within 1 ns
 * over the given true-time range. */
static inline void check_mapping(const struct vm_sync_formula *formula,
		const struct test_clock *from, const struct test_clock *to,
		int64_t start, int64_t end)
{
	int64_t step = (end - start) / 997;

	for (int64_t t = start; t <= end; t += step) {
		int64_t local = clock_read(from, t - t % CLOCK_DEN) + (t % 1000);
		int64_t expected = clock_convert(from, to, local);
		int64_t mapped = vm_sync_formula_apply(formula, local);

		ck_assert_msg(mapped - expected <= 1 && expected - mapped <= 1,
			"t %lld: mapped %lld, expected %lld", (long long) local,
			(long long) mapped, (long long) expected);
	}
}

#endif /* TEST_SYNC_CLOCKS_H */
