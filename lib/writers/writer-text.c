/*
 * Text format (the default): a summary, not a timeline; every table, or
 * the one of `what`. Intervals are folded into per-thread and per-vCPU
 * time totals and exit statistics into per (machine, vCPU, reason) totals
 * as they come; the tables are printed at finish, sorted so that the same
 * input always gives the same output.
 */

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "util/time-span.h"
#include "writers/text-containers.h"
#include "writers/text-steal.h"
#include "writers/text-table.h"
#include "writers/text-units.h"
#include "writers/writer-private.h"

/* Exit reasons listed, by decreasing total time. */
#define TOP_EXIT_REASONS 20

#define MAX_KINDS 7

/*
 * `unknown` last: its column is shown only when the input lost events (or
 * some thread has unknown time), so that the table of an input without
 * losses stays as it always was.
 */
static const char *const thread_states[] = {
	"running", "hypervisor", "preempted", "vcpu-blocked", "runnable", "blocked",
	"unknown",
};

static const char *const vcpu_modes[] = {
	"guest", "hypervisor", "preempted", "blocked",
};

G_STATIC_ASSERT(G_N_ELEMENTS(thread_states) <= MAX_KINDS);
G_STATIC_ASSERT(G_N_ELEMENTS(vcpu_modes) <= MAX_KINDS);

/* A thread (id = tid) or a vCPU (id = vCPU number) of a machine. */
struct summary_key {
	char *machine;
	int64_t id;
};

/* Time of one thread or vCPU in each state or mode. A state outside the
 * known list still counts in the total, so percentages stay honest. */
struct time_summary {
	struct summary_key key;   /* first: the hash table's key */
	char *comm;               /* threads: the latest name seen */
	int64_t comm_begin_ns;    /* begin of the interval that gave it */
	char *container;          /* threads: that of the latest interval, or NULL */
	int64_t container_begin_ns; /* begin of that interval */
	int64_t ns[MAX_KINDS];
	int64_t total_ns;
};

struct exit_key {
	char *machine;
	int64_t vcpu;
	int64_t reason;
	int isa;
};

struct exit_summary {
	struct exit_key key;      /* first: the hash table's key */
	uint64_t count;
	int64_t total_ns;
	int64_t min_ns;
	int64_t max_ns;
};

struct text_writer {
	struct vm_writer base;
	GHashTable *threads;      /* struct time_summary, by (machine, tid) */
	GHashTable *vcpus;        /* struct time_summary, by (machine, vcpu) */
	GHashTable *exits;        /* struct exit_summary, by exit_key */
	GPtrArray *losses;        /* struct vm_machine_losses (machine owned) */
	struct vm_text_steal *steal;
	struct vm_text_containers *containers;
	/* some thread was in a container: the threads table shows them */
	bool any_container;
	/* some thread was `unknown`, or some loss was reported */
	bool show_unknown;
};

static guint summary_key_hash(gconstpointer p)
{
	const struct summary_key *k = p;

	return g_str_hash(k->machine) * 31 + g_int64_hash(&k->id);
}

static gboolean summary_key_equal(gconstpointer a, gconstpointer b)
{
	const struct summary_key *x = a, *y = b;

	return x->id == y->id && strcmp(x->machine, y->machine) == 0;
}

static guint exit_key_hash(gconstpointer p)
{
	const struct exit_key *k = p;

	return (g_str_hash(k->machine) * 31 + g_int64_hash(&k->vcpu)) * 31 +
		g_int64_hash(&k->reason) + (guint) k->isa;
}

static gboolean exit_key_equal(gconstpointer a, gconstpointer b)
{
	const struct exit_key *x = a, *y = b;

	return x->vcpu == y->vcpu && x->reason == y->reason &&
		x->isa == y->isa && strcmp(x->machine, y->machine) == 0;
}

static void time_summary_free(gpointer p)
{
	struct time_summary *s = p;

	g_free(s->key.machine);
	g_free(s->comm);
	g_free(s->container);
	g_free(s);
}

static void exit_summary_free(gpointer p)
{
	struct exit_summary *s = p;

	g_free(s->key.machine);
	g_free(s);
}

static struct time_summary *time_summary_of(GHashTable *table,
		const char *machine, int64_t id)
{
	struct summary_key key = { (char *) (machine ? machine : ""), id };
	struct time_summary *s = g_hash_table_lookup(table, &key);

	if (s) {
		return s;
	}
	s = g_new0(struct time_summary, 1);
	s->key.machine = g_strdup(key.machine);
	s->key.id = id;
	s->comm_begin_ns = INT64_MIN;
	s->container_begin_ns = INT64_MIN;
	g_hash_table_add(table, s);
	return s;
}

