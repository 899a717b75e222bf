#include "loss-truth.h"

#include <inttypes.h>

#include "loss.h"

typedef enum { AFFECTED_THREAD, AFFECTED_VCPU, AFFECTED_EXIT } affected_kind;

static const char *const kind_names[] = {
	[AFFECTED_THREAD] = "thread", [AFFECTED_VCPU] = "vcpu", [AFFECTED_EXIT] = "exit",
};

typedef struct affected {
	int machine;
	affected_kind kind;
	int id; /* tid, vCPU */
	int reason; /* exits only */
	uint64_t begin_ns, end_ns;
} affected;

/* Where a host CPU's current thread is unknown to an analysis: from a gap
 * of its stream to its next recorded sched_switch. */
typedef struct unknown_period {
	int cpu;
	uint64_t begin_ns, end_ns;
} unknown_period;

typedef struct loss_truth {
	wl_sim *sim;
	const GArray *log;
	uint64_t end_ns; /* the last event of the run */
	GArray *unknown; /* of unknown_period */
	GArray *rows; /* of affected */
} loss_truth;

static const char *machine_name(const wl_sim *sim, int machine)
{
	if (machine == LOSS_HOST)
		return "host";
	return ((const wl_guest *)g_ptr_array_index(sim->guests, machine - 1))->name;
}

void wl_loss_losses_body(wl_sim *sim, FILE *file)
{
	const GArray *gaps = sim->losses->gaps;

	for (guint i = 0; i < gaps->len; i++) {
		const wl_gap *gap = &g_array_index(gaps, wl_gap, i);

		fprintf(file, "%s,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d\n",
			machine_name(sim, gap->machine), gap->cpu, gap->last_before_ns,
			gap->first_after_ns, gap->lost, gap->counted ? 1 : 0);
	}
}

static const wl_decision *decision_at(const loss_truth *truth, guint i)
{
	return &g_array_index(truth->log, wl_decision, i);
}

static bool is_switch(const wl_decision *d)
{
	return d->kind == DECIDE_GUEST_SWITCH || d->kind == DECIDE_HOST_SWITCH;
}

static bool names(const wl_decision *d, int tid)
{
	return d->a == tid || (is_switch(d) && d->b == tid);
}

/* The first recorded switch of the stream at or after `from`. */
static uint64_t next_recorded_switch(const loss_truth *truth, wl_decide_kind kind, int machine,
				     int cpu, uint64_t from)
{
	for (guint i = 0; i < truth->log->len; i++) {
		const wl_decision *d = decision_at(truth, i);

		if (d->ns >= from && d->recorded && d->kind == kind && d->machine == machine &&
		    d->cpu == cpu)
			return d->ns;
	}
	return truth->end_ns;
}

/* Adds to TIDS the threads current on the stream at some time of [begin,
 * end] (from every switch, recorded or not), and the ones named by its
 * events of that span (wake-ups included when `with_wakes`). */
static void threads_on(const loss_truth *truth, wl_decide_kind switch_kind, int machine, int cpu,
		       uint64_t begin, uint64_t end, bool with_wakes, GHashTable *tids)
{
	int current = -1;
	bool before = true;

	for (guint i = 0; i < truth->log->len; i++) {
		const wl_decision *d = decision_at(truth, i);

		if (d->machine != machine || d->cpu != cpu || d->ns > end)
			continue;
		if (d->kind == switch_kind) {
			if (d->ns <= begin) {
				current = d->b;
				continue;
			}
			/* Before the stream's first switch, its prev was current. */
			if (before && current < 0)
				current = d->a;
			before = false;
			g_hash_table_add(tids, GINT_TO_POINTER(d->a));
			g_hash_table_add(tids, GINT_TO_POINTER(d->b));
		} else if (with_wakes && d->kind == DECIDE_GUEST_WAKE && d->ns > begin) {
			g_hash_table_add(tids, GINT_TO_POINTER(d->a));
		}
	}
	if (current >= 0)
		g_hash_table_add(tids, GINT_TO_POINTER(current));
}

static bool in_unknown(const loss_truth *truth, int cpu, uint64_t t)
{
	for (guint i = 0; i < truth->unknown->len; i++) {
		const unknown_period *p = &g_array_index(truth->unknown, unknown_period, i);

		if (p->cpu == cpu && t >= p->begin_ns && t < p->end_ns)
			return true;
	}
	return false;
}

static void add_row(loss_truth *truth, int machine, affected_kind kind, int id, int reason,
		    uint64_t begin, uint64_t end)
{
	affected row = { machine, kind, id, reason, begin, MAX(begin, end) };

	g_array_append_val(truth->rows, row);
}

/* A guest CPU's gap: its current thread and every thread its lost events
 * name stay affected until a recorded sched_switch of the guest names them. */
