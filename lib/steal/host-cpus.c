#include <glib.h>

#include "steal/host-cpus.h"

struct cpu_entry {
	int64_t cpu;
	struct vm_steal_host_thread current;
};

/* Direct-mapped, by CPU number: every host sched_switch looks its CPU up. */
#define CPU_CACHE_SIZE 64

struct vm_steal_host_cpus {
	GHashTable *by_cpu;   /* cpu -> struct cpu_entry (owned) */
	struct cpu_entry *cache[CPU_CACHE_SIZE];
};

static const struct vm_steal_host_thread unknown_thread = { .tid = -1 };

struct vm_steal_host_cpus *vm_steal_host_cpus_create(void)
{
	struct vm_steal_host_cpus *cpus = g_new0(struct vm_steal_host_cpus, 1);

	cpus->by_cpu = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	return cpus;
}

void vm_steal_host_cpus_destroy(struct vm_steal_host_cpus *cpus)
{
	if (!cpus) {
		return;
	}
	g_hash_table_destroy(cpus->by_cpu);
	g_free(cpus);
}

static struct cpu_entry *cpu_find(struct vm_steal_host_cpus *cpus, int64_t cpu)
{
	struct cpu_entry **cached = &cpus->cache[(uint64_t) cpu % CPU_CACHE_SIZE];

	if (!*cached || (*cached)->cpu != cpu) {
		struct cpu_entry *entry = g_hash_table_lookup(cpus->by_cpu, &cpu);

		if (!entry) {
			return NULL;
		}
		*cached = entry;
	}
	return *cached;
}

static struct cpu_entry *cpu_get(struct vm_steal_host_cpus *cpus, int64_t cpu)
{
	struct cpu_entry *entry = cpu_find(cpus, cpu);

	if (entry) {
		return entry;
	}
	entry = g_new0(struct cpu_entry, 1);
	entry->cpu = cpu;
	entry->current = unknown_thread;
	g_hash_table_insert(cpus->by_cpu, &entry->cpu, entry);
	cpus->cache[(uint64_t) cpu % CPU_CACHE_SIZE] = entry;
	return entry;
}

void vm_steal_host_cpus_switch(struct vm_steal_host_cpus *cpus, int64_t cpu,
		int64_t tid, const char *comm)
{
	struct cpu_entry *entry = cpu_get(cpus, cpu);

	entry->current.tid = tid < 0 ? -1 : tid;
	g_strlcpy(entry->current.comm, comm ? comm : "", sizeof(entry->current.comm));
}

void vm_steal_host_cpus_lose(struct vm_steal_host_cpus *cpus, int64_t cpu)
{
	struct cpu_entry *entry = cpu_find(cpus, cpu);

	/* A CPU never switched is unknown already. */
	if (entry) {
		entry->current = unknown_thread;
	}
}

void vm_steal_host_cpus_lose_all(struct vm_steal_host_cpus *cpus)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, cpus->by_cpu);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		((struct cpu_entry *) value)->current = unknown_thread;
	}
}

const struct vm_steal_host_thread *vm_steal_host_cpus_current(
		struct vm_steal_host_cpus *cpus, int64_t cpu)
{
	struct cpu_entry *entry = cpu < 0 ? NULL : cpu_find(cpus, cpu);

	return entry ? &entry->current : &unknown_thread;
}