static int kind_index(const char *const *kinds, size_t n_kinds, const char *name)
{
	for (size_t i = 0; i < n_kinds; i++) {
		if (name && strcmp(kinds[i], name) == 0) {
			return (int) i;
		}
	}
	return -1;
}

static void add_time(struct time_summary *s, const char *const *kinds,
		size_t n_kinds, const char *kind, int64_t duration_ns)
{
	int i = kind_index(kinds, n_kinds, kind);

	if (i >= 0) {
		s->ns[i] = vm_time_sum(s->ns[i], duration_ns);
	}
	s->total_ns = vm_time_sum(s->total_ns, duration_ns);
}

/* Intervals may come out of begin order; the name of the latest one wins,
 * whatever the order, as the thread's current name. */
static void update_comm(struct time_summary *s, const struct vm_thread_interval *iv)
{
	if (!iv->comm || !iv->comm[0] || iv->begin_ns < s->comm_begin_ns) {
		return;
	}
	g_free(s->comm);
	s->comm = g_strdup(iv->comm);
	s->comm_begin_ns = iv->begin_ns;
}

/* As the comm: the container of the latest interval, whatever the order. */
static void update_container(struct time_summary *s, const struct vm_thread_interval *iv)
{
	if (iv->begin_ns < s->container_begin_ns) {
		return;
	}
	g_free(s->container);
	s->container = g_strdup(iv->container);
	s->container_begin_ns = iv->begin_ns;
}

static void text_thread_interval(struct vm_writer *w, const struct vm_thread_interval *iv)
{
	struct text_writer *tw = (struct text_writer *) w;
	struct time_summary *s = time_summary_of(tw->threads, iv->machine, iv->tid);

	add_time(s, thread_states, G_N_ELEMENTS(thread_states), iv->state,
		vm_time_span(iv->end_ns, iv->begin_ns));
	update_comm(s, iv);
	update_container(s, iv);
	tw->any_container |= iv->container != NULL;
	vm_text_containers_add_thread(tw->containers, iv);
	if (iv->state && strcmp(iv->state, "unknown") == 0) {
		tw->show_unknown = true;
	}
}

static void text_vcpu_interval(struct vm_writer *w, const struct vm_vcpu_interval *iv)
{
	struct text_writer *tw = (struct text_writer *) w;
	struct time_summary *s = time_summary_of(tw->vcpus, iv->machine, iv->vcpu);

	add_time(s, vcpu_modes, G_N_ELEMENTS(vcpu_modes), iv->mode,
		vm_time_span(iv->end_ns, iv->begin_ns));
}

static void text_steal_interval(struct vm_writer *w, const struct vm_steal_interval *iv)
{
	struct text_writer *tw = (struct text_writer *) w;

	vm_text_steal_add(tw->steal, iv);
	vm_text_containers_add_steal(tw->containers, iv);
}

static void text_container_total(struct vm_writer *w, const struct vm_container_total *row)
{
	vm_text_containers_add_total(((struct text_writer *) w)->containers, row);
}

/* A statistic given twice for the same exit (one per input chunk, say) is
 * merged, not listed twice. */
static void text_exit_stat(struct vm_writer *w, const struct vm_exit_stat *st)
{
	struct text_writer *tw = (struct text_writer *) w;
	struct exit_key key = {
		(char *) (st->machine ? st->machine : ""), st->vcpu, st->reason,
		st->isa == 2 ? 2 : 1,
	};
	struct exit_summary *s = g_hash_table_lookup(tw->exits, &key);

	if (!s) {
		s = g_new0(struct exit_summary, 1);
		s->key = key;
		s->key.machine = g_strdup(key.machine);
		s->min_ns = st->min_ns;
		s->max_ns = st->max_ns;
		g_hash_table_add(tw->exits, s);
	}
	s->count += st->count;
	s->total_ns = vm_time_sum(s->total_ns, st->total_ns);
	s->min_ns = MIN(s->min_ns, st->min_ns);
	s->max_ns = MAX(s->max_ns, st->max_ns);
}

static GPtrArray *sorted_values(GHashTable *table, GCompareFunc compare)
{
	GPtrArray *values = g_ptr_array_sized_new(g_hash_table_size(table));
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, table);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		g_ptr_array_add(values, value);
	}
	g_ptr_array_sort(values, compare);
	return values;
}