static void guest_gap(loss_truth *truth, const wl_gap *gap)
{
	GHashTable *tids = g_hash_table_new(NULL, NULL);
	GHashTableIter iter;
	gpointer key;

	threads_on(truth, DECIDE_GUEST_SWITCH, gap->machine, gap->cpu, gap->last_before_ns,
		   gap->first_after_ns, true, tids);
	g_hash_table_iter_init(&iter, tids);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		int tid = GPOINTER_TO_INT(key);
		uint64_t end = truth->end_ns;

		if (tid == 0)
			continue;
		for (guint i = 0; i < truth->log->len; i++) {
			const wl_decision *d = decision_at(truth, i);

			if (d->ns >= gap->first_after_ns && d->recorded &&
			    d->kind == DECIDE_GUEST_SWITCH && d->machine == gap->machine &&
			    names(d, tid)) {
				end = d->ns;
				break;
			}
		}
		add_row(truth, gap->machine, AFFECTED_THREAD, tid, -1, gap->last_before_ns, end);
	}
	g_hash_table_unref(tids);
}

static const wl_host_thread *host_thread(const wl_sim *sim, int tid)
{
	for (guint i = 0; i < sim->host_threads->len; i++) {
		const wl_host_thread *thread = g_ptr_array_index(sim->host_threads, i);

		if (thread->tid == tid)
			return thread;
	}
	return NULL;
}

/* When an analysis knows the vCPU thread's mode again after a host gap: its
 * next recorded kvm event on a CPU whose current thread is known, or the
 * next recorded sched_switch naming it. */
static uint64_t vcpu_known_again(const loss_truth *truth, int tid, uint64_t from)
{
	for (guint i = 0; i < truth->log->len; i++) {
		const wl_decision *d = decision_at(truth, i);

		if (d->ns < from || !d->recorded)
			continue;
		if (d->kind == DECIDE_HOST_SWITCH && names(d, tid))
			return d->ns;
		if ((d->kind == DECIDE_KVM_ENTRY || d->kind == DECIDE_KVM_EXIT) && d->a == tid &&
		    !in_unknown(truth, d->cpu, d->ns))
			return d->ns;
	}
	return truth->end_ns;
}

/* A host CPU's gap: every vCPU whose thread was current there (or became
 * current during the gap), from the gap on until its mode is known again,
 * and the guest threads on that vCPU over the same window. */
static void host_gap(loss_truth *truth, const wl_gap *gap)
{
	GHashTable *tids = g_hash_table_new(NULL, NULL);
	GHashTableIter iter;
	gpointer key;

	threads_on(truth, DECIDE_HOST_SWITCH, LOSS_HOST, gap->cpu, gap->last_before_ns,
		   gap->first_after_ns, false, tids);
	g_hash_table_iter_init(&iter, tids);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		const wl_host_thread *thread = host_thread(truth->sim, GPOINTER_TO_INT(key));

		if (!thread || thread->kind != HOST_VCPU)
			continue;

		const wl_vcpu *vcpu = thread->vcpu;
		int machine = vcpu->guest->index;
		uint64_t end = vcpu_known_again(truth, thread->tid, gap->first_after_ns);
		GHashTable *guest_tids = g_hash_table_new(NULL, NULL);
		GHashTableIter guest_iter;
		gpointer guest_key;

		add_row(truth, machine, AFFECTED_VCPU, vcpu->id, -1, gap->last_before_ns, end);
		threads_on(truth, DECIDE_GUEST_SWITCH, machine, vcpu->id, gap->last_before_ns, end,
			   false, guest_tids);
		g_hash_table_iter_init(&guest_iter, guest_tids);
		while (g_hash_table_iter_next(&guest_iter, &guest_key, NULL))
			if (GPOINTER_TO_INT(guest_key) != 0)
				add_row(truth, machine, AFFECTED_THREAD, GPOINTER_TO_INT(guest_key),
					-1, gap->last_before_ns, end);
		g_hash_table_unref(guest_tids);
	}
	g_hash_table_unref(tids);
}

static bool overlaps_vcpu_window(const loss_truth *truth, guint vcpu_rows, int machine, int vcpu,
				 uint64_t begin, uint64_t end)
{
	for (guint i = 0; i < vcpu_rows; i++) {
		const affected *row = &g_array_index(truth->rows, affected, i);

		if (row->kind == AFFECTED_VCPU && row->machine == machine && row->id == vcpu &&
		    row->begin_ns <= end && begin <= row->end_ns)
			return true;
	}
	return false;
}

/* Whether [begin, end] meets a gap of a host stream: a vCPU thread that was
 * not seen running elsewhere may have run there unseen, entering the guest
 * in the middle of the exit, so an analysis gives such exits up (it cannot
 * tell which threads ran; this over-approximates). */
static bool overlaps_host_gap(const loss_truth *truth, uint64_t begin, uint64_t end)
{
	const GArray *gaps = truth->sim->losses->gaps;

	for (guint i = 0; i < gaps->len; i++) {
		const wl_gap *gap = &g_array_index(gaps, wl_gap, i);

		if (gap->machine == LOSS_HOST && gap->last_before_ns < end &&
		    begin < gap->first_after_ns)
			return true;
	}
	return false;
}

