#include "host-setup.h"

#include "emit.h"
#include "host-migrate.h"
#include "kvm-layout.h"
#include "steal-record.h"

#define NS_PER_S UINT64_C(1000000000)

static const char *const host_comms[] = {
	"systemd-journal", "sshd", "rcu_sched", "kworker/u16:1", "chronyd", "irqbalance",
	"containerd", "node_exporter", "bash", "rsyslogd", "libvirtd", "kswapd0",
};

wl_host_thread *wl_host_add_thread(wl_sim *sim, wl_host_kind kind, int pid, const char *comm)
{
	wl_host_thread *thread = g_new0(wl_host_thread, 1);

	thread->tid = sim->next_host_tid;
	sim->next_host_tid += (int)wl_rng_range(&sim->rng, 1, 30);
	thread->pid = pid ? pid : thread->tid;
	thread->ppid = 1;
	thread->kind = kind;
	thread->pinned_cpu = -1;
	thread->state = RUN_BLOCKED;
	thread->wake_ns = NEVER;
	g_strlcpy(thread->comm, comm, sizeof(thread->comm));
	g_ptr_array_add(sim->host_threads, thread);
	return thread;
}

/* ksoftirqd/N: softirq work woken right at the start on each CPU, so that
 * every CPU writes a sched_switch early (the analysis learns each CPU's
 * current thread from its first sched_switch). */
static void add_per_cpu_threads(wl_sim *sim)
{
	for (int i = 0; i < sim->opt.host_cpus; i++) {
		char comm[COMM_SIZE];

		g_snprintf(comm, sizeof(comm), "ksoftirqd/%d", i);
		wl_host_thread *thread = wl_host_add_thread(sim, HOST_ORDINARY, 0, comm);

		thread->ppid = 2;
		thread->pinned_cpu = i;
		thread->cpu = i;
		thread->wake_ns = sim->now + wl_rng_range(&sim->rng, 1000, 20000);
	}
}

static void add_host_cpus(wl_sim *sim)
{
	for (int i = 0; i < sim->opt.host_cpus; i++) {
		wl_host_cpu *cpu = g_new0(wl_host_cpu, 1);

		cpu->id = i;
		cpu->idle = g_new0(wl_host_thread, 1);
		cpu->idle->kind = HOST_IDLE;
		cpu->idle->cpu = i;
		cpu->idle->pinned_cpu = i;
		cpu->idle->wake_ns = NEVER;
		g_snprintf(cpu->idle->comm, sizeof(cpu->idle->comm), "swapper/%d", i);
		cpu->current = cpu->idle;
		cpu->resched_ns = NEVER;
		cpu->slice_end_ns = NEVER;
		cpu->burst_end_ns = NEVER;
		g_queue_init(&cpu->runq);
		cpu->history = g_array_new(FALSE, FALSE, sizeof(wl_cpu_current));
		g_ptr_array_add(sim->cpus, cpu);
	}
}

static void free_cpu(gpointer data)
{
	wl_host_cpu *cpu = data;

	g_queue_clear(&cpu->runq);
	g_array_unref(cpu->history);
	g_free(cpu->idle);
	g_free(cpu);
}

static bool open_host_stub(wl_sim *sim)
{
	uint64_t uptime = wl_rng_range(&sim->rng, 1000 * NS_PER_S, 90000 * NS_PER_S);
	wl_stub_header header = {
		.hostname = "host", .clock_uuid = sim->host_clock_uuid,
		.clock_offset_ns = sim->start_ns - uptime, .cpus = sim->opt.host_cpus,
	};
	const char *const *defs[] = { wl_migrate_event_defs, NULL };
	char *path = g_strdup_printf("%s/host.stub", sim->opt.out_dir);

	/* declared only when written: without migrations, the header of old */
	if (sim->opt.migrate_rate > 0)
		header.event_defs = defs;
	wl_layout_header(&sim->opt, &header);
	bool ok = wl_stub_open(&sim->host_stub, path, &header);

	g_free(path);
	return ok;
}

bool wl_host_setup(wl_sim *sim)
{
	sim->cpus = g_ptr_array_new_with_free_func(free_cpu);
	sim->host_threads = g_ptr_array_new_with_free_func(g_free);
	sim->next_host_tid = 1000 + (int)wl_rng_range(&sim->rng, 0, 500);
	wl_rng_uuid(&sim->rng, sim->host_clock_uuid, sizeof(sim->host_clock_uuid));
	if (!open_host_stub(sim))
		return false;
	add_host_cpus(sim);
	add_per_cpu_threads(sim);
	for (int i = 0; i < 2 * sim->opt.host_cpus; i++)
		wl_host_add_thread(sim, HOST_ORDINARY, 0, host_comms[i % G_N_ELEMENTS(host_comms)]);
	return true;
}

void wl_host_add_hogs(wl_sim *sim)
{
	for (int i = 0; i < sim->opt.host_hogs; i++)
		wl_host_add_thread(sim, HOST_ORDINARY, 0, "stress-ng-cpu")->hog = true;
}

/* Which host thread runs where at the start: vCPUs first, so that the
 * trace starts with guests running, then ordinary threads. */
void wl_host_place_threads(wl_sim *sim)
{
	guint next_cpu = 0;

	for (int kind = HOST_VCPU; kind >= HOST_ORDINARY; kind--) {
		for (guint i = 0; i < sim->host_threads->len; i++) {
			wl_host_thread *thread = g_ptr_array_index(sim->host_threads, i);

			if ((int)thread->kind != kind || thread->pinned_cpu >= 0)
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
