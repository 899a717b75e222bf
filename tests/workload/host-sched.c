#include "host-sched.h"

#include "emit.h"
#include "steal-record.h"
#include "vcpu.h"

#define WAKE_FORMAT "comm=\"%s\" tid=%d prio=%d target_cpu=%d"

static wl_host_cpu *cpu_at(wl_sim *sim, int id)
{
	return g_ptr_array_index(sim->cpus, id);
}

bool wl_host_cpu_is_idle(const wl_host_cpu *cpu)
{
	return cpu->current->kind == HOST_IDLE && g_queue_is_empty((GQueue *)&cpu->runq);
}

/* An idle CPU, looking from the thread's last one; else its last one. */
static wl_host_cpu *wake_target(wl_sim *sim, const wl_host_thread *thread)
{
	guint count = sim->cpus->len;

	if (thread->pinned_cpu >= 0)
		return cpu_at(sim, thread->pinned_cpu);

	for (guint i = 0; i < count; i++) {
		wl_host_cpu *cpu = cpu_at(sim, (int)((thread->cpu + i) % count));

		if (wl_host_cpu_is_idle(cpu))
			return cpu;
	}
	return cpu_at(sim, thread->cpu);
}

void wl_host_wake(wl_sim *sim, wl_host_thread *thread)
{
	g_assert(thread->state == RUN_BLOCKED);
	wl_host_cpu *cpu = wake_target(sim, thread);
	bool was_idle = wl_host_cpu_is_idle(cpu);

	wl_host_emit(sim, cpu->id, "sched_waking", WAKE_FORMAT, thread->comm, thread->tid,
		     KERNEL_PRIO, cpu->id);
	wl_host_emit(sim, cpu->id, "sched_wakeup", WAKE_FORMAT, thread->comm, thread->tid,
		     KERNEL_PRIO, cpu->id);
	thread->state = RUN_RUNNABLE;
	thread->cpu = cpu->id;
	thread->wake_ns = NEVER;
	g_queue_push_tail(&cpu->runq, thread);

	uint64_t resched = NEVER;

	if (was_idle)
		resched = sim->now + wl_rng_range(&sim->rng, 1000, 5000);
	else if (thread->pinned_cpu >= 0 || wl_rng_chance(&sim->rng, 350))
		/* wake-up preemption: the woken thread gets the CPU soon */
		resched = sim->now + wl_rng_range(&sim->rng, 500, 3000);
	cpu->resched_ns = MIN(cpu->resched_ns, resched);
}

static uint64_t ordinary_burst_ns(wl_sim *sim, const wl_host_thread *thread)
{
	/* --host-hogs: busy most of the time (one draw either way, so that
	 * runs without hogs draw what they always did) */
	if (thread->hog)
		return wl_rng_range(&sim->rng, 2000000, 20000000);
	return wl_rng_range(&sim->rng, 15000, 900000);
}

/* How long an ordinary thread sleeps after a burst. */
static uint64_t ordinary_sleep_ns(wl_sim *sim, const wl_host_thread *thread)
{
	if (thread->hog)
		return wl_rng_range(&sim->rng, 20000, 300000);
	return wl_rng_range(&sim->rng, 20000, 4000000);
}

void wl_host_switch(wl_sim *sim, wl_host_cpu *cpu, int64_t prev_state)
{
	wl_host_thread *prev = cpu->current;
	wl_host_thread *next = g_queue_pop_head(&cpu->runq);

	if (!next)
		next = cpu->idle;
	bool recorded = wl_emit_host_switch(sim, cpu->id, prev, prev_state, next);

	if (prev->kind != HOST_IDLE) {
		prev->state = prev_state == PREV_RUNNABLE ? RUN_RUNNABLE : RUN_BLOCKED;
		if (prev->state == RUN_RUNNABLE)
			g_queue_push_tail(&cpu->runq, prev);
	}
	next->state = RUN_RUNNING;
	next->cpu = cpu->id;
	cpu->current = next;
	wl_steal_cpu_switched(sim, cpu, recorded);
	cpu->switched = true;
	cpu->resched_ns = NEVER;
	cpu->slice_end_ns = sim->now + wl_rng_range(&sim->rng, 1000000, 4000000);
	cpu->burst_end_ns = sim->now + ordinary_burst_ns(sim, next);
	if (prev->kind == HOST_VCPU)
		wl_vcpu_switched_out(sim, prev->vcpu, prev_state);
	if (next->kind == HOST_VCPU)
		wl_vcpu_switched_in(sim, next->vcpu);
}

uint64_t wl_host_cpu_resched_ns(const wl_host_cpu *cpu)
{
	if (g_queue_is_empty((GQueue *)&cpu->runq))
		return NEVER;
	if (cpu->current->kind == HOST_IDLE)
		return cpu->resched_ns == NEVER ? 0 : cpu->resched_ns;
	return MIN(cpu->resched_ns, cpu->slice_end_ns);
}

uint64_t wl_host_cpu_next_ns(wl_sim *sim, wl_host_cpu *cpu)
{
	switch (cpu->current->kind) {
	case HOST_IDLE:
		return wl_host_cpu_resched_ns(cpu);
	case HOST_ORDINARY:
		return MIN(wl_host_cpu_resched_ns(cpu), cpu->burst_end_ns);
	case HOST_VCPU:
		break;
	}
	return wl_vcpu_next_ns(sim, cpu->current->vcpu, cpu);
}

/* An ordinary thread used its burst: it sleeps, yields or goes on. */
static void ordinary_burst_end(wl_sim *sim, wl_host_cpu *cpu)
{
	wl_host_thread *thread = cpu->current;

	if (wl_rng_chance(&sim->rng, 650)) {
		thread->wake_ns = sim->now + ordinary_sleep_ns(sim, thread);
		wl_host_switch(sim, cpu, PREV_SLEEPING);
	} else if (!g_queue_is_empty(&cpu->runq)) {
		wl_host_switch(sim, cpu, PREV_RUNNABLE);
	} else {
		cpu->burst_end_ns = sim->now + ordinary_burst_ns(sim, thread);
	}
}

void wl_host_cpu_step(wl_sim *sim, wl_host_cpu *cpu)
{
	switch (cpu->current->kind) {
	case HOST_IDLE:
		wl_host_switch(sim, cpu, PREV_RUNNABLE);
		return;
	case HOST_ORDINARY:
		if (wl_host_cpu_resched_ns(cpu) <= sim->now)
			wl_host_switch(sim, cpu, PREV_RUNNABLE);
		else
			ordinary_burst_end(sim, cpu);
		return;
	case HOST_VCPU:
		break;
	}
	wl_vcpu_step(sim, cpu->current->vcpu, cpu);
}