static int compare_int64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* g_ptr_array_sort passes pointers to the elements. */
static int compare_by_machine_then_id(gconstpointer a, gconstpointer b)
{
	const struct summary_key *x = *(const struct summary_key *const *) a;
	const struct summary_key *y = *(const struct summary_key *const *) b;
	int by_machine = strcmp(x->machine, y->machine);

	return by_machine ? by_machine : compare_int64(x->id, y->id);
}

static int compare_by_total_time(gconstpointer a, gconstpointer b)
{
	const struct exit_summary *x = *(const struct exit_summary *const *) a;
	const struct exit_summary *y = *(const struct exit_summary *const *) b;
	int by_total = compare_int64(y->total_ns, x->total_ns);
	int by_machine = strcmp(x->key.machine, y->key.machine);

	if (by_total) {
		return by_total;
	}
	if (by_machine) {
		return by_machine;
	}
	if (x->key.vcpu != y->key.vcpu) {
		return compare_int64(x->key.vcpu, y->key.vcpu);
	}
	if (x->key.reason != y->key.reason) {
		return compare_int64(x->key.reason, y->key.reason);
	}
	return x->key.isa - y->key.isa;
}

static void add_duration_cell(struct vm_text_table *t, int64_t ns)
{
	char buf[VM_TEXT_UNITS_BUF];

	vm_text_duration(ns, buf);
	vm_text_table_add(t, buf);
}

/* A state never entered shows "-" rather than a column of zeros. */
static void add_share_cells(struct vm_text_table *t, int64_t ns, int64_t total_ns)
{
	char buf[VM_TEXT_UNITS_BUF];

	if (ns == 0) {
		vm_text_table_add(t, "-");
		vm_text_table_add(t, "-");
		return;
	}
	add_duration_cell(t, ns);
	vm_text_percent(ns, total_ns, buf);
	vm_text_table_add(t, buf);
}

/* What differs between the threads and the vCPU tables. */
struct time_table_layout {
	const char *title;
	const char *id_header;
	bool with_comm;
	bool with_container;    /* a `container` column after the comm */
	const char *const *kinds;
	size_t n_kinds;
};

static char *time_table_alignments(const struct time_table_layout *layout)
{
	GString *a = g_string_new(layout->with_comm ? "lrl" : "lr");

	if (layout->with_container) {
		g_string_append_c(a, 'l');
	}
	for (size_t i = 0; i < layout->n_kinds; i++) {
		g_string_append(a, "rr");
	}
	g_string_append_c(a, 'r');
	return g_string_free(a, FALSE);
}

static void add_time_header(struct vm_text_table *t,
		const struct time_table_layout *layout)
{
	vm_text_table_begin_row(t);
	vm_text_table_add(t, "machine");
	vm_text_table_add(t, layout->id_header);
	if (layout->with_comm) {
		vm_text_table_add(t, "comm");
	}
	if (layout->with_container) {
		vm_text_table_add(t, "container");
	}
	for (size_t i = 0; i < layout->n_kinds; i++) {
		vm_text_table_add(t, layout->kinds[i]);
		vm_text_table_add(t, "%");
	}
	vm_text_table_add(t, "total");
}

static void add_time_row(struct vm_text_table *t,
		const struct time_table_layout *layout, const struct time_summary *s)
{
	vm_text_table_begin_row(t);
	vm_text_table_add(t, s->key.machine);
	vm_text_table_addf(t, "%" PRId64, s->key.id);
	if (layout->with_comm) {
		vm_text_table_add(t, s->comm ? s->comm : "");
	}
	if (layout->with_container) {
		vm_text_table_add(t, s->container ? s->container : "");
	}
	for (size_t i = 0; i < layout->n_kinds; i++) {
		add_share_cells(t, s->ns[i], s->total_ns);
	}
	add_duration_cell(t, s->total_ns);
}

static void print_time_table(FILE *out, const struct time_table_layout *layout,
		GHashTable *summaries)
{
	GPtrArray *rows = sorted_values(summaries, compare_by_machine_then_id);
	char *alignments = time_table_alignments(layout);
	struct vm_text_table *t = vm_text_table_new(alignments);

	fprintf(out, "%s\n", layout->title);
	if (rows->len == 0) {
		fputs("  (none)\n", out);
	} else {
		add_time_header(t, layout);
		for (guint i = 0; i < rows->len; i++) {
			add_time_row(t, layout, g_ptr_array_index(rows, i));
		}
		vm_text_table_print(t, out);
	}
	vm_text_table_free(t);
	g_free(alignments);
	g_ptr_array_unref(rows);
}

