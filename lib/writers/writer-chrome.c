/*
 * Chrome trace-event JSON, as Perfetto UI and chrome://tracing open it.
 * Streamed: each record becomes an event at once; only the track names
 * already announced are kept (per thread / vCPU, not per interval).
 *
 * One process per machine (pid in order of appearance). Tracks (tid):
 * a guest thread uses its own tid; vCPU N uses VCPU_TRACK_BASE + N, above
 * any Linux tid (PID_MAX_LIMIT is 2^22), so the two never collide.
 *
 * The threads of a container (SPEC, Containers) have their tracks in a
 * process of their own, "machine/container", so that the viewer groups
 * them under it; their slices on a vCPU's track stay in the machine's.
 */

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "util/time-span.h"
#include "writers/json-output.h"
#include "writers/writer-private.h"

#define VCPU_TRACK_BASE (INT64_C(1) << 30)

struct chrome_machine {
	int64_t pid;
	/* track id -> name last announced for it */
	GHashTable *track_names;
	/* vCPU -> where its next exit bar starts (what=exits), in ns */
	GHashTable *exit_cursors;
	/* container name -> struct chrome_machine of its threads' tracks */
	GHashTable *containers;
	/* tid -> the struct chrome_machine of its latest track (not owned) */
	GHashTable *thread_processes;
};

struct chrome_writer {
	struct vm_writer base;
	GHashTable *machines;   /* name -> struct chrome_machine */
	int64_t next_pid;
	bool any_event;
	bool has_origin;
	int64_t origin_ns;      /* Unix time that ts 0 stands for */
};

#define NS_PER_DAY (INT64_C(86400) * 1000000000)

/*
 * Viewers parse ts into a double: at Unix-epoch scale (1.7e15 us) that
 * keeps a quarter of a microsecond, so back-to-back slices would overlap
 * and be dropped as badly nested. Times are therefore written relative to
 * an origin near the data, where a double keeps every nanosecond: the UTC
 * midnight a day before the first interval written (intervals are written
 * when they end, so later ones may begin earlier). Times already that close
 * to 0 keep 0. The origin is given in otherData.
 */
static int64_t trace_time(struct chrome_writer *cw, int64_t unix_ns)
{
	if (!cw->has_origin) {
		cw->has_origin = true;
		if (unix_ns >= 2 * NS_PER_DAY) {
			cw->origin_ns = (unix_ns / NS_PER_DAY - 1) * NS_PER_DAY;
		}
	}
	return vm_time_span(unix_ns, cw->origin_ns);
}

static int64_t *new_int64(int64_t value)
{
	int64_t *p = g_new(int64_t, 1);

	*p = value;
	return p;
}

static void chrome_machine_free(gpointer data)
{
	struct chrome_machine *m = data;

	g_hash_table_destroy(m->track_names);
	g_hash_table_destroy(m->exit_cursors);
	g_hash_table_destroy(m->thread_processes);
	g_hash_table_destroy(m->containers);
	g_free(m);
}

/* Events are separated by ",\n" so that each sits on a line of its own. */
static FILE *begin_event(struct chrome_writer *cw)
{
	fputs(cw->any_event ? ",\n" : "\n", cw->base.out);
	cw->any_event = true;
	return cw->base.out;
}

static void write_name_metadata(struct chrome_writer *cw, const char *kind,
		int64_t pid, int64_t tid, const char *name)
{
	FILE *out = begin_event(cw);

	fprintf(out, "{\"ph\":\"M\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
		",\"name\":\"%s\",\"args\":{\"name\":", pid, tid, kind);
	vm_json_write_string(out, name);
	fputs("}}", out);
}

/* A process of the trace, named `name`, inserted in `table` by `key`. */
static struct chrome_machine *new_process(struct chrome_writer *cw, GHashTable *table,
		const char *key, const char *name)
{
	struct chrome_machine *m = g_new0(struct chrome_machine, 1);

	m->pid = cw->next_pid++;
	m->track_names = g_hash_table_new_full(g_int64_hash, g_int64_equal,
		g_free, g_free);
	m->exit_cursors = g_hash_table_new_full(g_int64_hash, g_int64_equal,
		g_free, g_free);
	m->containers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		chrome_machine_free);
	m->thread_processes = g_hash_table_new_full(g_int64_hash, g_int64_equal,
		g_free, NULL);
	g_hash_table_insert(table, g_strdup(key), m);
	write_name_metadata(cw, "process_name", m->pid, 0, name);
	return m;
}

