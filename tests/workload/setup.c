#include "setup.h"

#include <errno.h>
#include <string.h>

#include "emit.h"
#include "guest-sched.h"
#include "network.h"

#define NS_PER_S UINT64_C(1000000000)
/* Traces start some time in mid-2025. */
#define EPOCH_BASE_NS (UINT64_C(1750000000) * NS_PER_S)

static const char *const host_comms[] = {
	"systemd-journal", "sshd", "rcu_sched", "kworker/u16:1", "chronyd", "irqbalance",
	"containerd", "node_exporter", "bash", "rsyslogd", "libvirtd", "kswapd0",
};

static const char *const guest_comms[] = {
	"nginx", "postgres", "bash", "python3", "cron", "rsyslogd", "java", "redis-server",
	"sshd", "node", "kworker/0:1", "systemd-udevd",
};

static void random_uuid(wl_sim *sim, char *out, size_t size)
{
	uint64_t a = wl_rng_next(&sim->rng), b = wl_rng_next(&sim->rng);

	g_snprintf(out, size, "%08x-%04x-4%03x-%04x-%012" G_GINT64_MODIFIER "x",
		   (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
		   (unsigned)((b >> 48) & 0x3fff) | 0x8000, (guint64)(b & UINT64_C(0xffffffffffff)));
}

static wl_host_thread *add_host_thread(wl_sim *sim, wl_host_kind kind, int pid, const char *comm)
{
	wl_host_thread *thread = g_new0(wl_host_thread, 1);

	thread->tid = sim->next_host_tid;
	sim->next_host_tid += (int)wl_rng_range(&sim->rng, 1, 30);
	thread->pid = pid ? pid : thread->tid;
	thread->ppid = 1;
	thread->kind = kind;
	thread->state = RUN_BLOCKED;
	thread->wake_ns = NEVER;
	g_strlcpy(thread->comm, comm, sizeof(thread->comm));
	g_ptr_array_add(sim->host_threads, thread);
	return thread;
}

static void add_host_cpus(wl_sim *sim)
{
	for (int i = 0; i < sim->opt.host_cpus; i++) {
		wl_host_cpu *cpu = g_new0(wl_host_cpu, 1);

		cpu->id = i;
		cpu->idle = g_new0(wl_host_thread, 1);
		cpu->idle->kind = HOST_IDLE;
		cpu->idle->cpu = i;
		cpu->idle->wake_ns = NEVER;
		g_snprintf(cpu->idle->comm, sizeof(cpu->idle->comm), "swapper/%d", i);
		cpu->current = cpu->idle;
		cpu->resched_ns = NEVER;
		cpu->slice_end_ns = NEVER;
		cpu->burst_end_ns = NEVER;
		g_queue_init(&cpu->runq);
		g_ptr_array_add(sim->cpus, cpu);
	}
}

static void free_cpu(gpointer data)
{
	wl_host_cpu *cpu = data;

	g_queue_clear(&cpu->runq);
	g_free(cpu->idle);
	g_free(cpu);
}

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
	wl_truth_track_clear(&vcpu->track);
	g_free(vcpu);
}

static void free_guest(gpointer data)
{
	wl_guest *guest = data;

	wl_stub_clear(&guest->stub);
	g_ptr_array_unref(guest->vcpus);
	g_ptr_array_unref(guest->threads);
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
		g_strlcpy(thread->comm, guest_comms[k % G_N_ELEMENTS(guest_comms)],
			  sizeof(thread->comm));
		wl_truth_track_init(&thread->track);
		g_ptr_array_add(guest->threads, thread);
	}
	guest->max_threads = 2 * sim->opt.threads;
}