static void add_exit_row(struct vm_text_table *t, const struct exit_summary *s)
{
	const char *name = vm_exit_reason_name(s->key.isa, s->key.reason);
	const struct vm_exit_stat as_stat = {
		.count = s->count, .total_ns = s->total_ns,
	};

	vm_text_table_begin_row(t);
	vm_text_table_add(t, s->key.machine);
	vm_text_table_addf(t, "%" PRId64, s->key.vcpu);
	vm_text_table_addf(t, "%" PRId64, s->key.reason);
	vm_text_table_add(t, name ? name : "-");
	vm_text_table_addf(t, "%" PRIu64, s->count);
	add_duration_cell(t, s->total_ns);
	add_duration_cell(t, vm_exit_stat_mean_ns(&as_stat));
	add_duration_cell(t, s->max_ns);
}

static const char *const exit_headers[] = {
	"machine", "vcpu", "reason", "name", "count", "total", "mean", "max",
};

static void print_exit_table(FILE *out, GHashTable *exits)
{
	GPtrArray *rows = sorted_values(exits, compare_by_total_time);
	struct vm_text_table *t = vm_text_table_new("lrrlrrrr");
	guint shown = MIN(rows->len, TOP_EXIT_REASONS);

	fprintf(out, "Top exit reasons by total time (%u of %u)\n", shown, rows->len);
	if (rows->len == 0) {
		fputs("  (none)\n", out);
	} else {
		vm_text_table_begin_row(t);
		for (size_t i = 0; i < G_N_ELEMENTS(exit_headers); i++) {
			vm_text_table_add(t, exit_headers[i]);
		}
		for (guint i = 0; i < shown; i++) {
			add_exit_row(t, g_ptr_array_index(rows, i));
		}
		vm_text_table_print(t, out);
	}
	vm_text_table_free(t);
	g_ptr_array_unref(rows);
}

static const struct time_table_layout threads_layout = {
	.title = "Guest threads: time in each state (% of the thread's time)",
	.id_header = "tid",
	.with_comm = true,
	.kinds = thread_states,
	.n_kinds = G_N_ELEMENTS(thread_states),
};

/* Without a host, each machine's own view: no thread is known as a guest's. */
static const struct time_table_layout own_view_threads_layout = {
	.title = "Threads: time in each state (% of the thread's time)",
	.id_header = "tid",
	.with_comm = true,
	.kinds = thread_states,
	.n_kinds = G_N_ELEMENTS(thread_states),
};

static const struct time_table_layout vcpus_layout = {
	.title = "vCPUs: time in each mode (% of the vCPU's time)",
	.id_header = "vcpu",
	.with_comm = false,
	.kinds = vcpu_modes,
	.n_kinds = G_N_ELEMENTS(vcpu_modes),
};

static void print_threads_table(struct text_writer *tw)
{
	struct time_table_layout layout = tw->base.no_host ? own_view_threads_layout :
		threads_layout;

	if (!tw->show_unknown) {
		layout.n_kinds--;
	}
	layout.with_container = tw->any_container;
	print_time_table(tw->base.out, &layout, tw->threads);
}

static void text_machine_losses(struct vm_writer *w, const struct vm_machine_losses *losses)
{
	struct text_writer *tw = (struct text_writer *) w;
	struct vm_machine_losses *copy = g_memdup2(losses, sizeof(*losses));

	copy->machine = g_strdup(losses->machine ? losses->machine : "");
	g_ptr_array_add(tw->losses, copy);
	tw->show_unknown = true;
}

static void machine_losses_free(gpointer p)
{
	struct vm_machine_losses *losses = p;

	g_free((char *) losses->machine);
	g_free(losses);
}

static int compare_losses(gconstpointer a, gconstpointer b)
{
	const struct vm_machine_losses *x = *(const struct vm_machine_losses *const *) a;
	const struct vm_machine_losses *y = *(const struct vm_machine_losses *const *) b;

	return strcmp(x->machine, y->machine);
}

/* A count, "unknown count" when no message gave one, "-" for none. */
static void add_lost_cell(struct vm_text_table *t, uint64_t count, bool uncounted)
{
	if (uncounted && count > 0) {
		vm_text_table_addf(t, "%" PRIu64 " + unknown count", count);
	} else if (uncounted) {
		vm_text_table_add(t, "unknown count");
	} else if (count > 0) {
		vm_text_table_addf(t, "%" PRIu64, count);
	} else {
		vm_text_table_add(t, "-");
	}
}

static const char *const loss_headers[] = {
	"machine", "events lost", "packets lost", "gaps", "time affected",
};

