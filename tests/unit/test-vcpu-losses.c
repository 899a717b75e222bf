/*
 * What the synchronization from stock KVM events does with lost events
 * (SPEC "Lost events"): the loss windows (lib/loss/windows.h), the gaps
 * located from discarded-events messages (lib/loss/gap-tracker.h), the open
 * guest-mode interval a host CPU's loss drops (lib/sync/guest-mode.h), and
 * the fit and the follower, which leave the host's losses out
 * (vm_vcpu_align_add_host_gap(), vm_vcpu_follow_add_host_gap()): on
 * simulated vCPUs whose intervals are missing where the host lost events,
 * every guest event must still map within microseconds of its true time.
 */
#include <check.h>
#include <glib.h>
#include <stdlib.h>

#include "loss/gap-tracker.h"
#include "loss/windows.h"
#include "sync/guest-mode.h"
#include "sync/online.h"
#include "sync/vcpu-align.h"
#include "sync/vcpu-follow.h"
#include "vcpu-sim.h"

#define PID 4242
#define SECOND INT64_C(1000000000)
#define MS INT64_C(1000000)

START_TEST(test_windows)
{
	struct vm_loss_windows *windows = vm_loss_windows_create();
	int64_t begin, end;

	ck_assert(!vm_loss_windows_overlap(windows, INT64_MIN, INT64_MAX));
	vm_loss_windows_add(windows, 100, 200);
	vm_loss_windows_add(windows, 400, 300);          /* swapped */
	vm_loss_windows_add(windows, 50, 60);            /* before the others */
	ck_assert_uint_eq(vm_loss_windows_count(windows), 3);
	vm_loss_windows_add(windows, 190, 310);          /* joins two */
	ck_assert_uint_eq(vm_loss_windows_count(windows), 2);
	vm_loss_windows_at(windows, 1, &begin, &end);
	ck_assert_int_eq(begin, 100);
	ck_assert_int_eq(end, 400);
	ck_assert_int_eq(vm_loss_windows_total_ns(windows), 10 + 300);
	/* Closed ends. */
	ck_assert(vm_loss_windows_overlap(windows, 400, 500));
	ck_assert(vm_loss_windows_overlap(windows, 0, 50));
	ck_assert(!vm_loss_windows_overlap(windows, 61, 99));
	ck_assert(!vm_loss_windows_overlap(windows, 401, INT64_MAX));
	ck_assert(vm_loss_windows_overlap(windows, 0, INT64_MAX));
	ck_assert(vm_loss_windows_near(windows, 410, 10));
	ck_assert(!vm_loss_windows_near(windows, 411, 10));
	ck_assert(!vm_loss_windows_near(windows, INT64_MAX, 10));
	ck_assert(!vm_loss_windows_near(windows, INT64_MIN, INT64_MAX / 2));
	/* A window over everything before. */
	vm_loss_windows_add(windows, 0, 1000);
	ck_assert_uint_eq(vm_loss_windows_count(windows), 1);
	vm_loss_windows_add(windows, 2000, INT64_MAX);
	ck_assert(vm_loss_windows_near(windows, INT64_MAX, 0));
	vm_loss_windows_drop_before(windows, 1500);
	ck_assert_uint_eq(vm_loss_windows_count(windows), 1);
	ck_assert(!vm_loss_windows_overlap(windows, 0, 1999));
	vm_loss_windows_destroy(windows);
}
END_TEST

/* In time order, mostly, as correlate adds them: merged as they come. */
START_TEST(test_windows_many)
{
	struct vm_loss_windows *windows = vm_loss_windows_create();
	GRand *rand = g_rand_new_with_seed(5);
	bool covered[10000] = { false };

	for (int i = 0; i < 2000; i++) {
		int64_t begin = g_rand_int_range(rand, 0, 9990);
		int64_t end = begin + g_rand_int_range(rand, 0, 10);

		vm_loss_windows_add(windows, begin, end);
		for (int64_t t = begin; t <= end; t++)
			covered[t] = true;
	}
	for (int64_t t = 0; t < 10000; t++)
		ck_assert_msg(vm_loss_windows_overlap(windows, t, t) == covered[t], "t %lld",
			(long long) t);
	g_rand_free(rand);
	vm_loss_windows_destroy(windows);
}
END_TEST

