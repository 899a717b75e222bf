#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "util/time-span.h"
#include "writers/text-containers.h"
#include "writers/text-steal.h"
#include "writers/text-table.h"
#include "writers/text-units.h"

/* The state columns, in the order of enum vm_container_state. */
static const char *const state_headers[VM_CONTAINER_STATES] = {
	"running", "hypervisor", "preempted", "vcpu-blocked", "runnable", "blocked",
	"unknown",
};

/* A `preempted` interval of a thread in a container. */
struct preempted_span {
	int64_t begin_ns;
	int64_t end_ns;
	const char *container;    /* in the `names` set */
};

struct vm_text_containers {
	/* struct vm_container_total with owned strings, in arrival order
	 * (the sink gives them sorted by machine, then inode number). */
	GPtrArray *rows;
	/* "machine\ntid" -> GArray of struct preempted_span */
	GHashTable *preempted;
	/* Steal rows of guest threads: struct vm_steal_interval, owned strings. */
	GPtrArray *steals;
	/* Container names, each stored once. */
	GHashTable *names;
};

static void row_free(gpointer p)
{
	struct vm_container_total *row = p;

	g_free((char *) row->machine);
	g_free((char *) row->container);
	g_free(row);
}

static void steal_free(gpointer p)
{
	struct vm_steal_interval *iv = p;

	g_free((char *) iv->machine);
	g_free((char *) iv->culprit_kind);
	g_free((char *) iv->culprit_machine);
	g_free((char *) iv->culprit_comm);
	g_free(iv);
}

static void spans_free(gpointer p)
{
	g_array_unref(p);
}

struct vm_text_containers *vm_text_containers_new(void)
{
	struct vm_text_containers *c = g_new0(struct vm_text_containers, 1);

	c->rows = g_ptr_array_new_with_free_func(row_free);
	c->preempted = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, spans_free);
	c->steals = g_ptr_array_new_with_free_func(steal_free);
	c->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return c;
}

void vm_text_containers_free(struct vm_text_containers *c)
{
	if (!c) {
		return;
	}
	g_ptr_array_unref(c->rows);
	g_hash_table_destroy(c->preempted);
	g_ptr_array_unref(c->steals);
	g_hash_table_destroy(c->names);
	g_free(c);
}

void vm_text_containers_add_total(struct vm_text_containers *c,
		const struct vm_container_total *row)
{
	struct vm_container_total *copy = g_memdup2(row, sizeof(*row));

	copy->machine = g_strdup(row->machine ? row->machine : "");
	copy->container = g_strdup(row->container ? row->container : "");
	g_ptr_array_add(c->rows, copy);
}

static char *thread_key(const char *machine, int64_t tid)
{
	return g_strdup_printf("%s\n%" PRId64, machine ? machine : "", tid);
}

static const char *stored_name(struct vm_text_containers *c, const char *name)
{
	char *stored = g_hash_table_lookup(c->names, name);

	if (!stored) {
		stored = g_strdup(name);
		g_hash_table_add(c->names, stored);
	}
	return stored;
}

void vm_text_containers_add_thread(struct vm_text_containers *c,
		const struct vm_thread_interval *iv)
{
	struct preempted_span span;
	char *key;
	GArray *spans;

	if (!iv->container || !iv->state || strcmp(iv->state, "preempted") != 0 ||
			iv->end_ns <= iv->begin_ns) {
		return;
	}
	span.begin_ns = iv->begin_ns;
	span.end_ns = iv->end_ns;
	span.container = stored_name(c, iv->container);
	key = thread_key(iv->machine, iv->tid);
	spans = g_hash_table_lookup(c->preempted, key);
	if (!spans) {
		spans = g_array_new(FALSE, FALSE, sizeof(struct preempted_span));
		g_hash_table_insert(c->preempted, key, spans);
	} else {
		g_free(key);
	}
	g_array_append_val(spans, span);
}

void vm_text_containers_add_steal(struct vm_text_containers *c,
		const struct vm_steal_interval *iv)
{
	struct vm_steal_interval *copy;

	if (iv->tid <= 0 || iv->end_ns <= iv->begin_ns) {
		return;
	}
	copy = g_memdup2(iv, sizeof(*iv));
	copy->machine = g_strdup(iv->machine ? iv->machine : "");
	copy->comm = NULL;
	copy->culprit_kind = g_strdup(iv->culprit_kind);
	copy->culprit_machine = g_strdup(iv->culprit_machine);
	copy->culprit_comm = g_strdup(iv->culprit_comm);
	g_ptr_array_add(c->steals, copy);
}

static gint compare_spans(gconstpointer a, gconstpointer b)
{
	const struct preempted_span *x = a, *y = b;

	return (x->begin_ns > y->begin_ns) - (x->begin_ns < y->begin_ns);
}

/* Each thread's spans in time order (they never overlap: they tile time). */
static void sort_spans(struct vm_text_containers *c)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, c->preempted);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		g_array_sort(value, compare_spans);
	}
}

/* The first span that ends after `ns` (binary search). */
static guint first_span_after(GArray *spans, int64_t ns)
{
	guint low = 0, high = spans->len;

	while (low < high) {
		guint mid = low + (high - low) / 2;

		if (g_array_index(spans, struct preempted_span, mid).end_ns <= ns) {
			low = mid + 1;
		} else {
			high = mid;
		}
	}
	return low;
}

