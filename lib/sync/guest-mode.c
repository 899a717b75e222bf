/*
 * Guest-mode intervals of a KVM host: see guest-mode.h.
 */

#include <stdbool.h>
#include <stdlib.h>
#include <glib.h>

#include "event.h"
#include "sync/guest-mode.h"
#include "model/int64-key.h"

/* Higher CPU numbers are taken as garbage rather than grown to. */
#define MAX_CPUS (1 << 16)

/* One closed interval of a known thread (the thread is its array's). */
struct run {
	uint64_t vcpu;
	int64_t entry_ns;
	int64_t exit_ns;
};

struct cpu_state {
	bool switched;          /* a sched_switch was seen: `runs` is its thread's */
	bool open;
	int64_t tid;            /* `runs`'s thread once switched (-1: unknown) */
	uint64_t vcpu;          /* of the open interval */
	int64_t entry_ns;
	GArray *runs;           /* where the CPU's intervals go */
	GArray *before_switch;  /* owned until the first switch names its thread */
};

struct vm_guest_modes {
	GArray *cpus;           /* struct cpu_state, by CPU number */
	GHashTable *threads;    /* tid (-1: unknown) -> GArray of struct run */
	/*
	 * The tids whose arrays are not empty, each once: read once takes the
	 * closed intervals every millisecond of trace, and a host has thousands
	 * of threads (every one that ever ran keeps its empty array).
	 */
	GArray *pending;
	struct vm_guest_mode_counts counts;
};

static GArray *new_runs(void)
{
	return g_array_new(FALSE, FALSE, sizeof(struct run));
}

static void free_runs(gpointer runs)
{
	g_array_free(runs, TRUE);
}

struct vm_guest_modes *vm_guest_modes_create(void)
{
	struct vm_guest_modes *modes = g_new0(struct vm_guest_modes, 1);

	modes->cpus = g_array_new(FALSE, TRUE, sizeof(struct cpu_state));
	modes->threads = vm_int64_table_new(free_runs);
	modes->pending = g_array_new(FALSE, FALSE, sizeof(int64_t));
	return modes;
}

static void free_before_switch(struct vm_guest_modes *modes)
{
	guint i;

	for (i = 0; i < modes->cpus->len; i++) {
		struct cpu_state *cpu = &g_array_index(modes->cpus, struct cpu_state, i);

		if (cpu->before_switch) {
			g_array_free(cpu->before_switch, TRUE);
			cpu->before_switch = NULL;
		}
	}
}

void vm_guest_modes_destroy(struct vm_guest_modes *modes)
{
	if (!modes) {
		return;
	}

	free_before_switch(modes);
	g_array_free(modes->cpus, TRUE);
	g_hash_table_destroy(modes->threads);
	g_array_free(modes->pending, TRUE);
	g_free(modes);
}

/* The intervals of thread `tid` (negative: unknown), created on first use. */
static GArray *thread_runs(struct vm_guest_modes *modes, int64_t tid)
{
	GArray *runs;

	tid = tid < 0 ? -1 : tid;
	runs = vm_int64_table_lookup(modes->threads, tid);
	if (!runs) {
		runs = new_runs();
		vm_int64_table_insert(modes->threads, tid, runs);
	}

	return runs;
}

/* Appends `count` intervals to thread `tid`'s array `runs`, noting it pending. */
static void append_runs(struct vm_guest_modes *modes, int64_t tid, GArray *runs,
		const struct run *added, guint count)
{
	if (count == 0) {
		return;
	}

	if (runs->len == 0) {
		g_array_append_val(modes->pending, tid);
	}

	g_array_append_vals(runs, added, count);
}

/* The state of CPU `cpu`, or NULL for a CPU number that cannot be one. */
static struct cpu_state *cpu_at(struct vm_guest_modes *modes, int64_t cpu)
{
	struct cpu_state *state;

	if (cpu < 0 || cpu >= MAX_CPUS) {
		return NULL;
	}

	if ((guint) cpu >= modes->cpus->len) {
		g_array_set_size(modes->cpus, (guint) cpu + 1);
	}

	state = &g_array_index(modes->cpus, struct cpu_state, (guint) cpu);
	if (!state->runs) {
		state->before_switch = new_runs();
		state->runs = state->before_switch;
	}

	return state;
}

