/*
 * The vCPU method read once: see vcpu-follow.h. The walk forward of
 * vcpu-walk.c, one stretch at a time as the data comes, over queues instead
 * of the whole trace.
 */

#include <inttypes.h>
#include <math.h>

#include "sync/vcpu-align-private.h"
#include "sync/vcpu-follow.h"
#include "util/fifo.h"
#include "util/time-span.h"

/* Host time attributed per step, as the walk's. */
#define STEP_NS INT64_C(5000000)
/* A clock's rate changes by at most 1 / RATE_CHANGE_DIVISOR (200 ppm). */
#define RATE_CHANGE_DIVISOR 5000
/* How loosely a line is known when no run bounded one yet. */
#define UNGUIDED_WIDTH_NS 10000
/* CPU numbers below this are found by index, others by a search. */
#define MAX_INDEXED_CPUS 4096
/* What is kept of the fit's data before its last constraint. */
#define KEEP_BEFORE_NS INT64_C(1000000)
/* Losses of the host kept behind the walk: more than any tolerance. */
#define GAPS_KEPT_NS INT64_C(2000000000)

/* One guest CPU and the vCPU of the followed process with its number. */
struct follow_cpu {
	uint64_t cpu;
	struct vm_fifo events;        /* int64_t guest times, in order */
	struct vm_fifo intervals;     /* struct vm_guest_mode, by entry */
	int64_t recorded_from;        /* the first entry ever (INT64_MAX: none yet) */
	int64_t recorded_to;          /* the last exit so far */
	int64_t prev_exit;            /* of the interval before the queue's head */
	/* The interval events were last attributed to, and its first and last. */
	bool has_current;
	struct vm_guest_mode current;
	int64_t first;
	int64_t last;
};

struct vm_vcpu_follow {
	GArray *cpus;                 /* struct follow_cpu */
	GArray *by_number;            /* guint index into cpus (G_MAXUINT: none), per CPU number */
	/* The walk: the run since the rate last changed, and the line in use. */
	struct vm_sync_hull *run;
	struct vm_sync_hull *guide;   /* the run the line came from (NULL: the fit's line) */
	struct vm_sync_formula line;
	struct vm_sync_prepared line_prepared;  /* `line`, for every guest event */
	int64_t line_at;
	int64_t edge;                 /* host time attributed up to */
	GArray *pending;              /* struct vm_vcpu_constraint, not fed yet */
	GArray *stretch_fed;          /* those fed since the last stretch ended */
	int64_t fed_last;             /* host time of the last constraint fed */
	uint64_t fed;
	/* Where the host lost events (vm_vcpu_follow_add_host_gap()), ahead of the walk. */
	struct vm_loss_windows *host_gaps;
};

static struct follow_cpu *cpu_at(struct vm_vcpu_follow *follow, guint i)
{
	return &g_array_index(follow->cpus, struct follow_cpu, i);
}

static struct follow_cpu *cpu_of(struct vm_vcpu_follow *follow, uint64_t cpu)
{
	struct follow_cpu fresh = {
		.cpu = cpu,
		.recorded_from = INT64_MAX,
		.recorded_to = INT64_MIN,
		.prev_exit = INT64_MIN,
	};

	guint none = G_MAXUINT;

	/* Every guest event looks its CPU up: by number, for the usual small ones. */
	if (cpu < MAX_INDEXED_CPUS && cpu < follow->by_number->len &&
			g_array_index(follow->by_number, guint, cpu) != G_MAXUINT) {
		return cpu_at(follow, g_array_index(follow->by_number, guint, cpu));
	}
	for (guint i = 0; i < follow->cpus->len; i++) {
		if (cpu_at(follow, i)->cpu == cpu) {
			return cpu_at(follow, i);
		}
	}
	vm_fifo_init(&fresh.events, sizeof(int64_t));
	vm_fifo_init(&fresh.intervals, sizeof(struct vm_guest_mode));
	g_array_append_val(follow->cpus, fresh);
	if (cpu < MAX_INDEXED_CPUS) {
		while (follow->by_number->len <= cpu) {
			g_array_append_val(follow->by_number, none);
		}
		g_array_index(follow->by_number, guint, cpu) = follow->cpus->len - 1;
	}
	return cpu_at(follow, follow->cpus->len - 1);
}