static struct chrome_machine *machine_of(struct chrome_writer *cw, const char *name)
{
	struct chrome_machine *m;

	if (!name) {
		name = "";
	}
	m = g_hash_table_lookup(cw->machines, name);
	return m ? m : new_process(cw, cw->machines, name, name);
}

/* The process of a thread's tracks: its container's, else its machine's. */
static struct chrome_machine *thread_process(struct chrome_writer *cw,
		struct chrome_machine *m, const char *machine, const char *container)
{
	struct chrome_machine *c;
	char *name;

	if (!container) {
		return m;
	}
	c = g_hash_table_lookup(m->containers, container);
	if (c) {
		return c;
	}
	name = g_strdup_printf("%s/%s", machine ? machine : "", container);
	c = new_process(cw, m->containers, container, name);
	g_free(name);
	return c;
}

/* Announces a track's name when it first appears, and again when it
 * changes (a thread's comm after exec). */
static void name_track(struct chrome_writer *cw, struct chrome_machine *m,
		int64_t tid, const char *name)
{
	const char *known = g_hash_table_lookup(m->track_names, &tid);

	if (known && g_strcmp0(known, name) == 0) {
		return;
	}
	g_hash_table_insert(m->track_names, new_int64(tid), g_strdup(name));
	write_name_metadata(cw, "thread_name", m->pid, tid, name);
}

static int64_t vcpu_track(struct chrome_writer *cw, struct chrome_machine *m,
		int64_t vcpu)
{
	int64_t tid = VCPU_TRACK_BASE + vcpu;
	char *name;

	/* A vCPU's name never changes: skip formatting it for every event. */
	if (g_hash_table_contains(m->track_names, &tid)) {
		return tid;
	}
	name = g_strdup_printf("vCPU %" PRId64, vcpu);
	name_track(cw, m, tid, name);
	g_free(name);
	return tid;
}

static char *thread_track_name(const struct vm_thread_interval *iv)
{
	if (!iv->comm || !iv->comm[0]) {
		return g_strdup_printf("thread %" PRId64, iv->tid);
	}
	return g_strdup_printf("%s (%" PRId64 ")", iv->comm, iv->tid);
}

static int64_t thread_track(struct chrome_writer *cw, struct chrome_machine *m,
		const struct vm_thread_interval *iv)
{
	char *name = thread_track_name(iv);

	name_track(cw, m, iv->tid, name);
	g_free(name);
	return iv->tid;
}

/* Microseconds with the nanoseconds as three decimals: exact, unlike a
 * double. */
static void write_us(FILE *out, int64_t ns)
{
	uint64_t magnitude = ns < 0 ? -(uint64_t) ns : (uint64_t) ns;

	fprintf(out, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "",
		magnitude / 1000, magnitude % 1000);
}

/* Opens a complete event (times already relative to the origin); the
 * caller writes its args members and closes it with close_complete_event(). */
static FILE *open_complete_event(struct chrome_writer *cw, int64_t pid,
		int64_t tid, const char *name, int64_t begin_ns, int64_t end_ns)
{
	FILE *out = begin_event(cw);

	fprintf(out, "{\"ph\":\"X\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":",
		pid, tid);
	write_us(out, begin_ns);
	fputs(",\"dur\":", out);
	write_us(out, vm_time_span(end_ns, begin_ns));
	fputs(",\"name\":", out);
	vm_json_write_string(out, name);
	fputs(",\"args\":{", out);
	return out;
}

static void close_complete_event(FILE *out)
{
	fputs("}}", out);
}

/* Members of args; `first` tells whether a comma is due. */
static void write_int_arg(FILE *out, bool *first, const char *key, int64_t value)
{
	fprintf(out, "%s\"%s\":%" PRId64, *first ? "" : ",", key, value);
	*first = false;
}

