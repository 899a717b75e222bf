#include "statedump.h"

#include "containers.h"
#include "emit.h"
/* Where a machine's struct files_struct objects live (the direct map, in
 * the 768-byte kmalloc cache), and its static init_files, shared by the
 * kernel threads (in the kernel image). */
#define FILES_BASE UINT64_C(0xffff888104000000)
#define FILES_STRIDE 0x300
#define INIT_FILES_BASE UINT64_C(0xffffffff82a00000)
/* Keeps these addresses' draws apart from every other generator's. */
#define FILES_SEED_SALT UINT64_C(0x66696c6573)

/* lttng's LTTNG_RUN, LTTNG_WAIT_CPU, LTTNG_WAIT */
enum { STATUS_RUN = 6, STATUS_WAIT_CPU = 2, STATUS_WAIT = 5 };

typedef struct dumped_thread {
	int tid, pid, ppid;
	const char *comm;
	int status;
	int cpu;
	bool kernel; /* a kernel thread (a child of kthreadd) */
} dumped_thread;

/* A plausible files_struct address of a process (shared by its threads),
 * stable per seed, machine and pid: only what a 2.12 statedump shows. */
static uint64_t file_table_address(const wl_sim *sim, int machine, const dumped_thread *t)
{
	wl_rng rng;

	wl_rng_seed(&rng, sim->opt.seed ^ FILES_SEED_SALT ^ ((uint64_t)machine << 40) ^
			  (t->kernel ? 0 : (uint64_t)t->pid << 1 | 1));
	uint64_t draw = wl_rng_next(&rng);

	if (t->kernel)
		return INIT_FILES_BASE + (draw & 0xfff) * 64;
	return FILES_BASE + (draw & 0xfffff) * FILES_STRIDE;
}

#define STATE_2_11_FORMAT "tid=%d vtid=%d pid=%d vpid=%d ppid=%d vppid=%d name=\"%s\" " \
			  "type=0 mode=0 submode=0 status=%d cpu=%d"
#define STATE_2_12_FORMAT "tid=%d pid=%d ppid=%d name=\"%s\" type=0 mode=0 submode=0 " \
			  "status=%d cpu=%d file_table_address=0x%" G_GINT64_MODIFIER "x"
#define PID_NS_FORMAT "tid=%d vtid=%d vpid=%d vppid=%d ns_level=0 ns_inum=%u"
/* --containers: the 2.11 entry of one namespace level, and the 2.12 one */
#define STATE_2_11_NS_FORMAT "tid=%d vtid=%d pid=%d vpid=%d ppid=%d vppid=%d name=\"%s\" " \
			     "type=0 mode=0 submode=0 status=%d ns_level=%d ns_inum=%u cpu=%d"
#define PID_NS_LEVEL_FORMAT "tid=%d vtid=%d vpid=%d vppid=%d ns_level=%d ns_inum=%u"
#define PID_NS_NAME "lttng_statedump_process_pid_ns"
#define STATE_NAME "lttng_statedump_process_state"

static void dump_host_thread(wl_sim *sim, const dumped_thread *t)
{
	if (sim->opt.statedump_layout == STATEDUMP_2_11) {
		wl_host_emit(sim, 0, STATE_NAME, STATE_2_11_FORMAT, t->tid, t->tid, t->pid, t->pid,
			     t->ppid, t->ppid, t->comm, t->status, t->cpu);
		return;
	}
	wl_host_emit(sim, 0, STATE_NAME, STATE_2_12_FORMAT, t->tid, t->pid, t->ppid, t->comm,
		     t->status, t->cpu, (guint64)file_table_address(sim, 0, t));
	wl_host_emit_next(sim, 0, PID_NS_NAME, PID_NS_FORMAT, t->tid, t->tid, t->pid, t->ppid,
			  INIT_PID_NS_INUM);
}

static void dump_guest_thread(wl_sim *sim, wl_vcpu *vcpu, const dumped_thread *t)
{
	if (sim->opt.statedump_layout == STATEDUMP_2_11) {
		wl_guest_emit(sim, vcpu, STATE_NAME, STATE_2_11_FORMAT, t->tid, t->tid, t->pid,
			      t->pid, t->ppid, t->ppid, t->comm, t->status, t->cpu);
		return;
	}
	wl_guest_emit(sim, vcpu, STATE_NAME, STATE_2_12_FORMAT, t->tid, t->pid, t->ppid, t->comm,
		      t->status, t->cpu,
		      (guint64)file_table_address(sim, vcpu->guest->index, t));
	wl_guest_emit_next(sim, vcpu, PID_NS_NAME, PID_NS_FORMAT, t->tid, t->tid, t->pid, t->ppid,
			   INIT_PID_NS_INUM);
}