static void add_vcpus(wl_sim *sim, wl_guest *guest)
{
	for (int v = 0; v < sim->opt.vcpus; v++) {
		wl_vcpu *vcpu = g_new0(wl_vcpu, 1);
		char comm[COMM_SIZE];

		vcpu->guest = guest;
		vcpu->id = v;
		g_snprintf(comm, sizeof(comm), "CPU %d/KVM", v);
		vcpu->thread = add_host_thread(sim, HOST_VCPU, guest->qemu_main->pid, comm);
		vcpu->thread->ppid = 1;
		vcpu->thread->vcpu = vcpu;
		vcpu->reason = -1;
		vcpu->exit_ns = NEVER;
		vcpu->hyp_end_ns = NEVER;
		vcpu->burst_end_ns = NEVER;
		g_queue_init(&vcpu->runq);
		g_queue_init(&vcpu->pending_wakes);
		wl_truth_track_init(&vcpu->track);
		g_ptr_array_add(guest->vcpus, vcpu);
	}
}

static bool open_guest_stub(wl_sim *sim, wl_guest *guest)
{
	uint64_t reading = wl_clock_read(&guest->clock, sim->start_ns);
	/* LTTng's offset is the guest's boot time: cycles count its uptime. */
	uint64_t uptime = wl_rng_range(&sim->rng, 100 * NS_PER_S, 900 * NS_PER_S);
	wl_stub_header header = {
		.hostname = guest->name, .clock_uuid = guest->clock_uuid,
		.clock_offset_ns = reading - uptime, .cpus = sim->opt.vcpus,
	};
	char *path = g_strdup_printf("%s/%s.stub", sim->opt.out_dir, guest->name);
	bool ok = wl_stub_open(&guest->stub, path, &header);

	g_free(path);
	return ok;
}

static bool add_guest(wl_sim *sim, int index)
{
	wl_guest *guest = g_new0(wl_guest, 1);

	guest->index = index;
	g_snprintf(guest->name, sizeof(guest->name), "guest%d", index);
	random_uuid(sim, guest->clock_uuid, sizeof(guest->clock_uuid));
	guest->vm_uid = wl_rng_next(&sim->rng);
	guest->vmsync_cnt = (uint32_t)wl_rng_range(&sim->rng, 0, 1000) * 2;
	guest->vcpus = g_ptr_array_new_with_free_func(free_vcpu);
	guest->threads = g_ptr_array_new_with_free_func(free_guest_thread);
	g_queue_init(&guest->work);
	g_ptr_array_add(sim->guests, guest);
	set_guest_clock(sim, guest);
	guest->qemu_main = add_host_thread(sim, HOST_ORDINARY, 0, "qemu-system-x86");
	add_vcpus(sim, guest);
	add_guest_threads(sim, guest);
	return open_guest_stub(sim, guest);
}

/* Which host thread runs where at the start: vCPUs first, so that the
 * trace starts with guests running, then ordinary threads. */