/* A lost exit: the open interval's end is unknown, so it is no constraint. */
static void drop_open(struct vm_guest_modes *modes, struct cpu_state *cpu)
{
	if (cpu->open) {
		modes->counts.lost_exits++;
		cpu->open = false;
	}
}

void vm_guest_modes_switch(struct vm_guest_modes *modes, int64_t cpu_id,
		int64_t prev_tid, int64_t next_tid)
{
	struct cpu_state *cpu = cpu_at(modes, cpu_id);

	if (!cpu) {
		return;
	}

	/* A thread leaves the CPU only from host mode. */
	drop_open(modes, cpu);
	if (!cpu->switched) {
		int64_t prev = prev_tid < 0 ? -1 : prev_tid;

		append_runs(modes, prev, thread_runs(modes, prev),
			(const struct run *) cpu->before_switch->data, cpu->before_switch->len);
		g_array_free(cpu->before_switch, TRUE);
		cpu->before_switch = NULL;
		cpu->switched = true;
	}

	cpu->tid = next_tid < 0 ? -1 : next_tid;
	cpu->runs = thread_runs(modes, cpu->tid);
}

void vm_guest_modes_entry(struct vm_guest_modes *modes, int64_t cpu_id,
		int64_t vcpu_id, int64_t ts)
{
	struct cpu_state *cpu = cpu_at(modes, cpu_id);

	if (!cpu || vcpu_id < 0) {
		modes->counts.bad_entries++;
		if (cpu) {
			drop_open(modes, cpu);
		}
		return;
	}

	drop_open(modes, cpu);
	cpu->open = true;
	cpu->vcpu = (uint64_t) vcpu_id;
	cpu->entry_ns = ts;
}

void vm_guest_modes_exit(struct vm_guest_modes *modes, int64_t cpu_id,
		int64_t vcpu_id, int64_t ts)
{
	struct cpu_state *cpu = cpu_at(modes, cpu_id);
	struct run run;

	if (!cpu || !cpu->open) {
		modes->counts.lone_exits++;
		return;
	}

	/* The exit's number, when it has one, is the one to trust (guest-mode.h). */
	run.vcpu = vm_vcpu_id_valid(vcpu_id) ? (uint64_t) vcpu_id : cpu->vcpu;
	run.entry_ns = cpu->entry_ns;
	run.exit_ns = ts;
	if (cpu->switched) {
		append_runs(modes, cpu->tid, cpu->runs, &run, 1);
	} else {
		g_array_append_val(cpu->runs, run);
	}

	cpu->open = false;
	modes->counts.intervals++;
}

int64_t vm_guest_modes_current_thread(const struct vm_guest_modes *modes,
		int64_t cpu_id)
{
	const struct cpu_state *cpu;

	if (cpu_id < 0 || (uint64_t) cpu_id >= modes->cpus->len) {
		return -1;
	}
	cpu = &g_array_index(modes->cpus, struct cpu_state, cpu_id);
	return cpu->switched ? cpu->tid : -1;
}

int64_t vm_guest_modes_open_vcpu(const struct vm_guest_modes *modes, int64_t cpu_id)
{
	const struct cpu_state *cpu;

	if (cpu_id < 0 || (uint64_t) cpu_id >= modes->cpus->len) {
		return -1;
	}
	cpu = &g_array_index(modes->cpus, struct cpu_state, cpu_id);
	return cpu->open ? (int64_t) cpu->vcpu : -1;
}

int64_t vm_guest_modes_forget_open(struct vm_guest_modes *modes, int64_t cpu_id)
{
	struct cpu_state *cpu = cpu_at(modes, cpu_id);
	int64_t entry;

	if (!cpu || !cpu->open) {
		return INT64_MAX;
	}

	entry = cpu->entry_ns;
	drop_open(modes, cpu);
	return entry;
}

struct vm_guest_mode_counts vm_guest_modes_counts(const struct vm_guest_modes *modes)
{
	return modes->counts;
}

static gint compare_tids(gconstpointer a, gconstpointer b)
{
	int64_t ta = **(const gint64 * const *) a;
	int64_t tb = **(const gint64 * const *) b;

	return ta < tb ? -1 : ta > tb;
}

