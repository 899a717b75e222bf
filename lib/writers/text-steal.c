#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "util/time-span.h"
#include "writers/text-steal.h"
#include "writers/text-table.h"
#include "writers/text-units.h"

/* One culprit of one victim machine. */
struct culprit_total {
	char *machine;   /* the victim's */
	char *kind;      /* vm, host, idle, unknown */
	char *culprit;   /* the VM, "comm (tid)", "idle" or "unknown" */
	int64_t ns;
};

struct vm_text_steal {
	GHashTable *totals;    /* "machine\nkind\nculprit" -> struct culprit_total */
	GHashTable *machines;  /* machine -> int64_t total steal (owned) */
};

static void culprit_total_free(gpointer p)
{
	struct culprit_total *t = p;

	g_free(t->machine);
	g_free(t->kind);
	g_free(t->culprit);
	g_free(t);
}

struct vm_text_steal *vm_text_steal_new(void)
{
	struct vm_text_steal *s = g_new0(struct vm_text_steal, 1);

	s->totals = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		culprit_total_free);
	s->machines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	return s;
}

void vm_text_steal_free(struct vm_text_steal *s)
{
	if (!s) {
		return;
	}
	g_hash_table_destroy(s->totals);
	g_hash_table_destroy(s->machines);
	g_free(s);
}

/* The row a culprit counts in: a VM whichever of its threads ran. */
static void culprit_of(const struct vm_steal_interval *iv, const char **kind,
		char **culprit)
{
	const char *k = iv->culprit_kind ? iv->culprit_kind : "unknown";

	if ((strcmp(k, "vcpu") == 0 || strcmp(k, "vmm") == 0) && iv->culprit_machine) {
		*kind = "vm";
		*culprit = g_strdup(iv->culprit_machine);
	} else if (strcmp(k, "host") == 0) {
		*kind = "host";
		*culprit = g_strdup_printf("%s (%" PRId64 ")",
			iv->culprit_comm ? iv->culprit_comm : "", iv->culprit_tid);
	} else {
		*kind = strcmp(k, "idle") == 0 ? "idle" : "unknown";
		*culprit = g_strdup(*kind);
	}
}

void vm_text_steal_add(struct vm_text_steal *s, const struct vm_steal_interval *iv)
{
	const char *machine = iv->machine ? iv->machine : "";
	int64_t ns = vm_time_span(iv->end_ns, iv->begin_ns);
	const char *kind;
	char *culprit, *key;
	struct culprit_total *t;
	int64_t *machine_ns;

	culprit_of(iv, &kind, &culprit);
	key = g_strdup_printf("%s\n%s\n%s", machine, kind, culprit);
	t = g_hash_table_lookup(s->totals, key);
	if (!t) {
		t = g_new0(struct culprit_total, 1);
		t->machine = g_strdup(machine);
		t->kind = g_strdup(kind);
		t->culprit = culprit;
		g_hash_table_insert(s->totals, key, t);
	} else {
		g_free(culprit);
		g_free(key);
	}
	t->ns = vm_time_sum(t->ns, ns);
	machine_ns = g_hash_table_lookup(s->machines, machine);
	if (!machine_ns) {
		machine_ns = g_new0(int64_t, 1);
		g_hash_table_insert(s->machines, g_strdup(machine), machine_ns);
	}
	*machine_ns = vm_time_sum(*machine_ns, ns);
}

bool vm_text_steal_any(const struct vm_text_steal *s)
{
	return g_hash_table_size(s->totals) > 0;
}

/* By machine, then largest first, then by name: the same input, the same text. */
static gint compare_totals(gconstpointer a, gconstpointer b)
{
	const struct culprit_total *x = *(const struct culprit_total *const *) a;
	const struct culprit_total *y = *(const struct culprit_total *const *) b;
	int c = strcmp(x->machine, y->machine);

	if (c) {
		return c;
	}
	if (x->ns != y->ns) {
		return x->ns > y->ns ? -1 : 1;
	}
	c = strcmp(x->kind, y->kind);
	return c ? c : strcmp(x->culprit, y->culprit);
}

static const char *const headers[] = { "machine", "culprit", "kind", "time", "%" };

void vm_text_steal_print(const struct vm_text_steal *s, FILE *out)
{
	vm_text_steal_print_as(s, out, "Steal by culprit (who ran on the host CPU "
		"a preempted vCPU waited for; % of the machine's steal)", "machine");
}

void vm_text_steal_print_as(const struct vm_text_steal *s, FILE *out,
		const char *title, const char *victim_header)
{
	GPtrArray *rows = g_ptr_array_new();
	struct vm_text_table *t = vm_text_table_new("lllrr");
	char buf[VM_TEXT_UNITS_BUF];
	GHashTableIter iter;
	gpointer value;

	fprintf(out, "%s\n", title);
	g_hash_table_iter_init(&iter, s->totals);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		g_ptr_array_add(rows, value);
	}
	g_ptr_array_sort(rows, compare_totals);
	if (rows->len == 0) {
		fputs("  (none)\n", out);
	}
	vm_text_table_begin_row(t);
	vm_text_table_add(t, victim_header);
	for (size_t i = 1; i < G_N_ELEMENTS(headers); i++) {
		vm_text_table_add(t, headers[i]);
	}
	for (guint i = 0; i < rows->len; i++) {
		const struct culprit_total *row = g_ptr_array_index(rows, i);
		const int64_t *machine_ns = g_hash_table_lookup(s->machines, row->machine);

		vm_text_table_begin_row(t);
		vm_text_table_add(t, row->machine);
		vm_text_table_add(t, row->culprit);
		vm_text_table_add(t, row->kind);
		vm_text_duration(row->ns, buf);
		vm_text_table_add(t, buf);
		vm_text_percent(row->ns, machine_ns ? *machine_ns : 0, buf);
		vm_text_table_add(t, buf);
	}
	if (rows->len > 0) {
		vm_text_table_print(t, out);
	}
	vm_text_table_free(t);
	g_ptr_array_unref(rows);
}