START_TEST(test_gap_tracker)
{
	struct vm_gap_tracker *tracker = vm_gap_tracker_create();
	struct vm_tracked_gap gap;

	ck_assert(!vm_gap_tracker_any(tracker));
	ck_assert(!vm_gap_tracker_event(tracker, 1, 10, 0, &gap));
	/* Stream 1 (machine 7) lost 5 events somewhere in [100, 200]. */
	ck_assert(!vm_gap_tracker_loss(tracker, 1, 7, 100, 200, 5, false, &gap));
	ck_assert(vm_gap_tracker_any(tracker));
	ck_assert_int_eq(vm_gap_tracker_pending_since(tracker, 7), 100);
	ck_assert_int_eq(vm_gap_tracker_pending_since(tracker, 8), INT64_MAX);
	/* The packet's own events: the gap begins after the last of them. */
	ck_assert(!vm_gap_tracker_event(tracker, 1, 120, 3, &gap));
	ck_assert(!vm_gap_tracker_event(tracker, 2, 210, 0, &gap));   /* another stream */
	ck_assert(!vm_gap_tracker_event(tracker, 1, 150, -1, &gap));  /* no tag */
	ck_assert_int_eq(vm_gap_tracker_pending_since(tracker, 7), 150);
	ck_assert(vm_gap_tracker_event(tracker, 1, 200, 3, &gap));
	ck_assert_uint_eq(gap.gap.stream, 1);
	ck_assert_uint_eq(gap.owner, 7);
	ck_assert_int_eq(gap.tag, 3);
	ck_assert_int_eq(gap.gap.begin, 150);
	ck_assert_int_eq(gap.gap.end, 200);
	ck_assert_int_eq(gap.gap.count, 5);
	ck_assert(!vm_gap_tracker_any(tracker));
	ck_assert(!vm_gap_tracker_event(tracker, 1, 250, 3, &gap));

	/* Two losses in a row: the first ends where the stream stood. */
	ck_assert(!vm_gap_tracker_loss(tracker, 2, 8, 300, 400, -1, true, &gap));
	ck_assert(vm_gap_tracker_loss(tracker, 2, 8, 400, 500, 2, false, &gap));
	ck_assert_int_eq(gap.gap.begin, 300);
	ck_assert_int_eq(gap.gap.end, 400);
	ck_assert_int_eq(gap.gap.count, -1);
	ck_assert(gap.gap.packets);
	ck_assert_int_eq(gap.tag, -1);
	/* A range that ends before it begins. */
	ck_assert(!vm_gap_tracker_loss(tracker, 3, 9, 700, 600, 1, false, &gap));
	ck_assert(vm_gap_tracker_event(tracker, 3, 700, 1, &gap));
	ck_assert_int_eq(gap.gap.end, 700);
	vm_gap_tracker_destroy(tracker);
}
END_TEST

static void count_gap(const struct vm_tracked_gap *gap, void *data)
{
	ck_assert_int_eq(gap->gap.end, 500);
	(*(int *) data)++;
}

/* The end of the input: what is pending is located, once. */
START_TEST(test_gap_tracker_flush)
{
	struct vm_gap_tracker *tracker = vm_gap_tracker_create();
	struct vm_tracked_gap gap;
	int count = 0;

	vm_gap_tracker_loss(tracker, 1, 0, 100, 500, 1, false, &gap);
	vm_gap_tracker_loss(tracker, 2, 0, 200, 500, 1, false, &gap);
	vm_gap_tracker_flush(tracker, count_gap, &count);
	ck_assert_int_eq(count, 2);
	vm_gap_tracker_flush(tracker, count_gap, &count);
	ck_assert_int_eq(count, 2);
	vm_gap_tracker_destroy(tracker);
}
END_TEST

static void count_interval(void *data, const struct vm_guest_mode_interval *interval)
{
	(void) interval;
	(*(int *) data)++;
}

