/*
 * The synchronization from stock KVM events (lib/sync/vcpu-align.h) on
 * simulated vCPUs whose truth is known: guest-mode intervals of a host
 * process's vCPU threads, and guest events inside them, recorded on a guest
 * clock that is seconds away and drifts. The fit must find the offset, the
 * right process among look-alikes, place every event within microseconds of
 * its true host time, and refuse what cannot be told.
 */
#include <check.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "sync/map.h"
#include "sync/segments.h"
#include "sync/vcpu-align.h"
#include "vcpu-sim.h"

static gint compare_i64(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* Median and largest error of `map` over every simulated event. */
static void errors_under(const struct sim *sim, const struct vm_sync_map *map,
		uint64_t constraints, uint64_t outside, int64_t *median, int64_t *largest)
{
	GArray *errors = g_array_new(FALSE, FALSE, sizeof(int64_t));

	for (guint i = 0; i < sim->events->len; i++) {
		const struct sim_event *event = &g_array_index(sim->events, struct sim_event, i);
		int64_t error = vm_sync_formula_apply(vm_sync_map_formula_at(map,
			event->guest_ts), event->guest_ts) - event->host_ts;

		error = error < 0 ? -error : error;
		g_array_append_val(errors, error);
	}
	g_array_sort(errors, compare_i64);
	*median = g_array_index(errors, int64_t, errors->len / 2);
	*largest = g_array_index(errors, int64_t, errors->len - 1);
	if (getenv("VCPU_ALIGN_DEBUG"))
		fprintf(stderr, "events %u constraints %llu outside %llu segments %u "
			"median %lld largest %lld\n", errors->len,
			(unsigned long long) constraints, (unsigned long long) outside,
			vm_sync_map_segment_count(map), (long long) *median, (long long) *largest);
	g_array_free(errors, TRUE);
}

/* Median and largest error of the fit's line over every simulated event. */
static void errors_of(const struct sim *sim, const struct vm_vcpu_fit *fit,
		int64_t *median, int64_t *largest)
{
	struct vm_sync_map map;

	vm_sync_map_init(&map, &fit->formula);
	errors_under(sim, &map, fit->constraints, fit->outside, median, largest);
	vm_sync_map_fini(&map);
}

static void check_one_guest(guint32 seed, int64_t offset_ns, int64_t drift_ppm)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct vm_vcpu_fit fits[2], fit;
	struct sim sim;
	int64_t median, largest;

	sim_init(&sim, seed, offset_ns, drift_ppm);
	/* Guest index 1: index 0, never given, has nothing to fit. */
	simulate(&sim, align, 4242, 1, 2, INT64_C(2000000000));
	vm_vcpu_align_solve(align, 2, fits);
	ck_assert_int_eq(fits[0].status, VM_VCPU_FIT_TOO_LITTLE);
	fit = fits[1];
	ck_assert_msg(fit.status == VM_VCPU_FIT_OK, "seed %u offset %lld: status %d",
		seed, (long long) offset_ns, fit.status);
	ck_assert_int_eq(fit.host_pid, 4242);
	ck_assert_int_eq(fit.host, HOST);
	ck_assert(fit.constraints >= 1000);
	ck_assert_int_eq(fit.outside, 0);
	errors_of(&sim, &fit, &median, &largest);
	ck_assert_msg(median <= 1000 && largest <= 5000,
		"seed %u: median error %lld ns, largest %lld ns", seed,
		(long long) median, (long long) largest);
	sim_fini(&sim);
	vm_vcpu_align_destroy(align);
}

START_TEST(test_offsets_and_drifts)
{
	check_one_guest(1, INT64_C(37000000000), 80);
	check_one_guest(2, -INT64_C(59000000000), -100);
	check_one_guest(3, INT64_C(1234567), 0);
	check_one_guest(4, -INT64_C(3000000000), 45);
}
END_TEST

/* Three VMs whose vCPU threads look alike: timing alone tells them apart. */
START_TEST(test_look_alike_processes)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct sim sims[3];
	struct vm_vcpu_fit fits[3];
	const int64_t pids[3] = { 300, 100, 200 };

	for (unsigned int g = 0; g < 3; g++) {
		sim_init(&sims[g], 10 + g, INT64_C(5000000000) * (g + 1) - 7000, 30);
		simulate(&sims[g], align, pids[g], g, 2, INT64_C(1000000000));
	}
	vm_vcpu_align_solve(align, 3, fits);
	for (unsigned int g = 0; g < 3; g++) {
		int64_t median, largest;

		ck_assert_msg(fits[g].status == VM_VCPU_FIT_OK, "guest %u: status %d",
			g, fits[g].status);
		ck_assert_int_eq(fits[g].host_pid, pids[g]);
		errors_of(&sims[g], &fits[g], &median, &largest);
		ck_assert(median <= 1000 && largest <= 5000);
		sim_fini(&sims[g]);
	}
	vm_vcpu_align_destroy(align);
}
END_TEST