static void place_host_threads(wl_sim *sim)
{
	guint next_cpu = 0;

	for (int kind = HOST_VCPU; kind >= HOST_ORDINARY; kind--) {
		for (guint i = 0; i < sim->host_threads->len; i++) {
			wl_host_thread *thread = g_ptr_array_index(sim->host_threads, i);

			if ((int)thread->kind != kind)
				continue;
			if (next_cpu < sim->cpus->len) {
				wl_host_cpu *cpu = g_ptr_array_index(sim->cpus, next_cpu);

				thread->state = RUN_RUNNING;
				thread->cpu = (int)next_cpu++;
				cpu->current = thread;
				cpu->slice_end_ns = sim->now + wl_rng_range(&sim->rng, 100000, 3000000);
				cpu->burst_end_ns = sim->now + wl_rng_range(&sim->rng, 10000, 500000);
			} else if (thread->kind == HOST_VCPU) {
				wl_host_cpu *cpu = g_ptr_array_index(sim->cpus, i % sim->cpus->len);

				thread->state = RUN_RUNNABLE;
				thread->cpu = cpu->id;
				g_queue_push_tail(&cpu->runq, thread);
			} else {
				thread->cpu = (int)(i % sim->cpus->len);
				thread->wake_ns = sim->now + wl_rng_range(&sim->rng, 0, 2000000);
			}
		}
	}
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

static void host_statedump(wl_sim *sim)
{
	for (guint i = 0; i < sim->host_threads->len; i++) {
		const wl_host_thread *t = g_ptr_array_index(sim->host_threads, i);
		int status = t->state == RUN_RUNNING ? 6 : t->state == RUN_RUNNABLE ? 2 : 5;

		wl_host_emit(sim, 0, "lttng_statedump_process_state",
			     "tid=%d vtid=%d pid=%d vpid=%d ppid=%d vppid=%d name=\"%s\" type=0 mode=0 submode=0 status=%d cpu=%d",
			     t->tid, t->tid, t->pid, t->pid, t->ppid, t->ppid, t->comm, status, t->cpu);
	}
}

static bool open_host_stub(wl_sim *sim)
{
	uint64_t uptime = wl_rng_range(&sim->rng, 1000 * NS_PER_S, 90000 * NS_PER_S);
	wl_stub_header header = {
		.hostname = "host", .clock_uuid = sim->host_clock_uuid,
		.clock_offset_ns = sim->start_ns - uptime, .cpus = sim->opt.host_cpus,
	};
	char *path = g_strdup_printf("%s/host.stub", sim->opt.out_dir);
	bool ok = wl_stub_open(&sim->host_stub, path, &header);

	g_free(path);
	return ok;
}

static bool make_out_dir(const char *dir)
{
	if (g_mkdir_with_parents(dir, 0755) == 0)
		return true;
	fprintf(stderr, "vm-workload: cannot create %s: %s\n", dir, strerror(errno));
	return false;
}

bool wl_setup(wl_sim *sim)
{
	wl_rng_seed(&sim->rng, sim->opt.seed);
	sim->start_ns = EPOCH_BASE_NS + wl_rng_range(&sim->rng, 0, 86400 * NS_PER_S);
	sim->now = sim->start_ns;
	sim->kvm_entry_name = sim->opt.kvm_x86_names ? "kvm_x86_entry" : "kvm_entry";
	sim->kvm_exit_name = sim->opt.kvm_x86_names ? "kvm_x86_exit" : "kvm_exit";
	sim->cpus = g_ptr_array_new_with_free_func(free_cpu);
	sim->host_threads = g_ptr_array_new_with_free_func(g_free);
	sim->guests = g_ptr_array_new_with_free_func(free_guest);
	sim->next_host_tid = 1000 + (int)wl_rng_range(&sim->rng, 0, 500);
	random_uuid(sim, sim->host_clock_uuid, sizeof(sim->host_clock_uuid));
	if (!make_out_dir(sim->opt.out_dir) || !open_host_stub(sim))
		return false;
	add_host_cpus(sim);
	for (int i = 0; i < 2 * sim->opt.host_cpus; i++)
		add_host_thread(sim, HOST_ORDINARY, 0, host_comms[i % G_N_ELEMENTS(host_comms)]);
	for (int g = 1; g <= sim->opt.guests; g++)
		if (!add_guest(sim, g))
			return false;
	place_host_threads(sim);
	for (guint g = 0; g < sim->guests->len; g++) {
		wl_guest *guest = g_ptr_array_index(sim->guests, g);

		for (guint v = 0; v < guest->vcpus->len; v++)
			place_vcpu(sim, g_ptr_array_index(guest->vcpus, v));
		place_guest_threads(sim, guest);
	}
	wl_network_init(sim);
	host_statedump(sim);
	return true;
}

void wl_teardown(wl_sim *sim)
{
	wl_network_clear(sim);
	if (sim->guests)
		g_ptr_array_unref(sim->guests);
	if (sim->host_threads)
		g_ptr_array_unref(sim->host_threads);
	if (sim->cpus)
		g_ptr_array_unref(sim->cpus);
	wl_stub_clear(&sim->host_stub);
	sim->guests = sim->host_threads = sim->cpus = NULL;
}