/* The constraint's host time orders the hull's points (vcpu-align-private.h). */
static void run_take(struct vm_vcpu_follow *follow, const struct vm_vcpu_constraint *c)
{
	g_array_append_val(follow->stretch_fed, *c);
	if (vm_sync_hull_quality(follow->run) != VM_SYNC_FAIL) {
		vm_sync_hull_add_match(follow->run, c->host_to_guest, c->send, c->recv);
	}
}

/*
 * A run that no line fits any more: the clock changed rate. As the walk
 * does, a new run begins with the stretch that showed it (the line in use
 * guides until the new run bounds a better one).
 */
static void run_restart_if_failed(struct vm_vcpu_follow *follow)
{
	if (vm_sync_hull_quality(follow->run) == VM_SYNC_FAIL) {
		vm_sync_hull_destroy(follow->run);
		follow->run = vm_sync_hull_create();
		for (guint i = 0; i < follow->stretch_fed->len; i++) {
			const struct vm_vcpu_constraint *c =
				&g_array_index(follow->stretch_fed, struct vm_vcpu_constraint, i);

			vm_sync_hull_add_match(follow->run, c->host_to_guest, c->send, c->recv);
		}
	}
	g_array_set_size(follow->stretch_fed, 0);
}

/* Feeds one constraint to the map and the run, in host time order. */
static void feed(struct vm_vcpu_follow *follow, const struct vm_vcpu_constraint *c,
		struct vm_sync_online *online)
{
	int64_t at = vm_vcpu_constraint_host_time(c);

	/* An interval across stretches may bound again what was fed: the hulls take order only. */
	if (at < follow->fed_last) {
		return;
	}
	follow->fed_last = at;
	follow->fed++;
	run_take(follow, c);
	vm_sync_online_add(online, c->host_to_guest, at, c->host_to_guest ? c->recv : c->send);
}

/* The line in use; prepared once, applied to every guest event. */
static void set_line(struct vm_vcpu_follow *follow, const struct vm_sync_formula *line)
{
	follow->line = *line;
	vm_sync_formula_prepare(line, &follow->line_prepared);
}

/* What the line in use may be off by at host time `at` (the walk's tolerance). */
static int64_t tolerance_at(const struct vm_vcpu_follow *follow, int64_t at)
{
	int64_t since = vm_time_span(at, follow->line_at);
	long double width = follow->guide ? vm_sync_hull_width_at(follow->guide, at) :
		UNGUIDED_WIDTH_NS;

	if (!(width < (long double) INT64_C(1000000000))) {
		width = (long double) INT64_C(1000000000);
	}
	return VM_VCPU_FITTED_TOLERANCE_NS + (int64_t) width +
		(since + 2 * STEP_NS) / RATE_CHANGE_DIVISOR;
}

/*
 * The run's line replaces the line in use when it promises a smaller
 * tolerance over the next stretch (as the walk's run_line()); a slope that
 * far from the line in use is no change of rate a clock makes.
 */
static void take_run_line(struct vm_vcpu_follow *follow)
{
	int64_t next = vm_time_sum(follow->edge, STEP_NS);
	struct vm_sync_formula line;
	struct vm_vcpu_follow trial;

	if (vm_sync_hull_quality(follow->run) != VM_SYNC_ACCURATE) {
		return;
	}
	line = vm_sync_hull_formula(follow->run);
	trial = *follow;
	trial.guide = follow->run;
	trial.line_at = follow->edge;
	if (follow->guide && (tolerance_at(&trial, next) > tolerance_at(follow, next) ||
			fabsl(line.slope - follow->line.slope) > 1.0L / RATE_CHANGE_DIVISOR)) {
		return;
	}
	set_line(follow, &line);
	vm_sync_hull_destroy(follow->guide);
	follow->guide = vm_sync_hull_copy(follow->run);
	follow->line_at = follow->edge;
}

static void add_constraint(struct vm_vcpu_follow *follow, bool host_to_guest, int64_t send,
		int64_t recv)
{
	struct vm_vcpu_constraint constraint = { host_to_guest, send, recv };

	g_array_append_val(follow->pending, constraint);
}

/* The current interval gets no more events: its exit bounds its last one. */
static void close_current(struct vm_vcpu_follow *follow, struct follow_cpu *cpu)
{
	if (!cpu->has_current) {
		return;
	}
	add_constraint(follow, true, cpu->current.entry, cpu->first);
	add_constraint(follow, false, cpu->last, cpu->current.exit);
	cpu->has_current = false;
}