static void write_uint_arg(FILE *out, bool *first, const char *key, uint64_t value)
{
	fprintf(out, "%s\"%s\":%" PRIu64, *first ? "" : ",", key, value);
	*first = false;
}

static void write_string_arg(FILE *out, bool *first, const char *key, const char *value)
{
	fprintf(out, "%s\"%s\":", *first ? "" : ",", key);
	vm_json_write_string(out, value);
	*first = false;
}

/* reason and its name, only for intervals that have one. */
static void write_reason_args(FILE *out, bool *first, int isa, int64_t reason)
{
	const char *name;

	if (reason == -1) {
		return;
	}
	write_int_arg(out, first, "reason", reason);
	name = vm_exit_reason_name(isa, reason);
	if (name) {
		write_string_arg(out, first, "exit", name);
	}
}

/* On a vCPU, the interval also goes on the vCPU's track, named after the
 * thread, so that the vCPU reads like a CPU view. */
static void write_thread_on_vcpu_track(struct chrome_writer *cw,
		struct chrome_machine *m, const struct vm_thread_interval *iv)
{
	char *thread_name = thread_track_name(iv);
	FILE *out = open_complete_event(cw, m->pid, vcpu_track(cw, m, iv->vcpu),
		thread_name, trace_time(cw, iv->begin_ns), trace_time(cw, iv->end_ns));
	bool first = true;

	write_int_arg(out, &first, "tid", iv->tid);
	write_string_arg(out, &first, "state", iv->state);
	write_reason_args(out, &first, iv->isa, iv->reason);
	close_complete_event(out);
	g_free(thread_name);
}

static void chrome_thread_interval(struct vm_writer *w, const struct vm_thread_interval *iv)
{
	struct chrome_writer *cw = (struct chrome_writer *) w;
	struct chrome_machine *m = machine_of(cw, iv->machine);
	struct chrome_machine *p = thread_process(cw, m, iv->machine, iv->container);
	int64_t tid = thread_track(cw, p, iv);
	FILE *out;

	/* Its steal slices (what=steal has no container) go on the same track. */
	g_hash_table_insert(m->thread_processes, new_int64(iv->tid), p);
	bool first = true;

	if (!w->steal_with_threads || !iv->state || strcmp(iv->state, "preempted") != 0) {
		/* A preempted one comes as its steal rows, which name the culprits. */
		out = open_complete_event(cw, p->pid, tid, iv->state,
			trace_time(cw, iv->begin_ns), trace_time(cw, iv->end_ns));
		if (iv->vcpu != -1) {
			write_int_arg(out, &first, "vcpu", iv->vcpu);
		}
		write_reason_args(out, &first, iv->isa, iv->reason);
		close_complete_event(out);
	}
	if (iv->vcpu != -1) {
		write_thread_on_vcpu_track(cw, m, iv);
	}
}

static void chrome_vcpu_interval(struct vm_writer *w, const struct vm_vcpu_interval *iv)
{
	struct chrome_writer *cw = (struct chrome_writer *) w;
	struct chrome_machine *m = machine_of(cw, iv->machine);
	int64_t tid = vcpu_track(cw, m, iv->vcpu);
	FILE *out = open_complete_event(cw, m->pid, tid, iv->mode,
		trace_time(cw, iv->begin_ns), trace_time(cw, iv->end_ns));
	bool first = true;

	if (iv->host_tid != -1) {
		write_int_arg(out, &first, "host_tid", iv->host_tid);
	}
	if (iv->pcpu != -1) {
		write_int_arg(out, &first, "pcpu", iv->pcpu);
	}
	write_reason_args(out, &first, iv->isa, iv->reason);
	close_complete_event(out);
}

