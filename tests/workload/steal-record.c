#include "steal-record.h"

void wl_steal_track_init(wl_steal_track *track)
{
	track->waits = g_array_new(FALSE, FALSE, sizeof(wl_steal_wait));
	track->lost_migrations = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	track->is_open = false;
}

void wl_steal_track_clear(wl_steal_track *track)
{
	if (track->waits)
		g_array_unref(track->waits);
	if (track->lost_migrations)
		g_array_unref(track->lost_migrations);
	track->waits = track->lost_migrations = NULL;
	track->is_open = false;
}

static void add_current(wl_host_cpu *cpu, uint64_t when, bool recorded)
{
	wl_cpu_current entry = { when, cpu->current, recorded };

	g_array_append_val(cpu->history, entry);
}

void wl_steal_start(wl_sim *sim)
{
	/* What each CPU runs before its first sched_switch: the analysis
	 * learns it from that switch's prev_tid (SPEC.md, filter.vm.state). */
	for (guint i = 0; i < sim->cpus->len; i++)
		add_current(g_ptr_array_index(sim->cpus, i), sim->start_ns, false);
}

void wl_steal_cpu_switched(wl_sim *sim, wl_host_cpu *cpu, bool recorded)
{
	add_current(cpu, sim->last_event_ns, recorded);
}

static void close_wait(wl_steal_track *track, uint64_t end)
{
	if (!track->is_open)
		return;
	track->is_open = false;
	/* Every event has its own nanosecond: a wait is never empty. */
	g_assert(end > track->open.begin_ns);
	track->open.end_ns = end;
	g_array_append_val(track->waits, track->open);
}

void wl_steal_vcpu_update(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_steal_track *track = &vcpu->steal;
	/* Steal is what the truth's vcpus.csv calls preempted: a known mode. */
	bool waiting = vcpu->known && vcpu->mode == MODE_PREEMPTED;
	wl_steal_wait wanted = {
		.begin_ns = sim->last_event_ns, .victim = vcpu->current, .pcpu = vcpu->thread->cpu,
	};

	if (waiting && track->is_open && track->open.victim == wanted.victim &&
	    track->open.pcpu == wanted.pcpu)
		return;
	close_wait(track, sim->last_event_ns);
	if (waiting) {
		track->open = wanted;
		track->is_open = true;
	}
}

void wl_steal_migrated(wl_sim *sim, wl_host_thread *thread, bool recorded)
{
	if (thread->kind != HOST_VCPU)
		return;
	wl_steal_vcpu_update(sim, thread->vcpu);
	if (!recorded) {
		uint64_t when = sim->last_event_ns;

		g_array_append_val(thread->vcpu->steal.lost_migrations, when);
	}
}

void wl_steal_finish(wl_sim *sim, uint64_t end)
{
	for (guint g = 0; g < sim->guests->len; g++) {
		wl_guest *guest = g_ptr_array_index(sim->guests, g);

		for (guint v = 0; v < guest->vcpus->len; v++)
			close_wait(&((wl_vcpu *)g_ptr_array_index(guest->vcpus, v))->steal, end);
	}
}
