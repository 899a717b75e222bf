#include "guest-setup.h"

#include "containers.h"
#include "guest-irq.h"
#include "guest-sched.h"
#include "guest-syscall.h"
#include "guest-work.h"
#include "host-setup.h"
#include "kvm-layout.h"
#include "steal-record.h"

#define NS_PER_S UINT64_C(1000000000)
/* Mixed into --seed for the guest clocks' own RNGs. */
#define SLEW_SEED UINT64_C(0x736c657720636c6b)

static const char *const guest_comms[] = {
	"nginx", "postgres", "bash", "python3", "cron", "rsyslogd", "java", "redis-server",
	"sshd", "node", "kworker/0:1", "systemd-udevd",
};

static void free_guest_thread(gpointer data)
{
	wl_guest_thread *thread = data;

	wl_truth_track_clear(&thread->track);
	g_free(thread);
}

static void free_vcpu(gpointer data)
{
	wl_vcpu *vcpu = data;

	g_queue_clear(&vcpu->runq);
	g_queue_clear(&vcpu->pending_wakes);
	g_queue_clear_full(&vcpu->irqs, wl_girq_free);
	g_free(vcpu->irq);
	wl_truth_track_clear(&vcpu->track);
	wl_steal_track_clear(&vcpu->steal);
	g_free(vcpu);
}

void wl_guest_free(gpointer data)
{
	wl_guest *guest = data;

	wl_stub_clear(&guest->stub);
	wl_clock_slew_clear(&guest->clock);
	g_ptr_array_unref(guest->vcpus);
	g_ptr_array_unref(guest->threads);
	if (guest->pidns)
		g_ptr_array_unref(guest->pidns);
	g_queue_clear_full(&guest->work, wl_work_free);
	g_free(guest);
}

/* Guest i: offset (-1)^(i+1) * O * (i+1)/2, drift (-1)^i * D * (i+2)/3. */
static void set_guest_clock(wl_sim *sim, wl_guest *guest)
{
	int i = guest->index;
	int64_t offset_sign = i % 2 ? 1 : -1;

	guest->clock.origin_ns = sim->start_ns;
	guest->clock.offset_ns = offset_sign * sim->opt.guest_offset_ns * (i + 1) / 2;
	guest->clock.drift_ppb = -offset_sign * sim->opt.drift_ppm * 1000 * (i + 2) / 3;
	/* Seeded apart from the run's RNG: slewing changes only guest
	 * readings, never what happens in true time. */
	if (sim->opt.slew_ppm > 0)
		wl_clock_slew_start(&guest->clock, sim->opt.seed ^ ((uint64_t)i << 48) ^ SLEW_SEED,
				    sim->opt.slew_ppm * 1000, sim->opt.slew_min_ns,
				    sim->opt.slew_max_ns);
}

static void add_guest_threads(wl_sim *sim, wl_guest *guest)
{
	guest->next_tid = 300 + (int)wl_rng_range(&sim->rng, 0, 200);
	for (int k = 0; k < sim->opt.threads; k++) {
		wl_guest_thread *thread = g_new0(wl_guest_thread, 1);

		thread->tid = guest->next_tid;
		guest->next_tid += (int)wl_rng_range(&sim->rng, 1, 40);
		thread->pid = thread->tid;
		thread->ppid = 1;
		thread->wake_ns = NEVER;
		thread->syscall = -1;
		g_strlcpy(thread->comm,
			  k < sim->opt.unnamed_threads ? "" :
			  guest_comms[k % G_N_ELEMENTS(guest_comms)],
			  sizeof(thread->comm));
		wl_truth_track_init(&thread->track);
		g_ptr_array_add(guest->threads, thread);
	}
	guest->live_threads = sim->opt.threads;
	guest->max_threads = 2 * sim->opt.threads;
	guest->max_forks = 8 * sim->opt.threads;
}

static void add_vcpus(wl_sim *sim, wl_guest *guest)
{
	for (int v = 0; v < sim->opt.vcpus; v++) {
		wl_vcpu *vcpu = g_new0(wl_vcpu, 1);
		char comm[COMM_SIZE];

		vcpu->guest = guest;
		vcpu->id = v;
		g_snprintf(comm, sizeof(comm), "CPU %d/KVM", v);
		vcpu->thread = wl_host_add_thread(sim, HOST_VCPU, guest->qemu_main->pid, comm);
		vcpu->thread->ppid = 1;
		vcpu->thread->vcpu = vcpu;
		vcpu->reason = -1;
		vcpu->exit_ns = NEVER;
		vcpu->hyp_end_ns = NEVER;
		vcpu->burst_end_ns = NEVER;
		g_queue_init(&vcpu->runq);
		g_queue_init(&vcpu->pending_wakes);
		g_queue_init(&vcpu->irqs);
		vcpu->tick_ns = NEVER;
		wl_truth_track_init(&vcpu->track);
		wl_steal_track_init(&vcpu->steal);
		g_ptr_array_add(guest->vcpus, vcpu);
	}
}