/* A loss of a host CPU drops its open interval: its exit may be lost. */
START_TEST(test_forget_open)
{
	struct vm_guest_modes *modes = vm_guest_modes_create();
	struct vm_guest_mode_counts counts;
	int intervals = 0;

	vm_guest_modes_switch(modes, 0, 1, 100);
	vm_guest_modes_entry(modes, 0, 0, 10);
	vm_guest_modes_exit(modes, 0, -1, 20);
	vm_guest_modes_entry(modes, 0, 0, 30);
	ck_assert_int_eq(vm_guest_modes_forget_open(modes, 0), 30);
	ck_assert_int_eq(vm_guest_modes_forget_open(modes, 0), INT64_MAX);
	/* Nothing open there, no such CPU. */
	ck_assert_int_eq(vm_guest_modes_forget_open(modes, 1), INT64_MAX);
	ck_assert_int_eq(vm_guest_modes_forget_open(modes, -1), INT64_MAX);
	counts = vm_guest_modes_counts(modes);
	ck_assert_uint_eq(counts.lost_exits, 1);
	ck_assert_int_eq(vm_guest_modes_pending_since(modes), INT64_MAX);
	vm_guest_modes_drain(modes, count_interval, &intervals);
	ck_assert_int_eq(intervals, 1);
	vm_guest_modes_destroy(modes);
}
END_TEST

/* `count` windows of `length` ns at random in [start, start + duration). */
static GArray *random_windows(GRand *rand, int count, int64_t start, int64_t duration,
		int64_t length)
{
	GArray *windows = g_array_new(FALSE, FALSE, sizeof(int64_t) * 2);

	for (int i = 0; i < count; i++) {
		int64_t window[2];

		window[0] = start + sim_range(rand, 0, duration - length);
		window[1] = window[0] + length;
		g_array_append_val(windows, window);
	}
	return windows;
}

/* Whether one of the first `count` windows meets [begin, end]. */
static bool meets(const GArray *windows, guint count, int64_t begin, int64_t end)
{
	for (guint i = 0; i < count; i++) {
		const int64_t *window = &g_array_index(windows, int64_t, 2 * i);

		if (window[0] <= end && window[1] >= begin)
			return true;
	}
	return false;
}

/*
 * The host recorded no interval that meets a window (an entry or exit, or
 * the thread running, was lost there): the intervals that are left. As
 * correlate does, the windows grow to hold the intervals the losses cut
 * (from the entry of the one open at a loss on).
 */
static void drop_lost(struct sim *sim, GArray *windows)
{
	guint count = windows->len;

	for (guint i = 0; i < sim->intervals->len; i++) {
		const struct sim_interval *interval =
			&g_array_index(sim->intervals, struct sim_interval, i);
		int64_t cut[2] = { interval->entry, interval->exit };

		if (!meets(windows, count, interval->entry, interval->exit))
			continue;
		g_array_append_val(windows, cut);
		g_array_remove_index(sim->intervals, i--);
	}
	ck_assert_uint_gt(windows->len, count);
}

static void give_intervals(const struct sim *sim, struct vm_vcpu_align *align, int64_t until)
{
	for (guint i = 0; i < sim->intervals->len; i++) {
		const struct sim_interval *interval =
			&g_array_index(sim->intervals, struct sim_interval, i);

		if (interval->exit <= until)
			vm_vcpu_align_add_guest_mode(align, HOST, interval->pid,
				interval->pid * 100 + (int64_t) interval->vcpu, interval->vcpu,
				interval->entry, interval->exit);
	}
}

static void give_events(const struct sim *sim, struct vm_vcpu_align *align, int64_t until)
{
	for (guint i = 0; i < sim->events->len; i++) {
		const struct sim_event *event = &g_array_index(sim->events, struct sim_event, i);

		if (event->host_ts <= until)
			vm_vcpu_align_add_guest_event(align, 0, event->cpu, event->guest_ts);
	}
}

static void give_gaps(const GArray *windows, struct vm_vcpu_align *align)
{
	for (guint i = 0; i < windows->len; i++) {
		const int64_t *window = &g_array_index(windows, int64_t, 2 * i);

		vm_vcpu_align_add_host_gap(align, HOST, window[0], window[1]);
	}
}