/* The queue's head interval is done with (no event to come can be in it). */
static void pop_interval(struct vm_vcpu_follow *follow, struct follow_cpu *cpu)
{
	const struct vm_guest_mode *head = vm_fifo_peek(&cpu->intervals);

	if (cpu->has_current && cpu->current.entry == head->entry) {
		close_current(follow, cpu);
	}
	cpu->prev_exit = head->exit;
	vm_fifo_pop(&cpu->intervals);
}

/*
 * One event at host time `h` under the line: attributed to the interval
 * that holds it within `tolerance`, when exactly one may (as
 * vcpu-attribute.c's attributable()).
 */
static void attribute_event(struct vm_vcpu_follow *follow, struct follow_cpu *cpu, int64_t g,
		int64_t h, int64_t tolerance)
{
	const struct vm_guest_mode *head;

	while (vm_fifo_length(&cpu->intervals) >= 2 &&
			((const struct vm_guest_mode *) vm_fifo_at(&cpu->intervals, 1))->entry <=
				h + tolerance) {
		pop_interval(follow, cpu);
	}
	/* Where the host lost events, its interval may be missing (vcpu-attribute.c). */
	if (vm_loss_windows_near(follow->host_gaps, h, tolerance)) {
		return;
	}
	head = vm_fifo_peek(&cpu->intervals);
	if (!head || head->entry > h + tolerance || head->exit < h - tolerance ||
			cpu->prev_exit >= h - tolerance) {
		return;
	}
	if (cpu->has_current && cpu->current.entry != head->entry) {
		close_current(follow, cpu);
	}
	if (!cpu->has_current) {
		cpu->has_current = true;
		cpu->current = *head;
		cpu->first = g;
	}
	cpu->last = g;
}

/* The events of `cpu` that the line puts up to host time `high`. */
static void attribute_cpu(struct vm_vcpu_follow *follow, struct follow_cpu *cpu, int64_t high,
		int64_t tolerance, bool at_end)
{
	const int64_t *event;

	while ((event = vm_fifo_peek(&cpu->events))) {
		int64_t g = *event;
		int64_t h = vm_sync_prepared_apply(&follow->line_prepared, g);

		if (h > high) {
			break;
		}
		vm_fifo_pop(&cpu->events);
		/* The host's record of the vCPU: before and after it, guest mode is unknown. */
		if (h < vm_time_sum(cpu->recorded_from, tolerance) ||
				(at_end && h > vm_time_sum(cpu->recorded_to, -tolerance))) {
			continue;
		}
		attribute_event(follow, cpu, g, h, tolerance);
	}

	/* Intervals wholly behind the stretch: no event to come is in them. */
	while (vm_fifo_length(&cpu->intervals) > 0 &&
			((const struct vm_guest_mode *) vm_fifo_peek(&cpu->intervals))->exit <
				vm_time_sum(high, -2 * tolerance)) {
		pop_interval(follow, cpu);
	}
	if (cpu->has_current && cpu->current.exit < vm_time_sum(high, -2 * tolerance)) {
		close_current(follow, cpu);
	}
}

static gint compare_constraints(gconstpointer a, gconstpointer b)
{
	int64_t x = vm_vcpu_constraint_host_time(a), y = vm_vcpu_constraint_host_time(b);

	return (x > y) - (x < y);
}

/*
 * Feeds the pending constraints that no later one can precede: a CPU's
 * next constraint is its current interval's exit, else at the next
 * interval's entry; what is not in the queues yet comes after `edge` less
 * the tolerance.
 */
static void feed_ready(struct vm_vcpu_follow *follow, int64_t tolerance,
		struct vm_sync_online *online, bool at_end)
{
	int64_t safe = at_end ? INT64_MAX : vm_time_sum(follow->edge, -2 * tolerance);
	guint fed = 0;

	for (guint i = 0; i < follow->cpus->len && !at_end; i++) {
		struct follow_cpu *cpu = cpu_at(follow, i);
		const struct vm_guest_mode *head = vm_fifo_peek(&cpu->intervals);

		if (cpu->has_current) {
			safe = MIN(safe, cpu->current.entry);
		} else if (head) {
			safe = MIN(safe, head->entry);
		}
	}
	g_array_sort(follow->pending, compare_constraints);
	while (fed < follow->pending->len && vm_vcpu_constraint_host_time(
			&g_array_index(follow->pending, struct vm_vcpu_constraint, fed)) < safe) {
		feed(follow, &g_array_index(follow->pending, struct vm_vcpu_constraint, fed),
			online);
		fed++;
	}
	g_array_remove_range(follow->pending, 0, fed);
}

