#include "host-migrate.h"

#include <math.h>

#include "emit.h"
#include "host-sched.h"
#include "steal-record.h"

/* Keeps the migrations' draws apart from the simulation's and the losses'. */
#define MIGRATE_SEED_SALT UINT64_C(0x6d696772617465)
#define NS_PER_S 1e9

const char *const wl_migrate_event_defs[] = {
	"sched_migrate_task comm:string tid:s32 prio:s32 orig_cpu:u32 dest_cpu:u32",
	NULL,
};

/* Time to the next migration: exponential, mean 1 / rate. */
static uint64_t draw_interval(wl_sim *sim)
{
	double u = (double)(wl_rng_next(&sim->migrate_rng) >> 11) / 9007199254740992.0;

	return (uint64_t)(-log1p(-u) / sim->opt.migrate_rate * NS_PER_S) + 1;
}

void wl_migrate_init(wl_sim *sim)
{
	sim->next_migrate_ns = NEVER;
	if (sim->opt.migrate_rate <= 0 || sim->opt.host_cpus < 2)
		return;
	wl_rng_seed(&sim->migrate_rng, sim->opt.seed ^ MIGRATE_SEED_SALT);
	sim->next_migrate_ns = sim->start_ns + draw_interval(sim);
}

/* A waiting thread that may move: queued, not bound to its CPU. */
static wl_host_thread *pick_waiting(wl_sim *sim)
{
	GPtrArray *candidates = g_ptr_array_new();
	wl_host_thread *picked = NULL;

	for (guint i = 0; i < sim->host_threads->len; i++) {
		wl_host_thread *thread = g_ptr_array_index(sim->host_threads, i);

		if (thread->state == RUN_RUNNABLE && thread->pinned_cpu < 0)
			g_ptr_array_add(candidates, thread);
	}
	if (candidates->len > 0)
		picked = g_ptr_array_index(
			candidates, wl_rng_range(&sim->migrate_rng, 0, candidates->len - 1));
	g_ptr_array_unref(candidates);
	return picked;
}

static void migrate(wl_sim *sim, wl_host_thread *thread)
{
	int orig = thread->cpu;
	/* any other CPU, uniformly */
	int dest = (orig + 1 + (int)wl_rng_range(&sim->migrate_rng, 0, sim->cpus->len - 2)) %
		   (int)sim->cpus->len;
	wl_host_cpu *from = g_ptr_array_index(sim->cpus, orig);
	wl_host_cpu *to = g_ptr_array_index(sim->cpus, dest);
	bool was_idle = wl_host_cpu_is_idle(to);

	gboolean queued = g_queue_remove(&from->runq, thread);

	g_assert(queued);
	/* The balancer runs on the CPU that pulls the thread: its stream has
	 * the event. */
	bool recorded = wl_host_emit(sim, dest, "sched_migrate_task",
				     "comm=\"%s\" tid=%d prio=%d orig_cpu=%d dest_cpu=%d",
				     thread->comm, thread->tid, KERNEL_PRIO, orig, dest);

	thread->cpu = dest;
	g_queue_push_tail(&to->runq, thread);
	if (was_idle)
		to->resched_ns = MIN(to->resched_ns,
				     sim->now + wl_rng_range(&sim->migrate_rng, 1000, 5000));
	wl_steal_migrated(sim, thread, recorded);
}

void wl_migrate_step(wl_sim *sim)
{
	wl_host_thread *thread = pick_waiting(sim);

	if (thread)
		migrate(sim, thread);
	sim->next_migrate_ns += draw_interval(sim);
}