static bool open_guest_stub(wl_sim *sim, wl_guest *guest)
{
	uint64_t reading = wl_clock_read(&guest->clock, sim->start_ns);
	/* LTTng's offset is the guest's boot time: cycles count its uptime. */
	uint64_t uptime = wl_rng_range(&sim->rng, 100 * NS_PER_S, 900 * NS_PER_S);
	const char *const *defs[4] = { NULL };
	int n = 0;

	if (sim->opt.rich_guests) {
		defs[n++] = wl_girq_event_defs;
		defs[n++] = wl_syscall_event_defs;
	}
	/* the fork's vtids (containers.h), only then: other stubs unchanged */
	if (sim->opt.containers > 0)
		defs[n++] = wl_containers_fork_def;

	wl_stub_header header = {
		.hostname = guest->name, .clock_uuid = guest->clock_uuid,
		.clock_offset_ns = reading - uptime, .cpus = sim->opt.vcpus,
		.event_defs = n ? defs : NULL,
		.pid_ns_context = sim->opt.pid_ns_context,
	};
	char *path = g_strdup_printf("%s/%s.stub", sim->opt.out_dir, guest->name);

	wl_layout_header(&sim->opt, &header);
	bool ok = wl_stub_open(&guest->stub, path, &header);

	g_free(path);
	return ok;
}

bool wl_guest_setup(wl_sim *sim, int index)
{
	wl_guest *guest = g_new0(wl_guest, 1);

	guest->index = index;
	g_snprintf(guest->name, sizeof(guest->name), "guest%d", index);
	wl_rng_uuid(&sim->rng, guest->clock_uuid, sizeof(guest->clock_uuid));
	guest->vm_uid = wl_rng_next(&sim->rng);
	guest->vmsync_cnt = (uint32_t)wl_rng_range(&sim->rng, 0, 1000) * 2;
	guest->kvm_entries_left = sim->opt.guest_kvm_entries;
	guest->vcpus = g_ptr_array_new_with_free_func(free_vcpu);
	guest->threads = g_ptr_array_new_with_free_func(free_guest_thread);
	g_queue_init(&guest->work);
	g_ptr_array_add(sim->guests, guest);
	set_guest_clock(sim, guest);
	guest->qemu_main = wl_host_add_thread(sim, HOST_ORDINARY, 0, "qemu-system-x86");
	guest->qemu_main->qemu_guest = guest;
	add_vcpus(sim, guest);
	add_guest_threads(sim, guest);
	wl_containers_setup(sim, guest);
	return open_guest_stub(sim, guest);
}

static void place_vcpu(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_guest *guest = vcpu->guest;

	if (vcpu->id < (int)guest->threads->len) {
		vcpu->current = g_ptr_array_index(guest->threads, vcpu->id);
		vcpu->current->state = GT_ON_CPU;
		vcpu->current->vcpu = vcpu->id;
	}
	vcpu->burst_left_ns = wl_guest_burst_ns(sim, vcpu->current);
	if (sim->opt.rich_guests) {
		/* HZ of 250 to 1000; vCPUs tick out of phase */
		vcpu->tick_period_ns = guest->tick_period_ns;
		vcpu->tick_ns = sim->now + wl_rng_range(&sim->rng, 0, vcpu->tick_period_ns);
		vcpu->syscall_left_ns = wl_rng_range(&sim->rng, 1000, 200000);
	}
	if (vcpu->thread->state == RUN_RUNNING) {
		/* entered guest mode before the trace started */
		vcpu->mode = MODE_GUEST;
		vcpu->exit_ns = sim->now + wl_rng_range(&sim->rng, 1000, 100000);
		wl_guest_entered(sim, vcpu);
	} else {
		vcpu->mode = MODE_PREEMPTED;
	}
}

/* The guest threads not current anywhere: half queued, half asleep. */
static void place_guest_threads(wl_sim *sim, wl_guest *guest)
{
	for (guint k = guest->vcpus->len; k < guest->threads->len; k++) {
		wl_guest_thread *thread = g_ptr_array_index(guest->threads, k);
		wl_vcpu *vcpu = g_ptr_array_index(guest->vcpus, k % guest->vcpus->len);

		thread->vcpu = vcpu->id;
		if (k % 2) {
			thread->state = GT_RUNNABLE;
			g_queue_push_tail(&vcpu->runq, thread);
		} else {
			thread->state = GT_BLOCKED;
			thread->wake_ns = sim->now + wl_rng_range(&sim->rng, 0, 3000000);
		}
	}
}

void wl_guest_place(wl_sim *sim, wl_guest *guest)
{
	if (sim->opt.rich_guests)
		guest->tick_period_ns = wl_rng_range(&sim->rng, 1000000, 4000000);
	for (guint v = 0; v < guest->vcpus->len; v++)
		place_vcpu(sim, g_ptr_array_index(guest->vcpus, v));
	place_guest_threads(sim, guest);
}