/* One level's entry: the first written takes a time step, the others
 * follow it 1 ns later (emit.h). */
static bool dump_level(wl_sim *sim, wl_vcpu *vcpu, bool first, const dumped_thread *t,
		       const wl_guest_thread *g, int level)
{
	const wl_guest *guest = vcpu->guest;
	const wl_pidns *ns = wl_containers_ns_at(g, level);
	uint32_t inum = level ? ns->inum : INIT_PID_NS_INUM;
	int vtid = wl_containers_vtid(g, level), vppid = wl_containers_vppid(guest, g, level);

	if (sim->opt.statedump_layout == STATEDUMP_2_11) {
		if (first)
			return wl_guest_emit(sim, vcpu, STATE_NAME, STATE_2_11_NS_FORMAT, t->tid,
					     vtid, t->pid, vtid, t->ppid, vppid, t->comm, t->status,
					     level, inum, t->cpu);
		return wl_guest_emit_next(sim, vcpu, STATE_NAME, STATE_2_11_NS_FORMAT, t->tid,
					  vtid, t->pid, vtid, t->ppid, vppid, t->comm, t->status,
					  level, inum, t->cpu);
	}
	return wl_guest_emit_next(sim, vcpu, PID_NS_NAME, PID_NS_LEVEL_FORMAT, t->tid, vtid, vtid,
				  vppid, level, inum);
}

/* --containers: one entry per namespace level of the thread, innermost
 * first, as lttng-modules walks them from the task's own namespace up.
 * Whether the innermost one is recorded is what the trace shows of the
 * thread's container (and, for an init, of the container's name). */
static void dump_guest_thread_ns(wl_sim *sim, wl_vcpu *vcpu, const dumped_thread *t,
				 wl_guest_thread *g)
{
	int levels = g->ns ? g->ns->level : 0;
	bool first = true, shown = true;

	if (sim->opt.statedump_layout == STATEDUMP_2_12) {
		/* the comm is in this one */
		shown = wl_guest_emit(sim, vcpu, STATE_NAME, STATE_2_12_FORMAT, t->tid, t->pid,
				      t->ppid, t->comm, t->status, t->cpu,
				      (guint64)file_table_address(sim, vcpu->guest->index, t));
		first = false;
	}
	for (int level = levels; level >= 0; level--) {
		bool recorded = dump_level(sim, vcpu, first, t, g, level);

		if (level == levels) {
			g->ns_shown = recorded;
			if (g->ns && g->ns->init == g)
				g->ns->init_shown = recorded && shown;
		}
		first = false;
	}
}

void wl_statedump_host(wl_sim *sim)
{
	for (guint i = 0; i < sim->host_threads->len; i++) {
		const wl_host_thread *h = g_ptr_array_index(sim->host_threads, i);
		dumped_thread t = {
			.tid = h->tid, .pid = h->pid, .ppid = h->ppid, .comm = h->comm,
			.status = h->state == RUN_RUNNING ? STATUS_RUN :
				  h->state == RUN_RUNNABLE ? STATUS_WAIT_CPU : STATUS_WAIT,
			.cpu = h->cpu, .kernel = h->ppid == 2,
		};

		dump_host_thread(sim, &t);
	}
}

static int guest_status(const wl_guest_thread *thread)
{
	switch (thread->state) {
	case GT_ON_CPU:
		return STATUS_RUN;
	case GT_RUNNABLE:
		return STATUS_WAIT_CPU;
	case GT_BLOCKED:
	case GT_WAKE_PENDING:
	case GT_DEAD:
		break;
	}
	return STATUS_WAIT;
}

void wl_statedump_guest(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_guest *guest = vcpu->guest;

	for (guint i = 0; i < guest->threads->len; i++) {
		wl_guest_thread *g = g_ptr_array_index(guest->threads, i);
		dumped_thread t = {
			.tid = g->tid, .pid = g->pid, .ppid = g->ppid, .comm = g->comm,
			.status = guest_status(g), .cpu = g->vcpu, .kernel = false,
		};

		if (sim->opt.containers > 0)
			dump_guest_thread_ns(sim, vcpu, &t, g);
		else
			dump_guest_thread(sim, vcpu, &t);
	}
	guest->statedump_done = true;
}
