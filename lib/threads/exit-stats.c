#include <glib.h>
#include <string.h>

#include "util/time-span.h"
#include "threads/exit-stats.h"

struct exit_stat_entry {
	char *vm;
	struct vm_exit_stat stat;
};

struct vm_threads_exit_stats {
	/* struct exit_stat_entry (its own key: vm, vcpu, reason) -> itself */
	GHashTable *entries;
};

/* Keyed by the entry itself, so that a lookup builds no string. */
static guint entry_hash(gconstpointer data)
{
	const struct exit_stat_entry *e = data;
	guint h = g_str_hash(e->stat.machine);

	h = h * 31u + (guint) e->stat.vcpu;
	h = h * 31u + (guint) ((uint64_t) e->stat.vcpu >> 32);
	h = h * 31u + (guint) e->stat.reason;
	return h * 31u + (guint) ((uint64_t) e->stat.reason >> 32);
}

static gboolean entry_equal(gconstpointer a, gconstpointer b)
{
	const struct exit_stat_entry *ea = a;
	const struct exit_stat_entry *eb = b;

	return ea->stat.vcpu == eb->stat.vcpu && ea->stat.reason == eb->stat.reason &&
		strcmp(ea->stat.machine, eb->stat.machine) == 0;
}

static void entry_destroy(gpointer data)
{
	struct exit_stat_entry *entry = data;

	g_free(entry->vm);
	g_free(entry);
}

struct vm_threads_exit_stats *vm_threads_exit_stats_create(void)
{
	struct vm_threads_exit_stats *stats = g_new0(struct vm_threads_exit_stats, 1);

	stats->entries = g_hash_table_new_full(entry_hash, entry_equal, entry_destroy,
		NULL);
	return stats;
}

void vm_threads_exit_stats_destroy(struct vm_threads_exit_stats *stats)
{
	if (!stats) {
		return;
	}
	g_hash_table_destroy(stats->entries);
	g_free(stats);
}

static struct exit_stat_entry *entry_get(struct vm_threads_exit_stats *stats,
		const char *vm, int64_t vcpu, int64_t reason, int isa)
{
	struct exit_stat_entry key = {
		.stat = { .machine = vm, .vcpu = vcpu, .reason = reason },
	};
	struct exit_stat_entry *entry = g_hash_table_lookup(stats->entries, &key);

	if (entry) {
		return entry;
	}
	entry = g_new0(struct exit_stat_entry, 1);
	entry->vm = g_strdup(vm);
	entry->stat.machine = entry->vm;
	entry->stat.vcpu = vcpu;
	entry->stat.reason = reason;
	entry->stat.isa = isa;
	g_hash_table_add(stats->entries, entry);
	return entry;
}

void vm_threads_exit_stats_add(struct vm_threads_exit_stats *stats,
		const char *vm, int64_t vcpu, int64_t reason, int isa,
		int64_t duration_ns)
{
	struct vm_exit_stat *stat = &entry_get(stats, vm, vcpu, reason, isa)->stat;

	if (stat->count == 0 || duration_ns < stat->min_ns) {
		stat->min_ns = duration_ns;
	}
	if (stat->count == 0 || duration_ns > stat->max_ns) {
		stat->max_ns = duration_ns;
	}
	stat->count++;
	stat->total_ns = vm_time_sum(stat->total_ns, duration_ns);
}

static gint compare_entries(gconstpointer a, gconstpointer b)
{
	const struct vm_exit_stat *sa = &(*(struct exit_stat_entry *const *) a)->stat;
	const struct vm_exit_stat *sb = &(*(struct exit_stat_entry *const *) b)->stat;
	int by_vm = strcmp(sa->machine, sb->machine);

	if (by_vm != 0) {
		return by_vm;
	}
	if (sa->vcpu != sb->vcpu) {
		return sa->vcpu < sb->vcpu ? -1 : 1;
	}
	if (sa->reason != sb->reason) {
		return sa->reason < sb->reason ? -1 : 1;
	}
	return 0;
}

void vm_threads_exit_stats_foreach(struct vm_threads_exit_stats *stats,
		vm_threads_exit_stat_cb cb, void *data)
{
	GPtrArray *sorted = g_ptr_array_sized_new(g_hash_table_size(stats->entries));
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, stats->entries);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		g_ptr_array_add(sorted, value);
	}
	g_ptr_array_sort(sorted, compare_entries);
	for (guint i = 0; i < sorted->len; i++) {
		struct exit_stat_entry *entry = g_ptr_array_index(sorted, i);

		cb(&entry->stat, data);
	}
	g_ptr_array_unref(sorted);
}