/* A guest whose host is not in the trace fits no process. */
START_TEST(test_guest_of_another_host)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct sim host_side, guest_side;
	struct vm_vcpu_fit fit;

	sim_init(&host_side, 20, 0, 0);
	sim_init(&guest_side, 21, INT64_C(2000000000), 10);
	simulate(&host_side, align, 500, G_MAXUINT, 2, INT64_C(1000000000));
	simulate(&guest_side, align, -1, 0, 2, INT64_C(1000000000));
	vm_vcpu_align_solve(align, 1, &fit);
	ck_assert_msg(fit.status == VM_VCPU_FIT_NO_MATCH ||
		fit.status == VM_VCPU_FIT_AMBIGUOUS, "status %d", fit.status);
	ck_assert_int_ne(fit.status, VM_VCPU_FIT_OK);
	sim_fini(&host_side);
	sim_fini(&guest_side);
	vm_vcpu_align_destroy(align);
}
END_TEST

START_TEST(test_too_little)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct sim sim;
	struct vm_vcpu_fit fit;

	sim_init(&sim, 30, INT64_C(1000000000), 0);
	/* About 20 events. */
	simulate(&sim, align, 600, 0, 1, INT64_C(500000));
	vm_vcpu_align_solve(align, 1, &fit);
	ck_assert_int_eq(fit.status, VM_VCPU_FIT_TOO_LITTLE);
	sim_fini(&sim);
	vm_vcpu_align_destroy(align);
}
END_TEST

/* Two processes with the very same vCPU activity: no way to choose. */
START_TEST(test_two_equal_candidates)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct sim a, b;
	struct vm_vcpu_fit fit;

	sim_init(&a, 40, INT64_C(4000000000), 20);
	sim_init(&b, 40, INT64_C(4000000000), 20);
	simulate(&a, align, 700, 0, 2, INT64_C(1000000000));
	/* The same draws again: process 800's vCPUs did exactly the same. */
	simulate(&b, align, 800, G_MAXUINT, 2, INT64_C(1000000000));
	vm_vcpu_align_solve(align, 1, &fit);
	ck_assert_int_eq(fit.status, VM_VCPU_FIT_AMBIGUOUS);
	sim_fini(&a);
	sim_fini(&b);
	vm_vcpu_align_destroy(align);
}
END_TEST

/* The constraints, fed to the sync library, give the same map. */
START_TEST(test_feed)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct vm_sync *sync = vm_sync_create(2);
	struct vm_sync_result results[2];
	struct vm_vcpu_fit fits[2];
	struct sim sim;
	int64_t median, largest;

	sim_init(&sim, 50, -INT64_C(12000000000), -60);
	simulate(&sim, align, 900, 1, 2, INT64_C(1000000000));
	vm_vcpu_align_solve(align, 2, fits);
	ck_assert_int_eq(fits[1].status, VM_VCPU_FIT_OK);
	vm_vcpu_align_feed(align, 1, &fits[1], sync, 0, 1);
	vm_sync_solve(sync, 0, results);
	ck_assert_int_eq(results[1].parent, 0);
	ck_assert_int_eq(results[1].quality, VM_SYNC_ACCURATE);
	ck_assert_int_eq(results[1].matches, fits[1].constraints);
	fits[1].formula = results[1].formula;
	errors_of(&sim, &fits[1], &median, &largest);
	ck_assert(median <= 1000 && largest <= 5000);
	sim_fini(&sim);
	vm_sync_destroy(sync);
	vm_vcpu_align_destroy(align);
}
END_TEST

/* Four seconds of a guest whose clock NTP slews every 0.3 to 0.9 s. */
#define SLEWED_NS INT64_C(4000000000)

static void slewed_sim(struct sim *sim, guint32 seed, int64_t offset_ns, int64_t drift_ppm,
		int64_t step_ppm)
{
	sim_init(sim, seed, offset_ns, drift_ppm);
	sim_slew(sim, step_ppm, INT64_C(300000000), INT64_C(900000000), SLEWED_NS);
}

/*
 * The piecewise map the fit of `guest` rests on, as the sync library builds
 * it from the constraints fed to it: its errors, and its segment count
 * (which must be the fit's).
 */
