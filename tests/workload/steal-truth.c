#include "steal-truth.h"

#include <inttypes.h>

#include "loss.h"
#include "truth.h"

/* Who is current on a host CPU over [begin_ns, end_ns): THREAD, or nobody
 * an analysis can name (known false: a lost-event gap of the CPU until its
 * next recorded sched_switch, SPEC.md "Lost events"). */
typedef struct culprit_span {
	uint64_t begin_ns, end_ns;
	const wl_host_thread *thread;
	bool known;
} culprit_span;

/* A change on the CPU's timeline: a switch, or an unknown window opening
 * (+1) or closing (-1). */
typedef struct mark {
	uint64_t ns;
	const wl_host_thread *thread; /* switches only */
	int unknown_delta;
} mark;

static gint compare_marks(gconstpointer pa, gconstpointer pb)
{
	const mark *a = pa, *b = pb;

	return (a->ns > b->ns) - (a->ns < b->ns);
}

/* The first recorded sched_switch of the CPU at or after FROM, else END. */
static uint64_t next_recorded_switch(const wl_host_cpu *cpu, uint64_t from, uint64_t end)
{
	for (guint i = 0; i < cpu->history->len; i++) {
		const wl_cpu_current *c = &g_array_index(cpu->history, wl_cpu_current, i);

		if (c->begin_ns >= from && c->recorded)
			return c->begin_ns;
	}
	return end;
}

static void add_unknown_marks(const wl_sim *sim, const wl_host_cpu *cpu, GArray *marks)
{
	if (!sim->losses)
		return;
	for (guint i = 0; i < sim->losses->gaps->len; i++) {
		const wl_gap *gap = &g_array_index(sim->losses->gaps, wl_gap, i);

		if (gap->machine != LOSS_HOST || gap->cpu != cpu->id)
			continue;

		/* From the stream's last event before the gap (where an
		 * analysis puts its start) to the switch whose prev_tid is
		 * trusted again. */
		mark on = { gap->last_before_ns, NULL, 1 };
		mark off = { next_recorded_switch(cpu, gap->first_after_ns, sim->last_event_ns),
			     NULL, -1 };

		g_array_append_val(marks, on);
		g_array_append_val(marks, off);
	}
}

static void add_span(GArray *spans, uint64_t begin, uint64_t end, const wl_host_thread *thread,
		     bool known)
{
	if (begin >= end)
		return;
	if (spans->len > 0) {
		culprit_span *last = &g_array_index(spans, culprit_span, spans->len - 1);

		if (last->known == known && (!known || last->thread == thread) &&
		    last->end_ns == begin) {
			last->end_ns = end;
			return;
		}
	}

	culprit_span span = { begin, end, thread, known };

	g_array_append_val(spans, span);
}

/* The CPU's culprits from the start of the run to its last event. */
static GArray *cpu_spans(const wl_sim *sim, const wl_host_cpu *cpu)
{
	GArray *marks = g_array_new(FALSE, FALSE, sizeof(mark));
	GArray *spans = g_array_new(FALSE, FALSE, sizeof(culprit_span));

	for (guint i = 0; i < cpu->history->len; i++) {
		const wl_cpu_current *c = &g_array_index(cpu->history, wl_cpu_current, i);
		mark m = { c->begin_ns, c->thread, 0 };

		g_array_append_val(marks, m);
	}
	add_unknown_marks(sim, cpu, marks);
	g_array_sort(marks, compare_marks);

	const wl_host_thread *thread = NULL;
	int unknown = 0;
	uint64_t since = sim->start_ns;

	for (guint i = 0; i < marks->len;) {
		uint64_t ns = g_array_index(marks, mark, i).ns;

		add_span(spans, since, ns, thread, unknown == 0);
		/* Every change of one instant before the span after it. */
		for (; i < marks->len && g_array_index(marks, mark, i).ns == ns; i++) {
			const mark *m = &g_array_index(marks, mark, i);

			unknown += m->unknown_delta;
			if (m->unknown_delta == 0)
				thread = m->thread;
		}
		since = ns;
	}
	add_span(spans, since, sim->last_event_ns, thread, unknown == 0);
	g_array_unref(marks);
	return spans;
}