/* The culprit as a slice name: "guest2 vCPU 1", "guest2 QEMU", "bash (500)", ... */
static char *culprit_label(const struct vm_steal_interval *iv)
{
	const char *kind = iv->culprit_kind ? iv->culprit_kind : "unknown";

	if (strcmp(kind, "vcpu") == 0) {
		return g_strdup_printf("%s vCPU %" PRId64, iv->culprit_machine ?
			iv->culprit_machine : "", iv->culprit_vcpu);
	}
	if (strcmp(kind, "vmm") == 0) {
		return g_strdup_printf("%s QEMU (%" PRId64 ")", iv->culprit_machine ?
			iv->culprit_machine : "", iv->culprit_tid);
	}
	if (strcmp(kind, "host") == 0) {
		return g_strdup_printf("%s (%" PRId64 ")", iv->culprit_comm ?
			iv->culprit_comm : "", iv->culprit_tid);
	}
	return g_strdup(kind);
}

/* The culprit's members of a preempted slice's args (CSV's culprit_* columns). */
static void write_culprit_args(FILE *out, bool *first, const struct vm_steal_interval *iv)
{
	if (iv->pcpu != -1) {
		write_int_arg(out, first, "pcpu", iv->pcpu);
	}
	write_string_arg(out, first, "culprit_kind", iv->culprit_kind);
	if (iv->culprit_machine) {
		write_string_arg(out, first, "culprit_machine", iv->culprit_machine);
	}
	if (iv->culprit_vcpu != -1) {
		write_int_arg(out, first, "culprit_vcpu", iv->culprit_vcpu);
	}
	if (iv->culprit_tid != -1) {
		write_int_arg(out, first, "culprit_tid", iv->culprit_tid);
	}
	if (iv->culprit_comm) {
		write_string_arg(out, first, "culprit_comm", iv->culprit_comm);
	}
}

/*
 * A part of a preempted interval: on the victim vCPU's track, named after
 * the culprit, and on the victim thread's track (a guest thread), named
 * `preempted` as in what=threads; both carry the culprit in args.
 */
static void chrome_steal_interval(struct vm_writer *w, const struct vm_steal_interval *iv)
{
	struct chrome_writer *cw = (struct chrome_writer *) w;
	struct chrome_machine *m = machine_of(cw, iv->machine);
	char *label = culprit_label(iv);
	int64_t begin = trace_time(cw, iv->begin_ns), end = trace_time(cw, iv->end_ns);
	FILE *out = open_complete_event(cw, m->pid, vcpu_track(cw, m, iv->vcpu), label,
		begin, end);
	bool first = true;

	if (iv->tid != -1) {
		write_int_arg(out, &first, "tid", iv->tid);
	}
	write_culprit_args(out, &first, iv);
	close_complete_event(out);
	g_free(label);
	if (iv->tid > 0) {
		const struct vm_thread_interval as_thread = {
			.machine = iv->machine, .tid = iv->tid, .comm = iv->comm,
		};

		struct chrome_machine *p = g_hash_table_lookup(m->thread_processes, &iv->tid);

		if (!p) {
			p = m;
		}

		out = open_complete_event(cw, p->pid, thread_track(cw, p, &as_thread),
			"preempted", begin, end);
		first = true;
		write_int_arg(out, &first, "vcpu", iv->vcpu);
		write_culprit_args(out, &first, iv);
		close_complete_event(out);
	}
}

/* Start of the next exit bar on the vCPU's track, moved past this one. */
static int64_t take_exit_cursor(struct chrome_machine *m, int64_t vcpu,
		int64_t width_ns)
{
	int64_t *cursor = g_hash_table_lookup(m->exit_cursors, &vcpu);
	int64_t start;

	if (!cursor) {
		cursor = new_int64(0);
		g_hash_table_insert(m->exit_cursors, new_int64(vcpu), cursor);
	}
	start = *cursor;
	*cursor = vm_time_sum(*cursor, width_ns);
	return start;
}

/*
 * Exit statistics have no time of their own. Each becomes a bar on its
 * vCPU's track as wide as the total time spent in that exit reason, laid
 * end to end from 0: the track reads as a bar chart of where the vCPU's
 * exit time went, with the figures in args.
 */