/* Intervals of CPUs that never switched: their thread stays unknown. */
static void give_up_before_switch(struct vm_guest_modes *modes)
{
	guint i;

	for (i = 0; i < modes->cpus->len; i++) {
		struct cpu_state *cpu = &g_array_index(modes->cpus, struct cpu_state, i);

		if (cpu->before_switch) {
			append_runs(modes, -1, thread_runs(modes, -1),
				(const struct run *) cpu->before_switch->data,
				cpu->before_switch->len);
		}
	}

	free_before_switch(modes);
}

static void drain_thread(struct vm_guest_modes *modes, int64_t tid, GArray *runs,
		vm_guest_mode_sink sink, void *data)
{
	guint i;

	for (i = 0; i < runs->len; i++) {
		const struct run *run = &g_array_index(runs, struct run, i);
		struct vm_guest_mode_interval interval = {
			.tid = tid,
			.vcpu = run->vcpu,
			.entry_ns = run->entry_ns,
			.exit_ns = run->exit_ns,
		};

		sink(data, &interval);
	}

	if (tid < 0) {
		modes->counts.unknown_thread += runs->len;
	}
}

void vm_guest_modes_drain(struct vm_guest_modes *modes, vm_guest_mode_sink sink,
		void *data)
{
	GPtrArray *tids = g_ptr_array_new();
	GHashTableIter it;
	gpointer key;
	guint i;

	give_up_before_switch(modes);
	g_hash_table_iter_init(&it, modes->threads);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		g_ptr_array_add(tids, key);
	}

	g_ptr_array_sort(tids, compare_tids);
	for (i = 0; i < tids->len; i++) {
		int64_t tid = *(const gint64 *) g_ptr_array_index(tids, i);

		/* Freed thread by thread: the sink's copy grows as these go. */
		drain_thread(modes, tid, vm_int64_table_lookup(modes->threads, tid), sink, data);
		vm_int64_table_remove(modes->threads, tid);
	}

	g_ptr_array_free(tids, TRUE);
	g_array_set_size(modes->pending, 0);
	for (i = 0; i < modes->cpus->len; i++) {
		struct cpu_state *cpu = &g_array_index(modes->cpus, struct cpu_state, i);

		cpu->open = false;
		cpu->runs = NULL;
		cpu->switched = false;
	}
}

/*
 * The intervals that closed before `before` on a CPU that has not switched
 * yet go to the unknown thread: a vCPU thread pinned to its CPU may never
 * switch, and its intervals cannot wait for a name forever.
 */
static void unname_old(struct vm_guest_modes *modes, int64_t before)
{
	for (guint i = 0; i < modes->cpus->len; i++) {
		struct cpu_state *cpu = &g_array_index(modes->cpus, struct cpu_state, i);
		guint old = 0;

		if (!cpu->before_switch) {
			continue;
		}
		while (old < cpu->before_switch->len &&
				g_array_index(cpu->before_switch, struct run, old).exit_ns < before) {
			old++;
		}
		if (old == 0) {
			continue;
		}
		append_runs(modes, -1, thread_runs(modes, -1),
			(const struct run *) cpu->before_switch->data, old);
		g_array_remove_range(cpu->before_switch, 0, old);
	}
}

static gint compare_int64(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

void vm_guest_modes_take_closed(struct vm_guest_modes *modes, int64_t unnamed_before,
		vm_guest_mode_sink sink, void *data)
{
	unname_old(modes, unnamed_before);
	/* As vm_guest_modes_drain() gives them: by increasing tid. */
	g_array_sort(modes->pending, compare_int64);
	for (guint i = 0; i < modes->pending->len; i++) {
		int64_t tid = g_array_index(modes->pending, int64_t, i);
		GArray *runs = vm_int64_table_lookup(modes->threads, tid);

		/* The CPUs keep pointing at the array: it is emptied, not freed. */
		drain_thread(modes, tid, runs, sink, data);
		g_array_set_size(runs, 0);
	}

	g_array_set_size(modes->pending, 0);
}

int64_t vm_guest_modes_pending_since(const struct vm_guest_modes *modes)
{
	int64_t since = INT64_MAX;
	guint i;

	for (i = 0; i < modes->cpus->len; i++) {
		const struct cpu_state *cpu = &g_array_index(modes->cpus, struct cpu_state, i);

		if (cpu->open && cpu->entry_ns < since) {
			since = cpu->entry_ns;
		}

		if (cpu->before_switch && cpu->before_switch->len > 0) {
			int64_t first = g_array_index(cpu->before_switch, struct run, 0).entry_ns;

			since = first < since ? first : since;
		}
	}

	return since;
}