/* The index of the span holding NS (spans are contiguous and sorted). */
static guint span_at(const GArray *spans, uint64_t ns)
{
	guint lo = 0, hi = spans->len;

	while (hi - lo > 1) {
		guint mid = (lo + hi) / 2;

		if (g_array_index(spans, culprit_span, mid).begin_ns <= ns)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static bool guest_has_identified_vcpu(const wl_guest *guest)
{
	for (guint v = 0; v < guest->vcpus->len; v++)
		if (wl_truth_vcpu_identified(g_ptr_array_index(guest->vcpus, v)))
			return true;
	return false;
}

/* culprit_kind,culprit_machine,culprit_vcpu,culprit_tid,culprit_comm */
static void put_culprit(FILE *file, const culprit_span *span)
{
	const wl_host_thread *t = span->thread;

	if (!span->known) {
		fputs("unknown,,,,\n", file);
		return;
	}
	if (t->kind == HOST_IDLE) {
		fputs("idle,,,,\n", file);
		return;
	}
	if (t->kind == HOST_VCPU && wl_truth_vcpu_identified(t->vcpu)) {
		fprintf(file, "vcpu,%s,%d,%d,%s\n", t->vcpu->guest->name, t->vcpu->id, t->tid, t->comm);
		return;
	}

	/* A QEMU thread that is no vCPU thread to the analysis: the main
	 * thread, or (never in practice) a vCPU thread that wrote no kvm
	 * entry; its VM is known through the process's identified vCPUs. */
	const wl_guest *qemu = t->kind == HOST_VCPU ? t->vcpu->guest : t->qemu_guest;

	if (qemu && guest_has_identified_vcpu(qemu))
		fprintf(file, "vmm,%s,,%d,%s\n", qemu->name, t->tid, t->comm);
	else
		fprintf(file, "host,,,%d,%s\n", t->tid, t->comm);
}

static void put_row(FILE *file, const wl_vcpu *vcpu, const wl_steal_wait *wait,
		    const culprit_span *span, uint64_t begin, uint64_t end)
{
	const wl_guest_thread *victim = wait->victim;

	fprintf(file, "%s,%d,", vcpu->guest->name, vcpu->id);
	if (victim)
		fprintf(file, "%d,%s,", victim->tid, victim->comm);
	else
		fprintf(file, "0,swapper/%d,", vcpu->id);
	fprintf(file, "%" PRIu64 ",%" PRIu64 ",%d,", begin, end, wait->pcpu);
	put_culprit(file, span);
}

static bool same_culprit(const culprit_span *a, const culprit_span *b)
{
	return a->known == b->known && (!a->known || a->thread == b->thread);
}

static bool same_wait(const wl_steal_wait *a, const wl_steal_wait *b)
{
	return a->victim == b->victim && a->pcpu == b->pcpu;
}

/* The vCPU's rows: each wait cut by the culprits of its CPU, maximal
 * intervals of one victim, waiting CPU and culprit merged. */
static void vcpu_rows(FILE *file, const wl_vcpu *vcpu, GPtrArray *spans_by_cpu)
{
	const GArray *waits = vcpu->steal.waits;
	bool have = false;
	wl_steal_wait row_wait = { 0 };
	culprit_span row_span = { 0 };
	uint64_t row_begin = 0, row_end = 0;

	for (guint w = 0; w < waits->len; w++) {
		const wl_steal_wait *wait = &g_array_index(waits, wl_steal_wait, w);
		const GArray *spans = g_ptr_array_index(spans_by_cpu, wait->pcpu);

		for (guint s = span_at(spans, wait->begin_ns); s < spans->len; s++) {
			const culprit_span *span = &g_array_index(spans, culprit_span, s);
			uint64_t begin = MAX(span->begin_ns, wait->begin_ns);
			uint64_t end = MIN(span->end_ns, wait->end_ns);

			if (begin >= wait->end_ns)
				break;
			if (have && row_end == begin && same_wait(&row_wait, wait) &&
			    same_culprit(&row_span, span)) {
				row_end = end;
				continue;
			}
			if (have)
				put_row(file, vcpu, &row_wait, &row_span, row_begin, row_end);
			have = true;
			row_wait = *wait;
			row_span = *span;
			row_begin = begin;
			row_end = end;
		}
	}
	if (have)
		put_row(file, vcpu, &row_wait, &row_span, row_begin, row_end);
}

void wl_steal_body(wl_sim *sim, FILE *file)
{
	GPtrArray *spans_by_cpu = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);

	for (guint i = 0; i < sim->cpus->len; i++)
		g_ptr_array_add(spans_by_cpu, cpu_spans(sim, g_ptr_array_index(sim->cpus, i)));
	for (guint g = 0; g < sim->guests->len; g++) {
		const wl_guest *guest = g_ptr_array_index(sim->guests, g);

		for (guint v = 0; v < guest->vcpus->len; v++) {
			const wl_vcpu *vcpu = g_ptr_array_index(guest->vcpus, v);

			/* as vcpus.csv: an unidentified vCPU has no mode */
			if (wl_truth_vcpu_identified(vcpu))
				vcpu_rows(file, vcpu, spans_by_cpu);
		}
	}
	g_ptr_array_unref(spans_by_cpu);
}

/* A window of one vCPU where an analysis may name another victim or
 * waiting CPU than the truth. */
typedef struct steal_window {
	int machine; /* guest index, 1-based */
	int vcpu;
	uint64_t begin_ns, end_ns;
} steal_window;

/* The index of the first decision at or after NS (the log is in time order). */
static guint first_decision_at(const GArray *log, uint64_t ns)
{
	guint lo = 0, hi = log->len;

	while (lo < hi) {
		guint mid = (lo + hi) / 2;

		if (g_array_index(log, wl_decision, mid).ns < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first recorded switch of KIND at or after FROM on (machine, cpu), or
 * naming TID (when >= 0) anywhere; the end of the run when none. */
static uint64_t next_switch(const wl_sim *sim, wl_decide_kind kind, int machine, int cpu, int tid,
			    uint64_t from)
{
	const GArray *log = sim->losses->log;

	for (guint i = first_decision_at(log, from); i < log->len; i++) {
		const wl_decision *d = &g_array_index(log, wl_decision, i);

		if (d->kind != kind || !d->recorded || d->machine != machine)
			continue;
		if (tid >= 0 ? d->a == tid || d->b == tid : d->cpu == cpu)
			return d->ns;
	}
	return sim->last_event_ns;
}

static void add_window(GArray *windows, int machine, int vcpu, uint64_t begin, uint64_t end)
{
	steal_window w = { machine, vcpu, begin, MAX(begin, end) };

	g_array_append_val(windows, w);
}

static gint compare_windows(gconstpointer pa, gconstpointer pb)
{
	const steal_window *a = pa, *b = pb;

	if (a->machine != b->machine)
		return a->machine < b->machine ? -1 : 1;
	if (a->vcpu != b->vcpu)
		return a->vcpu < b->vcpu ? -1 : 1;
	if (a->begin_ns != b->begin_ns)
		return a->begin_ns < b->begin_ns ? -1 : 1;
	return (a->end_ns > b->end_ns) - (a->end_ns < b->end_ns);
}

static void put_window(const wl_sim *sim, FILE *file, const steal_window *w)
{
	const wl_guest *guest = g_ptr_array_index(sim->guests, w->machine - 1);

	fprintf(file, "%s,%d,%" PRIu64 ",%" PRIu64 "\n", guest->name, w->vcpu, w->begin_ns,
		w->end_ns);
}

static void put_windows(const wl_sim *sim, FILE *file, GArray *windows)
{
	steal_window merged = { 0 };
	bool have = false;

	g_array_sort(windows, compare_windows);
	for (guint i = 0; i < windows->len; i++) {
		const steal_window *w = &g_array_index(windows, steal_window, i);

		if (have && w->machine == merged.machine && w->vcpu == merged.vcpu &&
		    w->begin_ns <= merged.end_ns) {
			merged.end_ns = MAX(merged.end_ns, w->end_ns);
			continue;
		}
		if (have)
			put_window(sim, file, &merged);
		merged = *w;
		have = true;
	}
	if (have)
		put_window(sim, file, &merged);
}

void wl_steal_affected_body(wl_sim *sim, FILE *file)
{
	GArray *windows = g_array_new(FALSE, FALSE, sizeof(steal_window));
	const GArray *gaps = sim->losses->gaps;

	/* A guest CPU's current thread (the victim) is unknown from its gap
	 * to its next recorded sched_switch. */
	for (guint i = 0; i < gaps->len; i++) {
		const wl_gap *gap = &g_array_index(gaps, wl_gap, i);

		if (gap->machine != LOSS_HOST)
			add_window(windows, gap->machine, gap->cpu, gap->last_before_ns,
				   next_switch(sim, DECIDE_GUEST_SWITCH, gap->machine, gap->cpu, -1,
					       gap->first_after_ns));
	}
	/* A lost sched_migrate_task leaves the analysis with the old waiting
	 * CPU until a recorded sched_switch names the thread. */
	for (guint g = 0; g < sim->guests->len; g++) {
		const wl_guest *guest = g_ptr_array_index(sim->guests, g);

		for (guint v = 0; v < guest->vcpus->len; v++) {
			const wl_vcpu *vcpu = g_ptr_array_index(guest->vcpus, v);
			const GArray *lost = vcpu->steal.lost_migrations;

			for (guint k = 0; k < lost->len; k++) {
				uint64_t when = g_array_index(lost, uint64_t, k);

				add_window(windows, guest->index, vcpu->id, when,
					   next_switch(sim, DECIDE_HOST_SWITCH, LOSS_HOST, -1,
						       vcpu->thread->tid, when));
			}
		}
	}
	put_windows(sim, file, windows);
	g_array_unref(windows);
}