static gint compare_i64(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* Median and largest error of `map_at` (a formula per guest time) over every event. */
static void check_errors(const struct sim *sim, const struct vm_sync_formula *(*map_at)(
		const void *map, int64_t t), const void *map, const char *what)
{
	GArray *errors = g_array_new(FALSE, FALSE, sizeof(int64_t));
	int64_t median, largest;

	for (guint i = 0; i < sim->events->len; i++) {
		const struct sim_event *event = &g_array_index(sim->events, struct sim_event, i);
		int64_t error = vm_sync_formula_apply(map_at(map, event->guest_ts),
			event->guest_ts) - event->host_ts;

		error = error < 0 ? -error : error;
		g_array_append_val(errors, error);
	}
	g_array_sort(errors, compare_i64);
	median = g_array_index(errors, int64_t, errors->len / 2);
	largest = g_array_index(errors, int64_t, errors->len - 1);
	ck_assert_msg(median <= 1000 && largest <= 5000, "%s: median error %lld ns, largest "
		"%lld ns", what, (long long) median, (long long) largest);
	g_array_free(errors, TRUE);
}

static const struct vm_sync_formula *line_at(const void *map, int64_t t)
{
	(void) t;
	return map;
}

/*
 * 40 losses of 1 ms in 2 s (2% of the host's record): the guest events of
 * the intervals lost fall "outside guest mode", and the fit refuses the
 * guest, unless the losses are left out.
 */
static void check_fit(guint32 seed, int64_t offset_ns, int64_t drift_ppm, bool piecewise)
{
	struct vm_vcpu_align *blind = vm_vcpu_align_create();
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct vm_vcpu_fit fit;
	struct sim sim;
	GArray *windows;

	sim_init(&sim, seed, offset_ns, drift_ppm);
	simulate(&sim, NULL, PID, G_MAXUINT, 2, 2 * SECOND);
	/* A look-alike QEMU, with no guest trace here. */
	{
		guint events = sim.events->len;

		simulate(&sim, NULL, PID + 1, G_MAXUINT, 2, 2 * SECOND);
		g_array_set_size(sim.events, events);
	}
	windows = random_windows(sim.rand, 40, HOST_START, 2 * SECOND, MS);
	drop_lost(&sim, windows);
	for (int i = 0; i < 2; i++) {
		struct vm_vcpu_align *which = i ? align : blind;

		if (piecewise)
			vm_vcpu_align_keep_piecewise(which);
		give_intervals(&sim, which, INT64_MAX);
		give_events(&sim, which, INT64_MAX);
	}
	vm_vcpu_align_solve(blind, 1, &fit);
	ck_assert_msg(fit.status != VM_VCPU_FIT_OK, "seed %u: fitted without the losses "
		"(the test needs more of them)", seed);
	give_gaps(windows, align);
	vm_vcpu_align_solve(align, 1, &fit);
	ck_assert_msg(fit.status == VM_VCPU_FIT_OK, "seed %u: status %d", seed, fit.status);
	ck_assert_int_eq(fit.host_pid, PID);
	ck_assert_uint_eq(fit.outside, 0);
	ck_assert_uint_eq(fit.segments, 1);
	check_errors(&sim, line_at, &fit.formula, "fit");
	g_array_free(windows, TRUE);
	vm_vcpu_align_destroy(blind);
	vm_vcpu_align_destroy(align);
	sim_fini(&sim);
}

START_TEST(test_fit_leaves_host_gaps_out)
{
	check_fit(80, INT64_C(37000000000), 80, false);
	check_fit(81, -INT64_C(2000000000), -30, false);
	check_fit(82, INT64_C(500000), 10, true);
}
END_TEST

static const struct vm_sync_formula *online_at(const void *map, int64_t t)
{
	return vm_sync_online_formula_at(map, t);
}

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

/*
 * Read once: aligned on the first second, then followed, millisecond by
 * millisecond, with the host's losses given as they come (before the host
 * time known passes them).
 */
START_TEST(test_follower_leaves_host_gaps_out)
{
	struct vm_vcpu_align *align = vm_vcpu_align_create();
	struct vm_sync_online *online = vm_sync_online_create();
	struct vm_vcpu_follow *follow;
	struct vm_vcpu_fit fit;
	struct sim sim;
	GArray *windows;
	guint next_interval = 0, next_event = 0, next_window = 0;
	int64_t at;

	sim_init(&sim, 83, -INT64_C(9000000000), 50);
	simulate(&sim, NULL, PID, G_MAXUINT, 2, 4 * SECOND);
	windows = random_windows(sim.rand, 80, HOST_START, 4 * SECOND, MS);
	drop_lost(&sim, windows);
	g_array_sort(sim.intervals, by_exit);
	g_array_sort(sim.events, by_host_time);
	g_array_sort(windows, compare_i64);   /* by begin: the first of each pair */

	vm_vcpu_align_keep_piecewise(align);
	give_intervals(&sim, align, HOST_START + SECOND);
	give_events(&sim, align, HOST_START + SECOND);
	for (; next_window < windows->len &&
			g_array_index(windows, int64_t, 2 * next_window) <= HOST_START + SECOND;
			next_window++)
		vm_vcpu_align_add_host_gap(align, HOST, g_array_index(windows, int64_t,
			2 * next_window), g_array_index(windows, int64_t, 2 * next_window + 1));
	vm_vcpu_align_solve(align, 1, &fit);
	ck_assert_msg(fit.status == VM_VCPU_FIT_OK, "status %d", fit.status);
	follow = vm_vcpu_follow_create(align, 0, &fit, online);
	vm_vcpu_align_destroy(align);
	while (next_interval < sim.intervals->len && g_array_index(sim.intervals,
			struct sim_interval, next_interval).exit <= HOST_START + SECOND)
		next_interval++;
	while (next_event < sim.events->len && g_array_index(sim.events, struct sim_event,
			next_event).host_ts <= HOST_START + SECOND)
		next_event++;

	for (at = HOST_START + SECOND + MS; at < HOST_START + 4 * SECOND + 2 * MS; at += MS) {
		for (; next_interval < sim.intervals->len; next_interval++) {
			const struct sim_interval *interval = &g_array_index(sim.intervals,
				struct sim_interval, next_interval);

			if (interval->exit > at)
				break;
			vm_vcpu_follow_add_guest_mode(follow, interval->vcpu, interval->entry,
				interval->exit);
		}
		for (; next_event < sim.events->len; next_event++) {
			const struct sim_event *event = &g_array_index(sim.events,
				struct sim_event, next_event);

			if (event->host_ts > at)
				break;
			vm_vcpu_follow_add_guest_event(follow, event->cpu, event->guest_ts);
		}
		for (; next_window < windows->len &&
				g_array_index(windows, int64_t, 2 * next_window) <= at;
				next_window++)
			vm_vcpu_follow_add_host_gap(follow, g_array_index(windows, int64_t,
				2 * next_window), g_array_index(windows, int64_t, 2 * next_window + 1));
		/* An interval open at `at` is shorter than 1 ms; a loss not given begins after. */
		vm_vcpu_follow_advance(follow, at - MS, sim_guest_clock(&sim, at), online);
		vm_sync_online_commit(online, sim_guest_clock(&sim, at - 50 * MS));
	}
	vm_vcpu_follow_finish(follow, online);
	vm_sync_online_end(online, sim_guest_clock(&sim, at));
	check_errors(&sim, online_at, online, "follower");
	g_array_free(windows, TRUE);
	vm_vcpu_follow_destroy(follow);
	vm_sync_online_destroy(online);
	sim_fini(&sim);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcpu-losses");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_windows);
	tcase_add_test(tc, test_windows_many);
	tcase_add_test(tc, test_gap_tracker);
	tcase_add_test(tc, test_gap_tracker_flush);
	tcase_add_test(tc, test_forget_open);
	tcase_add_test(tc, test_fit_leaves_host_gaps_out);
	tcase_add_test(tc, test_follower_leaves_host_gaps_out);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