typedef struct open_exit {
	const wl_decision *exit;
} open_exit;

/* Exits (kvm_exit to the vCPU's next kvm_entry) an analysis may not count:
 * an event of theirs lost or not attributable, or a vCPU window over them. */
static void touched_exits(loss_truth *truth)
{
	GHashTable *open = g_hash_table_new(g_int64_hash, g_int64_equal);
	guint vcpu_rows = truth->rows->len;
	GArray *keys = g_array_new(FALSE, FALSE, sizeof(gint64));

	g_array_set_size(keys, truth->log->len);
	for (guint i = 0; i < truth->log->len; i++) {
		const wl_decision *d = decision_at(truth, i);
		gint64 *key = &g_array_index(keys, gint64, i);

		if (d->kind != DECIDE_KVM_EXIT && d->kind != DECIDE_KVM_ENTRY)
			continue;
		*key = (gint64)d->machine << 32 | (guint32)d->b;
		if (d->kind == DECIDE_KVM_EXIT) {
			g_hash_table_insert(open, key, (gpointer)d);
			continue;
		}

		const wl_decision *exit = g_hash_table_lookup(open, key);

		if (!exit)
			continue;
		g_hash_table_remove(open, key);
		if (!exit->recorded || !d->recorded || in_unknown(truth, exit->cpu, exit->ns) ||
		    in_unknown(truth, d->cpu, d->ns) ||
		    overlaps_vcpu_window(truth, vcpu_rows, d->machine, d->b, exit->ns, d->ns) ||
		    overlaps_host_gap(truth, exit->ns, d->ns))
			add_row(truth, d->machine, AFFECTED_EXIT, d->b, exit->c, exit->ns, d->ns);
	}
	g_hash_table_unref(open);
	g_array_unref(keys);
}

static gint compare_rows(gconstpointer pa, gconstpointer pb)
{
	const affected *a = pa, *b = pb;

	if (a->machine != b->machine)
		return a->machine < b->machine ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->reason != b->reason)
		return a->reason < b->reason ? -1 : 1;
	if (a->begin_ns != b->begin_ns)
		return a->begin_ns < b->begin_ns ? -1 : 1;
	return a->end_ns < b->end_ns ? -1 : a->end_ns > b->end_ns;
}

static void print_row(const loss_truth *truth, FILE *file, const affected *row)
{
	fprintf(file, "%s,%s,", machine_name(truth->sim, row->machine), kind_names[row->kind]);
	if (row->kind == AFFECTED_EXIT)
		fprintf(file, "%d/%d", row->id, row->reason);
	else
		fprintf(file, "%d", row->id);
	fprintf(file, ",%" PRIu64 ",%" PRIu64 "\n", row->begin_ns, row->end_ns);
}

/* Sorted; overlapping windows of one thread or vCPU merged (exits are one
 * row each). */
static void print_rows(const loss_truth *truth, FILE *file)
{
	affected merged;
	bool have = false;

	g_array_sort(truth->rows, compare_rows);
	for (guint i = 0; i < truth->rows->len; i++) {
		const affected *row = &g_array_index(truth->rows, affected, i);

		if (have && row->kind != AFFECTED_EXIT && row->machine == merged.machine &&
		    row->kind == merged.kind && row->id == merged.id && row->begin_ns <= merged.end_ns) {
			merged.end_ns = MAX(merged.end_ns, row->end_ns);
			continue;
		}
		if (have)
			print_row(truth, file, &merged);
		merged = *row;
		have = true;
	}
	if (have)
		print_row(truth, file, &merged);
}

void wl_loss_affected_body(wl_sim *sim, FILE *file)
{
	loss_truth truth = {
		.sim = sim, .log = sim->losses->log, .end_ns = sim->last_event_ns,
		.unknown = g_array_new(FALSE, FALSE, sizeof(unknown_period)),
		.rows = g_array_new(FALSE, FALSE, sizeof(affected)),
	};
	const GArray *gaps = sim->losses->gaps;

	for (guint i = 0; i < gaps->len; i++) {
		const wl_gap *gap = &g_array_index(gaps, wl_gap, i);

		if (gap->machine != LOSS_HOST)
			continue;

		unknown_period period = {
			gap->cpu, gap->last_before_ns,
			next_recorded_switch(&truth, DECIDE_HOST_SWITCH, LOSS_HOST, gap->cpu,
					     gap->first_after_ns),
		};

		g_array_append_val(truth.unknown, period);
	}
	for (guint i = 0; i < gaps->len; i++) {
		const wl_gap *gap = &g_array_index(gaps, wl_gap, i);

		if (gap->machine == LOSS_HOST)
			host_gap(&truth, gap);
		else
			guest_gap(&truth, gap);
	}
	touched_exits(&truth);
	print_rows(&truth, file);
	g_array_unref(truth.unknown);
	g_array_unref(truth.rows);
}