/* One stretch [edge, high] attributed within `tolerance`. */
static void attribute_stretch(struct vm_vcpu_follow *follow, int64_t high, int64_t tolerance,
		struct vm_sync_online *online, bool at_end)
{
	for (guint i = 0; i < follow->cpus->len; i++) {
		attribute_cpu(follow, cpu_at(follow, i), high, tolerance, at_end);
	}
	if (at_end) {
		for (guint i = 0; i < follow->cpus->len; i++) {
			close_current(follow, cpu_at(follow, i));
		}
	}
	follow->edge = high;
	/* The next stretches look no further back than their tolerance (capped). */
	vm_loss_windows_drop_before(follow->host_gaps, vm_time_sum(high, -GAPS_KEPT_NS));
	feed_ready(follow, tolerance, online, at_end);
	run_restart_if_failed(follow);
	take_run_line(follow);
}

/*
 * The run the walk goes on with: the fit's constraints since its clock
 * last changed rate, as far as they tell (a piecewise fit has several);
 * else those of the last stretch.
 */
static void seed_run(struct vm_vcpu_follow *follow)
{
	GArray *fed = follow->stretch_fed;
	guint from = 0;

	if (vm_sync_hull_quality(follow->run) == VM_SYNC_FAIL) {
		while (from < fed->len && vm_vcpu_constraint_host_time(
				&g_array_index(fed, struct vm_vcpu_constraint, from)) <
				vm_time_sum(follow->edge, -STEP_NS)) {
			from++;
		}
		g_array_remove_range(fed, 0, from);
	}
	run_restart_if_failed(follow);
}

/* Copies what `align` has of the pairing after host time `from` into the queues. */
static void keep_tail(struct vm_vcpu_follow *follow, const struct vm_vcpu_align *align,
		unsigned int guest, const struct vm_vcpu_fit *fit, int64_t from)
{
	char *key = g_strdup_printf("%u/%" PRId64, fit->host, fit->host_pid);
	struct vm_vcpu_candidate *candidate = g_hash_table_lookup(align->candidate_by_key, key);
	struct vm_vcpu_guest *data = vm_vcpu_align_guest(align, guest);
	GHashTableIter it;
	gpointer cpu_key;

	g_free(key);
	if (!candidate || !data) {
		return;
	}
	vm_loss_windows_add_all(follow->host_gaps, candidate->host_gaps);
	g_hash_table_iter_init(&it, data->cpus);
	while (g_hash_table_iter_next(&it, &cpu_key, NULL)) {
		uint64_t number = *(const guint64 *) cpu_key;
		const GArray *events = vm_vcpu_guest_events(data, number);
		const GArray *intervals = vm_vcpu_candidate_intervals(candidate, number);
		struct follow_cpu *cpu = cpu_of(follow, number);
		struct vm_sync_formula inverse = vm_sync_formula_invert(&follow->line);
		int64_t guest_from = vm_sync_formula_apply(&inverse, from);

		for (guint i = vm_vcpu_lower_bound(events, guest_from); i < events->len; i++) {
			*(int64_t *) vm_fifo_push(&cpu->events) = g_array_index(events, int64_t, i);
		}
		if (!intervals || intervals->len == 0) {
			continue;
		}
		cpu->recorded_from = g_array_index(intervals, struct vm_guest_mode, 0).entry;
		for (guint i = 0; i < intervals->len; i++) {
			const struct vm_guest_mode *interval =
				&g_array_index(intervals, struct vm_guest_mode, i);

			if (interval->exit < from) {
				cpu->prev_exit = interval->exit;
				continue;
			}
			*(struct vm_guest_mode *) vm_fifo_push(&cpu->intervals) = *interval;
			cpu->recorded_to = MAX(cpu->recorded_to, interval->exit);
		}
	}
}

struct vm_vcpu_follow *vm_vcpu_follow_create(const struct vm_vcpu_align *align,
		unsigned int guest, const struct vm_vcpu_fit *fit, struct vm_sync_online *online)
{
	struct vm_vcpu_follow *follow = g_new0(struct vm_vcpu_follow, 1);
	const GArray *constraints =
		g_hash_table_lookup(align->constraints, GUINT_TO_POINTER(guest + 1));

	follow->cpus = g_array_new(FALSE, FALSE, sizeof(struct follow_cpu));
	follow->by_number = g_array_new(FALSE, FALSE, sizeof(guint));
	follow->pending = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint));
	follow->stretch_fed = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint));
	follow->run = vm_sync_hull_create();
	follow->host_gaps = vm_loss_windows_create();
	set_line(follow, &fit->formula);
	follow->fed_last = INT64_MIN;
	follow->edge = INT64_MIN;
	if (constraints) {
		for (guint i = 0; i < constraints->len; i++) {
			feed(follow, &g_array_index(constraints, struct vm_vcpu_constraint, i),
				online);
		}
	}
	follow->edge = follow->fed_last;
	follow->line_at = follow->edge;
	seed_run(follow);
	take_run_line(follow);
	if (follow->edge != INT64_MIN) {
		keep_tail(follow, align, guest, fit, vm_time_sum(follow->edge, -KEEP_BEFORE_NS));
	}
	return follow;
}