/* The part of a steal row in each container span of its victim, by culprit. */
static void attribute_steal(struct vm_text_containers *c, struct vm_text_steal *by_container,
		const struct vm_steal_interval *iv)
{
	char *key = thread_key(iv->machine, iv->tid);
	GArray *spans = g_hash_table_lookup(c->preempted, key);

	g_free(key);
	if (!spans) {
		return;
	}
	for (guint i = first_span_after(spans, iv->begin_ns); i < spans->len; i++) {
		const struct preempted_span *span =
			&g_array_index(spans, struct preempted_span, i);
		struct vm_steal_interval part = *iv;
		char *victim;

		if (span->begin_ns >= iv->end_ns) {
			break;
		}
		part.begin_ns = MAX(iv->begin_ns, span->begin_ns);
		part.end_ns = MIN(iv->end_ns, span->end_ns);
		victim = g_strdup_printf("%s/%s", iv->machine, span->container);
		part.machine = victim;
		vm_text_steal_add(by_container, &part);
		g_free(victim);
	}
}

bool vm_text_containers_any(const struct vm_text_containers *c)
{
	return c->rows->len > 0;
}

static int64_t row_total(const struct vm_container_total *row)
{
	int64_t total = 0;

	for (int i = 0; i < VM_CONTAINER_STATES; i++) {
		total = vm_time_sum(total, row->ns[i]);
	}
	return total;
}

/* As in the threads table: "-" for a state never entered. */
static void add_share_cells(struct vm_text_table *t, int64_t ns, int64_t total_ns)
{
	char buf[VM_TEXT_UNITS_BUF];

	if (ns == 0) {
		vm_text_table_add(t, "-");
		vm_text_table_add(t, "-");
		return;
	}
	vm_text_duration(ns, buf);
	vm_text_table_add(t, buf);
	vm_text_percent(ns, total_ns, buf);
	vm_text_table_add(t, buf);
}

static void add_header(struct vm_text_table *t, int n_states)
{
	vm_text_table_begin_row(t);
	vm_text_table_add(t, "machine");
	vm_text_table_add(t, "container");
	vm_text_table_add(t, "ns_inum");
	vm_text_table_add(t, "threads");
	for (int i = 0; i < n_states; i++) {
		vm_text_table_add(t, state_headers[i]);
		vm_text_table_add(t, "%");
	}
	vm_text_table_add(t, "total");
}

static void add_row(struct vm_text_table *t, const struct vm_container_total *row,
		int n_states)
{
	char buf[VM_TEXT_UNITS_BUF];
	int64_t total = row_total(row);

	vm_text_table_begin_row(t);
	vm_text_table_add(t, row->machine);
	vm_text_table_add(t, row->container);
	vm_text_table_addf(t, "%" PRId64, row->ns_inum);
	vm_text_table_addf(t, "%" PRId64, row->threads);
	for (int i = 0; i < n_states; i++) {
		add_share_cells(t, row->ns[i], total);
	}
	vm_text_duration(total, buf);
	vm_text_table_add(t, buf);
}

static char *alignments(int n_states)
{
	GString *a = g_string_new("llrr");

	for (int i = 0; i < n_states; i++) {
		g_string_append(a, "rr");
	}
	g_string_append_c(a, 'r');
	return g_string_free(a, FALSE);
}

/* Who stole the containers' time: only when some of it was stolen. */
static void print_culprits(struct vm_text_containers *c, FILE *out)
{
	struct vm_text_steal *by_container = vm_text_steal_new();

	sort_spans(c);
	for (guint i = 0; i < c->steals->len; i++) {
		attribute_steal(c, by_container, g_ptr_array_index(c->steals, i));
	}
	if (vm_text_steal_any(by_container)) {
		fputc('\n', out);
		vm_text_steal_print_as(by_container, out, "Container steal by culprit "
			"(who ran on the host CPU while a container's thread was "
			"preempted; % of the container's steal)", "container");
	}
	vm_text_steal_free(by_container);
}

void vm_text_containers_print(struct vm_text_containers *c, FILE *out,
		bool with_unknown)
{
	int n_states;
	char *align;
	struct vm_text_table *t;

	for (guint i = 0; i < c->rows->len; i++) {
		const struct vm_container_total *row = g_ptr_array_index(c->rows, i);

		with_unknown |= row->ns[VM_CONTAINER_UNKNOWN] > 0;
	}
	/* `unknown` is last: left out, as in the threads table, without losses. */
	n_states = with_unknown ? VM_CONTAINER_STATES : VM_CONTAINER_STATES - 1;
	align = alignments(n_states);
	t = vm_text_table_new(align);

	fputs("Containers: time of their threads in each state (% of the "
		"container's time; steal is `preempted`)\n", out);
	if (c->rows->len == 0) {
		fputs("  (none)\n", out);
	} else {
		add_header(t, n_states);
		for (guint i = 0; i < c->rows->len; i++) {
			add_row(t, g_ptr_array_index(c->rows, i), n_states);
		}
		vm_text_table_print(t, out);
	}
	vm_text_table_free(t);
	g_free(align);
	print_culprits(c, out);
}
