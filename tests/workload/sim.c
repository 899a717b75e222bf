#include "sim.h"

#include "guest-irq.h"
#include "guest-sched.h"
#include "host-migrate.h"
#include "host-sched.h"
#include "loss.h"
#include "tcp.h"
#include "steal-record.h"
#include "truth.h"
#include "vmsync.h"

/* How long the trace goes on quietly after the simulation stops, so the
 * last event is the host's, well after any guest event, whatever the
 * accuracy of a clock synchronization. */
#define QUIET_TAIL_NS 100000

typedef enum { NEXT_NONE, NEXT_CPU, NEXT_HOST_TIMER, NEXT_GUEST_TIMER, NEXT_TCP, NEXT_VMSYNC,
	       NEXT_GUEST_TICK, NEXT_MIGRATE } next_kind;

typedef struct next_step {
	next_kind kind;
	uint64_t when;
	gpointer what;
	wl_guest *guest;
} next_step;

static void consider(next_step *best, next_kind kind, uint64_t when, gpointer what,
		     wl_guest *guest)
{
	if (when < best->when)
		*best = (next_step){ kind, when, what, guest };
}

static void consider_guest_timers(wl_sim *sim, next_step *best)
{
	for (guint g = 0; g < sim->guests->len; g++) {
		wl_guest *guest = g_ptr_array_index(sim->guests, g);

		for (guint i = 0; i < guest->threads->len; i++) {
			wl_guest_thread *thread = g_ptr_array_index(guest->threads, i);

			if (thread->state == GT_BLOCKED)
				consider(best, NEXT_GUEST_TIMER, thread->wake_ns, thread, guest);
		}
		for (guint v = 0; v < guest->vcpus->len; v++) {
			wl_vcpu *vcpu = g_ptr_array_index(guest->vcpus, v);

			consider(best, NEXT_GUEST_TICK, vcpu->tick_ns, vcpu, guest);
		}
	}
}

static next_step earliest(wl_sim *sim)
{
	next_step best = { NEXT_NONE, NEVER, NULL, NULL };

	for (guint i = 0; i < sim->cpus->len; i++) {
		wl_host_cpu *cpu = g_ptr_array_index(sim->cpus, i);

		consider(&best, NEXT_CPU, wl_host_cpu_next_ns(sim, cpu), cpu, NULL);
	}
	for (guint i = 0; i < sim->host_threads->len; i++) {
		wl_host_thread *thread = g_ptr_array_index(sim->host_threads, i);

		if (thread->state == RUN_BLOCKED)
			consider(&best, NEXT_HOST_TIMER, thread->wake_ns, thread, NULL);
	}
	consider_guest_timers(sim, &best);
	consider(&best, NEXT_TCP, wl_tcp_next_ns(sim), NULL, NULL);

	wl_guest *vmsync_guest;
	uint64_t vmsync_ns = wl_vmsync_next_ns(sim, &vmsync_guest);

	consider(&best, NEXT_VMSYNC, vmsync_ns, NULL, vmsync_guest);
	consider(&best, NEXT_MIGRATE, sim->next_migrate_ns, NULL, NULL);
	return best;
}

static bool every_cpu_switched(const wl_sim *sim)
{
	for (guint i = 0; i < sim->cpus->len; i++)
		if (!((const wl_host_cpu *)g_ptr_array_index(sim->cpus, i))->switched)
			return false;
	return true;
}

static bool budget_used(const wl_sim *sim, uint64_t when)
{
	/* Events of a CPU that never switches cannot be given to a thread. */
	if (!every_cpu_switched(sim))
		return false;
	if (sim->opt.duration_ns && when >= sim->start_ns + sim->opt.duration_ns)
		return true;
	return sim->opt.events && sim->events >= sim->opt.events;
}

void wl_sim_run(wl_sim *sim)
{
	for (;;) {
		next_step step = earliest(sim);

		if (step.kind == NEXT_NONE || budget_used(sim, MAX(step.when, sim->now)))
			return;
		sim->now = MAX(sim->now, step.when);
		switch (step.kind) {
		case NEXT_CPU:
			wl_host_cpu_step(sim, step.what);
			break;
		case NEXT_HOST_TIMER:
			wl_host_wake(sim, step.what);
			break;
		case NEXT_GUEST_TIMER:
			wl_guest_timer(sim, step.guest, step.what);
			break;
		case NEXT_GUEST_TICK:
			wl_girq_tick(sim, step.what);
			break;
		case NEXT_TCP:
			wl_tcp_step(sim);
			break;
		case NEXT_VMSYNC:
			wl_vmsync_due(sim, step.guest);
			break;
		case NEXT_MIGRATE:
			wl_migrate_step(sim);
			break;
		case NEXT_NONE:
			return;
		}
	}
}

void wl_sim_finish(wl_sim *sim)
{
	sim->now += QUIET_TAIL_NS;
	wl_loss_finish(sim);
	wl_tcp_final_send(sim);

	uint64_t end = sim->last_event_ns;

	wl_steal_finish(sim, end);

	for (guint g = 0; g < sim->guests->len; g++) {
		wl_guest *guest = g_ptr_array_index(sim->guests, g);

		for (guint i = 0; i < guest->vcpus->len; i++)
			wl_truth_track_finish(&((wl_vcpu *)g_ptr_array_index(guest->vcpus, i))->track, end);
		for (guint i = 0; i < guest->threads->len; i++)
			wl_truth_track_finish(
				&((wl_guest_thread *)g_ptr_array_index(guest->threads, i))->track, end);
	}
}