void vm_vcpu_follow_destroy(struct vm_vcpu_follow *follow)
{
	if (!follow) {
		return;
	}
	for (guint i = 0; i < follow->cpus->len; i++) {
		vm_fifo_fini(&cpu_at(follow, i)->events);
		vm_fifo_fini(&cpu_at(follow, i)->intervals);
	}
	g_array_free(follow->cpus, TRUE);
	g_array_free(follow->by_number, TRUE);
	g_array_free(follow->pending, TRUE);
	g_array_free(follow->stretch_fed, TRUE);
	vm_sync_hull_destroy(follow->run);
	vm_sync_hull_destroy(follow->guide);
	vm_loss_windows_destroy(follow->host_gaps);
	g_free(follow);
}

void vm_vcpu_follow_add_guest_mode(struct vm_vcpu_follow *follow, uint64_t vcpu,
		int64_t entry_ns, int64_t exit_ns)
{
	struct follow_cpu *cpu = cpu_of(follow, vcpu);
	const struct vm_guest_mode *tail = vm_fifo_length(&cpu->intervals) > 0 ?
		vm_fifo_at(&cpu->intervals, vm_fifo_length(&cpu->intervals) - 1) : NULL;

	/* Out of order (a trace that lost events) or behind what was attributed: of no use. */
	if (exit_ns < entry_ns || (tail && entry_ns <= tail->exit) ||
			(cpu->has_current && entry_ns <= cpu->current.exit) ||
			entry_ns <= cpu->prev_exit) {
		return;
	}
	*(struct vm_guest_mode *) vm_fifo_push(&cpu->intervals) =
		(struct vm_guest_mode) { entry_ns, exit_ns };
	cpu->recorded_from = MIN(cpu->recorded_from, entry_ns);
	cpu->recorded_to = MAX(cpu->recorded_to, exit_ns);
}

void vm_vcpu_follow_add_host_gap(struct vm_vcpu_follow *follow, int64_t begin, int64_t end)
{
	vm_loss_windows_add(follow->host_gaps, begin, end);
}

void vm_vcpu_follow_add_guest_event(struct vm_vcpu_follow *follow, uint64_t cpu, int64_t ts)
{
	*(int64_t *) vm_fifo_push(&cpu_of(follow, cpu)->events) = ts;
}

void vm_vcpu_follow_advance(struct vm_vcpu_follow *follow, int64_t host_known,
		int64_t guest_known, struct vm_sync_online *online)
{
	if (follow->edge == INT64_MIN) {
		return;
	}
	for (;;) {
		int64_t high = vm_time_sum(follow->edge, STEP_NS);
		int64_t tolerance = tolerance_at(follow, high);

		/* Every interval and event the stretch may attribute is known. */
		if (vm_time_sum(high, 2 * tolerance) > host_known ||
				vm_time_sum(high, tolerance) >
					vm_sync_formula_apply(&follow->line, guest_known)) {
			return;
		}
		attribute_stretch(follow, high, tolerance, online, false);
	}
}

void vm_vcpu_follow_finish(struct vm_vcpu_follow *follow, struct vm_sync_online *online)
{
	int64_t end = INT64_MIN;

	if (follow->edge == INT64_MIN) {
		return;
	}
	for (guint i = 0; i < follow->cpus->len; i++) {
		end = MAX(end, cpu_at(follow, i)->recorded_to);
	}
	while (follow->edge < end) {
		int64_t high = vm_time_sum(follow->edge, STEP_NS);

		attribute_stretch(follow, high, tolerance_at(follow, high), online, false);
	}
	/* What is left, past the host's record or not. */
	attribute_stretch(follow, INT64_MAX / 2, tolerance_at(follow, follow->edge), online,
		true);
}

uint64_t vm_vcpu_follow_constraints(const struct vm_vcpu_follow *follow)
{
	return follow->fed;
}