static void chrome_exit_stat(struct vm_writer *w, const struct vm_exit_stat *st)
{
	struct chrome_writer *cw = (struct chrome_writer *) w;
	struct chrome_machine *m = machine_of(cw, st->machine);
	int64_t tid = vcpu_track(cw, m, st->vcpu);
	const char *name = vm_exit_reason_name(st->isa, st->reason);
	char *label = name ? g_strdup(name) : g_strdup_printf("%" PRId64, st->reason);
	int64_t start = take_exit_cursor(m, st->vcpu, st->total_ns);
	FILE *out = open_complete_event(cw, m->pid, tid, label, start,
		vm_time_sum(start, st->total_ns));
	bool first = true;

	write_int_arg(out, &first, "reason", st->reason);
	write_uint_arg(out, &first, "count", st->count);
	write_int_arg(out, &first, "total_ns", st->total_ns);
	write_int_arg(out, &first, "min_ns", st->min_ns);
	write_int_arg(out, &first, "max_ns", st->max_ns);
	write_int_arg(out, &first, "mean_ns", vm_exit_stat_mean_ns(st));
	close_complete_event(out);
	g_free(label);
}

/*
 * Container totals have no time either: as exit statistics, a bar per
 * state as wide as its total, end to end from 0, on a track of the
 * container's process named "totals" (tid 0, which no guest thread has).
 */
static void chrome_container_total(struct vm_writer *w, const struct vm_container_total *row)
{
	static const char *const states[VM_CONTAINER_STATES] = {
		"running", "hypervisor", "preempted", "vcpu-blocked", "runnable",
		"blocked", "unknown",
	};
	struct chrome_writer *cw = (struct chrome_writer *) w;
	struct chrome_machine *p = thread_process(cw, machine_of(cw, row->machine),
		row->machine, row->container ? row->container : "");
	int64_t start = 0;

	name_track(cw, p, 0, "totals");
	for (int i = 0; i < VM_CONTAINER_STATES; i++) {
		FILE *out;
		bool first = true;

		if (row->ns[i] == 0) {
			continue;
		}
		out = open_complete_event(cw, p->pid, 0, states[i], start,
			vm_time_sum(start, row->ns[i]));
		write_int_arg(out, &first, "ns_inum", row->ns_inum);
		write_int_arg(out, &first, "threads", row->threads);
		write_int_arg(out, &first, "total_ns", row->ns[i]);
		close_complete_event(out);
		start = vm_time_sum(start, row->ns[i]);
	}
}

/* The origin goes as a string: as a JSON number, JavaScript would round
 * it. */
static void chrome_finish(struct vm_writer *w)
{
	struct chrome_writer *cw = (struct chrome_writer *) w;

	fprintf(w->out, "\n],\"displayTimeUnit\":\"ns\","
		"\"otherData\":{\"ts_origin_unix_ns\":\"%" PRId64 "\"}}\n",
		cw->origin_ns);
}

static void chrome_destroy(struct vm_writer *w)
{
	struct chrome_writer *cw = (struct chrome_writer *) w;

	/*
	 * Destroyed without a finish: the graph failed mid-way (a damaged
	 * trace, say). The events so far are already out, so close the
	 * document: a viewer still opens what there is, rather than an
	 * unterminated array. (With `path`, the file is not committed anyway.)
	 */
	if (!w->finished) {
		chrome_finish(w);
	}
	g_hash_table_destroy(cw->machines);
	g_free(cw);
}

static const struct vm_writer_ops chrome_ops = {
	.thread_interval = chrome_thread_interval,
	.vcpu_interval = chrome_vcpu_interval,
	.exit_stat = chrome_exit_stat,
	.steal_interval = chrome_steal_interval,
	.container_total = chrome_container_total,
	.finish = chrome_finish,
	.destroy = chrome_destroy,
};

struct vm_writer *vm_writer_chrome_new(enum vm_writer_what what, FILE *out)
{
	struct chrome_writer *cw = g_new0(struct chrome_writer, 1);

	vm_writer_init_base(&cw->base, &chrome_ops, what, out);
	/* Preempted slices name their culprits: the steal rows come with threads. */
	cw->base.steal_with_threads = true;
	cw->machines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		chrome_machine_free);
	cw->next_pid = 1;
	fputs("{\"traceEvents\":[", out);
	return &cw->base;
}
