/*
 * The vCPU method read once (lib/sync/vcpu-follow.h) on simulated vCPUs
 * whose truth is known: the alignment finds the guest on its first second,
 * then the data comes millisecond by millisecond, as correlate reads it,
 * and the follower's constraints build the one-pass map (sync/online.h).
 * Every guest event must map within microseconds of its true host time,
 * though its clock is slewed every one to three seconds.
 */
#include <check.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "sync/online.h"
#include "sync/vcpu-align.h"
#include "sync/vcpu-follow.h"
#include "vcpu-sim.h"

#define PID 4242
#define STEP_NS INT64_C(1000000)
#define FIRST_NS INT64_C(1000000000)
#define LOOK_AHEAD_NS INT64_C(50000000)

static gint by_exit(gconstpointer a, gconstpointer b)
{
	const struct sim_interval *x = a, *y = b;

	return (x->exit > y->exit) - (x->exit < y->exit);
}

static gint by_host_time(gconstpointer a, gconstpointer b)
{
	const struct sim_event *x = a, *y = b;

	return (x->host_ts > y->host_ts) - (x->host_ts < y->host_ts);
}

static gint compare_i64(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* Where the replay stands: what was given up to the host time read. */
struct replay {
	struct sim *sim;
	guint next_interval;
	guint next_event;
};

/* What was read up to host time `until`, in the order it was read, to the callbacks. */
static void replay_until(struct replay *replay, int64_t until,
		void (*give_interval)(void *data, const struct sim_interval *interval),
		void (*give_event)(void *data, const struct sim_event *event), void *data)
{
	const GArray *intervals = replay->sim->intervals, *events = replay->sim->events;

	for (; replay->next_interval < intervals->len; replay->next_interval++) {
		const struct sim_interval *interval = &g_array_index(intervals,
			struct sim_interval, replay->next_interval);

		if (interval->exit > until)
			break;
		give_interval(data, interval);
	}
	for (; replay->next_event < events->len; replay->next_event++) {
		const struct sim_event *event = &g_array_index(events, struct sim_event,
			replay->next_event);

		if (event->host_ts > until)
			break;
		give_event(data, event);
	}
}

/* The alignment gets every interval, as a process of the host. */
static void align_interval(void *data, const struct sim_interval *interval)
{
	vm_vcpu_align_add_guest_mode(data, HOST, interval->pid,
		interval->pid * 100 + (int64_t) interval->vcpu, interval->vcpu,
		interval->entry, interval->exit);
}

static void align_event(void *data, const struct sim_event *event)
{
	vm_vcpu_align_add_guest_event(data, 0, event->cpu, event->guest_ts);
}

/* The follower gets its process's intervals only. */
static void follow_interval(void *data, const struct sim_interval *interval)
{
	if (interval->pid == PID)
		vm_vcpu_follow_add_guest_mode(data, interval->vcpu, interval->entry,
			interval->exit);
}

static void follow_event(void *data, const struct sim_event *event)
{
	vm_vcpu_follow_add_guest_event(data, event->cpu, event->guest_ts);
}

/*
 * How far the host's intervals are all known at host time `at`: an
 * interval still open then (entered, not exited yet) is not given yet.
 */
static int64_t host_known(const struct replay *replay, int64_t at)
{
	const GArray *intervals = replay->sim->intervals;
	int64_t known = at;

	/* By exit: the open ones end within an interval's longest (200 us). */
	for (guint i = replay->next_interval; i < intervals->len; i++) {
		const struct sim_interval *interval =
			&g_array_index(intervals, struct sim_interval, i);

		if (interval->exit > at + INT64_C(1000000))
			break;
		known = interval->entry < known ? interval->entry : known;
	}
	return known;
}

/* Median and largest error of the one-pass map over every simulated event. */
static void errors_of(const struct sim *sim, const struct vm_sync_online *online,
		int64_t *median, int64_t *largest)
{
	GArray *errors = g_array_new(FALSE, FALSE, sizeof(int64_t));
	unsigned int segments;

	for (guint i = 0; i < sim->events->len; i++) {
		const struct sim_event *event = &g_array_index(sim->events, struct sim_event, i);
		int64_t error = vm_sync_formula_apply(vm_sync_online_formula_at(online,
			event->guest_ts), event->guest_ts) - event->host_ts;

		error = error < 0 ? -error : error;
		g_array_append_val(errors, error);
	}
	g_array_sort(errors, compare_i64);
	*median = g_array_index(errors, int64_t, errors->len / 2);
	*largest = g_array_index(errors, int64_t, errors->len - 1);
	vm_sync_online_map(online, &segments);
	if (getenv("VCPU_FOLLOW_DEBUG"))
		fprintf(stderr, "events %u matches %llu segments %u median %lld largest %lld\n",
			errors->len, (unsigned long long) vm_sync_online_matches(online),
			segments, (long long) *median, (long long) *largest);
	g_array_free(errors, TRUE);
}

/*
 * A guest of `seconds` whose clock is slewed by up to `step_ppm` every one
 * to three seconds, beside a look-alike QEMU (`rival`): aligned on its
 * first second, then followed to its end.
 */
static void check_followed(guint32 seed, int64_t offset_ns, int64_t drift_ppm, int64_t step_ppm,
		int seconds, bool rival)
{
	int64_t duration = seconds * INT64_C(1000000000);
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct vm_sync_online *online = vm_sync_online_create();
	struct vm_vcpu_follow *follow;
	struct vm_vcpu_fit fit;
	struct replay replay = { 0 };
	struct sim sim;
	int64_t median, largest, at;

	sim_init(&sim, seed, offset_ns, drift_ppm);
	sim_slew(&sim, step_ppm, INT64_C(1000000000), INT64_C(3000000000), duration);
	simulate(&sim, NULL, PID, G_MAXUINT, 2, duration);
	if (rival) {
		/* Another VM's vCPUs: intervals only, no guest events of its own here. */
		guint events = sim.events->len;

		simulate(&sim, NULL, PID + 1, G_MAXUINT, 2, duration);
		g_array_set_size(sim.events, events);
	}
	g_array_sort(sim.intervals, by_exit);
	g_array_sort(sim.events, by_host_time);
	replay.sim = &sim;

	replay_until(&replay, HOST_START + FIRST_NS, align_interval, align_event, align);
	vm_vcpu_align_keep_piecewise(align);
	vm_vcpu_align_solve(align, 1, &fit);
	ck_assert_msg(fit.status == VM_VCPU_FIT_OK, "seed %u: status %d", seed, fit.status);
	ck_assert_int_eq(fit.host_pid, PID);
	follow = vm_vcpu_follow_create(align, 0, &fit, online);
	ck_assert_uint_eq(vm_vcpu_follow_constraints(follow), fit.constraints);
	vm_sync_online_commit_windows(online,
		sim_guest_clock(&sim, HOST_START + FIRST_NS - LOOK_AHEAD_NS));
	vm_vcpu_align_destroy(align);

	for (at = HOST_START + FIRST_NS + STEP_NS; at < HOST_START + duration + 2 * STEP_NS;
			at += STEP_NS) {
		replay_until(&replay, at, follow_interval, follow_event, follow);
		vm_vcpu_follow_advance(follow, host_known(&replay, at), sim_guest_clock(&sim, at),
			online);
		vm_sync_online_commit(online, sim_guest_clock(&sim, at - LOOK_AHEAD_NS));
	}
	replay_until(&replay, INT64_MAX, follow_interval, follow_event, follow);
	vm_vcpu_follow_finish(follow, online);
	vm_sync_online_end(online, sim_guest_clock(&sim, at));

	/* About one per interval with events: the fit's, and the rest's. */
	ck_assert_uint_gt(vm_vcpu_follow_constraints(follow), (uint64_t) seconds * 5000);
	errors_of(&sim, online, &median, &largest);
	ck_assert_msg(median <= 200 && largest <= 5000,
		"seed %u: median error %lld ns, largest %lld ns", seed,
		(long long) median, (long long) largest);
	vm_vcpu_follow_destroy(follow);
	vm_sync_online_destroy(online);
	sim_fini(&sim);
}

START_TEST(test_followed_slewed)
{
	check_followed(70, INT64_C(300000), 20, 50, 12, false);
	check_followed(71, -INT64_C(4000000000), -40, 80, 12, true);
}
END_TEST

START_TEST(test_followed_steady)
{
	check_followed(72, INT64_C(2500000000), 60, 0, 8, true);
}
END_TEST

/* A follower given nothing after its fit stays put, and frees what it holds. */
START_TEST(test_nothing_after_the_fit)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct vm_sync_online *online = vm_sync_online_create();
	struct vm_vcpu_follow *follow;
	struct vm_vcpu_fit fit;
	struct sim sim;
	uint64_t fed;

	sim_init(&sim, 73, INT64_C(1000000), 10);
	simulate(&sim, align, PID, 0, 2, FIRST_NS);
	vm_vcpu_align_solve(align, 1, &fit);
	ck_assert_int_eq(fit.status, VM_VCPU_FIT_OK);
	follow = vm_vcpu_follow_create(align, 0, &fit, online);
	fed = vm_vcpu_follow_constraints(follow);
	vm_vcpu_follow_advance(follow, HOST_START + FIRST_NS, INT64_MAX, online);
	vm_vcpu_follow_finish(follow, online);
	/* The tail it kept may bound again what the fit bounded; it adds nothing before it. */
	ck_assert_uint_ge(vm_vcpu_follow_constraints(follow), fed);
	ck_assert_uint_eq(vm_sync_online_matches(online), vm_vcpu_follow_constraints(follow));
	vm_vcpu_follow_destroy(follow);
	vm_sync_online_destroy(online);
	vm_vcpu_align_destroy(align);
	sim_fini(&sim);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("vcpu-follow");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_followed_slewed);
	tcase_add_test(tc, test_followed_steady);
	tcase_add_test(tc, test_nothing_after_the_fit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