static void piecewise_errors(const struct vm_vcpu_align *align, unsigned int guest,
		const struct vm_vcpu_fit *fit, const struct sim *sim, int64_t *median,
		int64_t *largest)
{
	struct vm_sync *sync = vm_sync_create(2);
	struct vm_sync_result results[2];
	const struct vm_sync_segment *segments;
	struct vm_sync_map map;
	unsigned int count;

	vm_sync_keep_piecewise(sync);
	vm_vcpu_align_feed(align, guest, fit, sync, 0, 1);
	vm_sync_solve(sync, 0, results);
	ck_assert_int_eq(results[1].parent, 0);
	ck_assert_ptr_nonnull(results[1].segments);
	segments = vm_sync_segments_map(results[1].segments, &count);
	ck_assert_uint_eq(count, fit->segments);
	vm_sync_map_init(&map, &segments[0].formula);
	vm_sync_map_set_segments(&map, segments, count);
	errors_under(sim, &map, fit->constraints, fit->outside, median, largest);
	vm_sync_map_fini(&map);
	vm_sync_destroy(sync);
}

/*
 * A slewed clock: no line fits, so the linear fit refuses; the piecewise
 * one follows it within microseconds, its map the one fed to the sync
 * library.
 */
static void check_slewed(guint32 seed, int64_t offset_ns, int64_t drift_ppm, int64_t step_ppm)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct vm_vcpu_fit fit;
	struct sim sim;
	int64_t median, largest;

	slewed_sim(&sim, seed, offset_ns, drift_ppm, step_ppm);
	simulate(&sim, align, 4242, 0, 2, SLEWED_NS);
	vm_vcpu_align_solve(align, 1, &fit);
	ck_assert_msg(fit.status == VM_VCPU_FIT_NO_MATCH, "seed %u linear: status %d",
		seed, fit.status);
	vm_vcpu_align_keep_piecewise(align);
	vm_vcpu_align_solve(align, 1, &fit);
	ck_assert_msg(fit.status == VM_VCPU_FIT_OK, "seed %u piecewise: status %d",
		seed, fit.status);
	ck_assert_int_eq(fit.host_pid, 4242);
	ck_assert_uint_ge(fit.segments, 2);
	ck_assert_uint_le(fit.outside, fit.events / 1000 + 2);
	piecewise_errors(align, 0, &fit, &sim, &median, &largest);
	ck_assert_msg(median <= 1000 && largest <= 5000,
		"seed %u: median error %lld ns, largest %lld ns", seed,
		(long long) median, (long long) largest);
	sim_fini(&sim);
	vm_vcpu_align_destroy(align);
}

START_TEST(test_slewed_piecewise)
{
	check_slewed(60, INT64_C(7000000000), 40, 50);
	check_slewed(61, -INT64_C(25000000000), -60, 50);
	check_slewed(62, INT64_C(300000), 0, 100);
}
END_TEST

/* What one line fits, the piecewise fit gives as that very line. */
START_TEST(test_piecewise_one_line)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct vm_vcpu_fit linear, piecewise;
	struct sim sim;
	int64_t median, largest;

	sim_init(&sim, 63, INT64_C(37000000000), 80);
	simulate(&sim, align, 4242, 0, 2, INT64_C(2000000000));
	vm_vcpu_align_solve(align, 1, &linear);
	ck_assert_int_eq(linear.status, VM_VCPU_FIT_OK);
	ck_assert_uint_eq(linear.segments, 1);
	vm_vcpu_align_keep_piecewise(align);
	vm_vcpu_align_solve(align, 1, &piecewise);
	ck_assert_int_eq(piecewise.status, VM_VCPU_FIT_OK);
	ck_assert_uint_eq(piecewise.segments, 1);
	ck_assert(piecewise.formula.slope == linear.formula.slope);
	ck_assert(piecewise.formula.offset_ns == linear.formula.offset_ns);
	ck_assert_uint_eq(piecewise.constraints, linear.constraints);
	ck_assert_uint_eq(piecewise.outside, linear.outside);
	piecewise_errors(align, 0, &piecewise, &sim, &median, &largest);
	ck_assert(median <= 1000 && largest <= 5000);
	sim_fini(&sim);
	vm_vcpu_align_destroy(align);
}
END_TEST