/* Printed only when something was lost: a loss-free input's text is as before. */
static void print_losses_table(FILE *out, GPtrArray *losses)
{
	struct vm_text_table *t = vm_text_table_new("lrrrr");

	g_ptr_array_sort(losses, compare_losses);
	fputs("Lost events (time affected: the sum of the gaps' durations over the "
		"machine's CPUs)\n", out);
	vm_text_table_begin_row(t);
	for (size_t i = 0; i < G_N_ELEMENTS(loss_headers); i++) {
		vm_text_table_add(t, loss_headers[i]);
	}
	for (guint i = 0; i < losses->len; i++) {
		const struct vm_machine_losses *l = g_ptr_array_index(losses, i);

		vm_text_table_begin_row(t);
		vm_text_table_add(t, l->machine);
		add_lost_cell(t, l->events, l->events_uncounted);
		add_lost_cell(t, l->packets, l->packets_uncounted);
		vm_text_table_addf(t, "%" PRIu64, l->gaps);
		add_duration_cell(t, l->affected_ns);
	}
	vm_text_table_print(t, out);
	vm_text_table_free(t);
}

/*
 * The tables of the summary, or the one of `what`, a blank line between;
 * then the losses, if any, whatever `what` (they qualify every table).
 */
static void text_finish(struct vm_writer *w)
{
	struct text_writer *tw = (struct text_writer *) w;

	if (w->every_kind || w->what == VM_WRITER_THREADS) {
		print_threads_table(tw);
	}
	if (w->every_kind) {
		fputc('\n', w->out);
	}
	if (w->every_kind || w->what == VM_WRITER_VCPUS) {
		print_time_table(w->out, &vcpus_layout, tw->vcpus);
	}
	if (w->every_kind) {
		fputc('\n', w->out);
	}
	if (w->every_kind || w->what == VM_WRITER_EXITS) {
		print_exit_table(w->out, tw->exits);
	}
	/* In the summary only when some vCPU was preempted: a table of nothing says nothing. */
	if (w->every_kind && vm_text_steal_any(tw->steal)) {
		fputc('\n', w->out);
	}
	if ((w->every_kind && vm_text_steal_any(tw->steal)) || w->what == VM_WRITER_STEAL) {
		vm_text_steal_print(tw->steal, w->out);
	}
	/* In the summary only when the guests ran containers. */
	if (w->every_kind && vm_text_containers_any(tw->containers)) {
		fputc('\n', w->out);
	}
	if ((w->every_kind && vm_text_containers_any(tw->containers)) ||
			w->what == VM_WRITER_CONTAINERS) {
		vm_text_containers_print(tw->containers, w->out, tw->show_unknown);
	}
	if (tw->losses->len > 0) {
		fputc('\n', w->out);
		print_losses_table(w->out, tw->losses);
	}
}

static void text_destroy(struct vm_writer *w)
{
	struct text_writer *tw = (struct text_writer *) w;

	g_hash_table_destroy(tw->threads);
	g_hash_table_destroy(tw->vcpus);
	g_hash_table_destroy(tw->exits);
	g_ptr_array_unref(tw->losses);
	vm_text_steal_free(tw->steal);
	vm_text_containers_free(tw->containers);
	g_free(tw);
}

static const struct vm_writer_ops text_ops = {
	.thread_interval = text_thread_interval,
	.vcpu_interval = text_vcpu_interval,
	.exit_stat = text_exit_stat,
	.steal_interval = text_steal_interval,
	.container_total = text_container_total,
	.machine_losses = text_machine_losses,
	.finish = text_finish,
	.destroy = text_destroy,
};

struct vm_writer *vm_writer_text_new(enum vm_writer_what what, FILE *out)
{
	struct text_writer *tw = g_new0(struct text_writer, 1);

	vm_writer_init_base(&tw->base, &text_ops, what, out);
	tw->threads = g_hash_table_new_full(summary_key_hash, summary_key_equal,
		NULL, time_summary_free);
	tw->vcpus = g_hash_table_new_full(summary_key_hash, summary_key_equal,
		NULL, time_summary_free);
	tw->exits = g_hash_table_new_full(exit_key_hash, exit_key_equal,
		NULL, exit_summary_free);
	tw->losses = g_ptr_array_new_with_free_func(machine_losses_free);
	tw->steal = vm_text_steal_new();
	tw->containers = vm_text_containers_new();
	return &tw->base;
}

struct vm_writer *vm_writer_text_summary_new(FILE *out)
{
	struct vm_writer *w = vm_writer_text_new(VM_WRITER_THREADS, out);

	w->every_kind = true;
	return w;
}