/* Slewed too, two processes with the very same activity still cannot be told. */
START_TEST(test_slewed_two_equal_candidates)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct sim a, b;
	struct vm_vcpu_fit fit;

	vm_vcpu_align_keep_piecewise(align);
	slewed_sim(&a, 64, INT64_C(4000000000), 20, 50);
	slewed_sim(&b, 64, INT64_C(4000000000), 20, 50);
	simulate(&a, align, 700, 0, 2, SLEWED_NS);
	simulate(&b, align, 800, G_MAXUINT, 2, SLEWED_NS);
	vm_vcpu_align_solve(align, 1, &fit);
	ck_assert_int_eq(fit.status, VM_VCPU_FIT_AMBIGUOUS);
	sim_fini(&a);
	sim_fini(&b);
	vm_vcpu_align_destroy(align);
}
END_TEST

/* A slewed guest whose host is not in the trace fits no process, piecewise either. */
START_TEST(test_slewed_guest_of_another_host)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct sim host_side, guest_side;
	struct vm_vcpu_fit fit;

	vm_vcpu_align_keep_piecewise(align);
	slewed_sim(&host_side, 65, 0, 0, 50);
	slewed_sim(&guest_side, 66, INT64_C(2000000000), 10, 50);
	simulate(&host_side, align, 500, G_MAXUINT, 2, SLEWED_NS);
	simulate(&guest_side, align, -1, 0, 2, SLEWED_NS);
	vm_vcpu_align_solve(align, 1, &fit);
	ck_assert_msg(fit.status == VM_VCPU_FIT_NO_MATCH ||
		fit.status == VM_VCPU_FIT_AMBIGUOUS, "status %d", fit.status);
	sim_fini(&host_side);
	sim_fini(&guest_side);
	vm_vcpu_align_destroy(align);
}
END_TEST

/* Three slewed VMs whose vCPU threads look alike: each gets its own. */
START_TEST(test_slewed_look_alike_processes)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct sim sims[3];
	struct vm_vcpu_fit fits[3];
	const int64_t pids[3] = { 300, 100, 200 };

	vm_vcpu_align_keep_piecewise(align);
	for (unsigned int g = 0; g < 3; g++) {
		slewed_sim(&sims[g], 67 + g, INT64_C(5000000000) * (g + 1) - 7000, 30, 50);
		simulate(&sims[g], align, pids[g], g, 2, SLEWED_NS);
	}
	vm_vcpu_align_solve(align, 3, fits);
	for (unsigned int g = 0; g < 3; g++) {
		int64_t median, largest;

		ck_assert_msg(fits[g].status == VM_VCPU_FIT_OK, "guest %u: status %d",
			g, fits[g].status);
		ck_assert_int_eq(fits[g].host_pid, pids[g]);
		piecewise_errors(align, g, &fits[g], &sims[g], &median, &largest);
		ck_assert(median <= 1000 && largest <= 5000);
		sim_fini(&sims[g]);
	}
	vm_vcpu_align_destroy(align);
}
END_TEST

/*
 * A slewed guest whose vCPUs run like clockwork (the same interval every
 * 100 us): offsets a period apart fit as well, so piecewise or not, it
 * is ambiguous.
 */
START_TEST(test_slewed_periodic_is_ambiguous)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct vm_vcpu_fit fit;
	struct sim sim;

	vm_vcpu_align_keep_piecewise(align);
	slewed_sim(&sim, 72, INT64_C(3000000000), 20, 50);
	for (int64_t h = HOST_START; h < HOST_START + SLEWED_NS / 4; h += 100000) {
		/* A long time out of guest mode every 10 ms, at the same phase. */
		int64_t exit = h + ((h - HOST_START) % 10000000 == 0 ? 30000 : 60000);

		vm_vcpu_align_add_guest_mode(align, HOST, 900, 90000, 0, h, exit);
		for (int64_t t = h + 1000; t < exit - 1000; t += 10000)
			sim_emit(&sim, align, 0, 0, t);
	}
	vm_vcpu_align_solve(align, 1, &fit);
	ck_assert_msg(fit.status == VM_VCPU_FIT_AMBIGUOUS, "status %d", fit.status);
	sim_fini(&sim);
	vm_vcpu_align_destroy(align);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcpu-align");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_offsets_and_drifts);
	tcase_add_test(tc, test_look_alike_processes);
	tcase_add_test(tc, test_guest_of_another_host);
	tcase_add_test(tc, test_too_little);
	tcase_add_test(tc, test_two_equal_candidates);
	tcase_add_test(tc, test_feed);
	tcase_add_test(tc, test_slewed_piecewise);
	tcase_add_test(tc, test_piecewise_one_line);
	tcase_add_test(tc, test_slewed_two_equal_candidates);
	tcase_add_test(tc, test_slewed_guest_of_another_host);
	tcase_add_test(tc, test_slewed_look_alike_processes);
	tcase_add_test(tc, test_slewed_periodic_is_ambiguous);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
