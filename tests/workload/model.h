/* The simulated machines: a KVM host (CPUs, threads, one QEMU process per
 * guest) and its guests (vCPUs, threads), all in true time = host clock. */
#ifndef VM_WORKLOAD_MODEL_H
#define VM_WORKLOAD_MODEL_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "exit-reasons.h"
#include "guest-clock.h"
#include "options.h"
#include "rng.h"
#include "steal-track.h"
#include "stub-file.h"
#include "truth-track.h"

#define NEVER UINT64_MAX
/* Every event gets its own true time, this far after the previous one:
 * two events never share a timestamp, even on a drifting guest clock. */
#define EVENT_GAP_NS 2

/* sched_switch prev_state values (TASK_REPORT bits). */
enum {
	PREV_RUNNABLE = 0,
	PREV_SLEEPING = 1,
	PREV_ZOMBIE = 32,
};

enum { COMM_SIZE = 24, NAME_SIZE = 16, KERNEL_PRIO = 20 };

typedef enum { RUN_RUNNING, RUN_RUNNABLE, RUN_BLOCKED } wl_run_state;

typedef enum { HOST_IDLE, HOST_ORDINARY, HOST_VCPU } wl_host_kind;

/* vCPU modes (SPEC.md filter.vm.state); TRUTH_UNKNOWN only in the truth. */
typedef enum { MODE_GUEST, MODE_HYPERVISOR, MODE_PREEMPTED, MODE_BLOCKED, MODE_UNKNOWN } wl_mode;

/* Guest thread states of the truth (SPEC.md sink.vm.threads). */
typedef enum {
	TS_RUNNING, TS_HYPERVISOR, TS_PREEMPTED, TS_VCPU_BLOCKED, TS_RUNNABLE, TS_BLOCKED,
} wl_thread_state;

typedef enum { GT_ON_CPU, GT_RUNNABLE, GT_BLOCKED, GT_WAKE_PENDING, GT_DEAD } wl_guest_state;

struct wl_vcpu;

typedef struct wl_host_thread {
	int tid, pid, ppid;
	char comm[COMM_SIZE];
	wl_host_kind kind;
	wl_run_state state;
	int cpu; /* running on, queued on, or last ran on */
	int pinned_cpu; /* per-CPU kernel thread: its CPU, else -1 */
	uint64_t wake_ns; /* timer wake-up when blocked, NEVER if none */
	struct wl_vcpu *vcpu; /* HOST_VCPU only */
	/* Another thread of that guest's QEMU process (its main thread): a
	 * `vmm` culprit of steal; NULL for every other thread. */
	struct wl_guest *qemu_guest;
	bool hog; /* --host-hogs: long bursts, short sleeps */
} wl_host_thread;

typedef struct wl_host_cpu {
	int id;
	wl_host_thread *current;
	wl_host_thread *idle;
	GQueue runq; /* of wl_host_thread */
	uint64_t slice_end_ns; /* current may be preempted after this */
	uint64_t resched_ns; /* a wake-up asked to reschedule at this time */
	uint64_t burst_end_ns; /* ordinary thread: end of its CPU burst */
	bool switched; /* wrote a sched_switch: its current thread is known */
	GArray *history; /* of wl_cpu_current: who was current when (steal.csv) */
} wl_host_cpu;

typedef struct wl_exit_stat {
	uint64_t count, total_ns, min_ns, max_ns;
} wl_exit_stat;

typedef struct wl_guest_thread {
	int tid, pid, ppid;
	char comm[COMM_SIZE];
	wl_guest_state state;
	int vcpu; /* on, queued on, or last ran on */
	uint64_t wake_ns;
	bool forked;
	bool appeared; /* truth starts at the first sched_switch or wake-up */
	int syscall; /* --guest-activity=rich: the syscall it is in, -1 none */
	wl_truth_track track;
	/* --containers (containers.h): its innermost PID namespace (NULL:
	 * the guest's initial one), its id at each level (vtids[0] = tid),
	 * and whether the trace shows its membership (a recorded statedump
	 * entry of its innermost level, or its recorded fork). */
	struct wl_pidns *ns;
	int vtids[MAX_NS_DEPTH + 1];
	bool ns_shown;
} wl_guest_thread;

struct wl_guest;

typedef struct wl_vcpu {
	struct wl_guest *guest;
	int id;
	wl_host_thread *thread;
	wl_mode mode;
	bool known; /* a host event of its thread was seen: truth has a mode */
	bool entered; /* a kvm_entry (which names the vCPU) was written */
	int reason; /* exit reason (VMX) while no kvm_entry followed, else -1 */
	/* low half of its struct kvm_vcpu's address (the modern kvm_x86_entry's
	 * vcpu_id: kvm-layout.h) */
	uint32_t entry_pointer;
	bool halted; /* blocked on the host after a HLT exit */

	/* guest mode: when the next exit is due, forced reason (0: any) */
	uint64_t exit_ns;
	uint32_t forced_reason;
	/* hypervisor mode: when the exit is handled */
	uint64_t hyp_end_ns;
	uint64_t resched_after_ns; /* KVM notices a pending reschedule then */
	bool block_after_exit;
	uint64_t exit_begin_ns;
	bool exit_open; /* a kvm_exit was written and no kvm_entry yet */

	/* vmsync exchange in progress: see vmsync.h */
	bool vmsync_exit_pending;
	uint32_t vmsync_cnt;
	uint64_t vmsync_gh_guest_ns;
	bool gh_host_pending;
	uint64_t gh_host_due_ns;
	bool hg_host_pending;
	bool hg_guest_pending;
	uint64_t hg_guest_due_ns;

	/* guest side */
	wl_guest_thread *current; /* NULL: idle (swapper) */
	GQueue runq; /* of wl_guest_thread */
	GQueue pending_wakes; /* interrupts waiting for guest mode */
	uint64_t burst_end_ns; /* valid in guest mode */
	uint64_t burst_left_ns; /* kept while out of guest mode */

	/* --guest-activity=rich (guest-irq.h, guest-syscall.h); deadlines in
	 * guest CPU time, frozen as *_left_ns while out of guest mode */
	GQueue irqs; /* of wl_girq: injected, not handled yet */
	struct wl_girq *irq; /* the handler running, NULL if none */
	uint64_t irq_next_ns, irq_left_ns; /* its next step */
	uint64_t syscall_ns, syscall_left_ns; /* next syscall entry or exit */
	uint64_t tick_ns, tick_period_ns; /* the guest's periodic tick (true time) */

	wl_exit_stat exits[EXIT_REASON_LIMIT];
	wl_truth_track track;
	wl_steal_track steal; /* where its thread waited while preempted */
} wl_vcpu;

typedef struct wl_guest {
	int index; /* 1-based */
	char name[NAME_SIZE];
	char clock_uuid[40];
	wl_stub stub;
	wl_clock clock;
	uint64_t vm_uid;
	wl_host_thread *qemu_main;
	GPtrArray *vcpus; /* of wl_vcpu */
	GPtrArray *threads; /* of wl_guest_thread, tid order */
	GQueue work; /* of wl_work: needs a vCPU in guest mode */
	bool statedump_done;
	bool vmsync_queued;
	uint64_t next_vmsync_ns;
	uint32_t vmsync_cnt;
	int next_tid;
	int live_threads; /* not exited */
	int max_threads; /* live at once */
	int max_forks; /* in the whole run: bounds the thread list */
	uint64_t tick_period_ns; /* --guest-activity=rich */
	int kvm_entries_left; /* --guest-kvm-entries */
	uint32_t nested_entry_pointer; /* of those entries, as entry_pointer */
	GPtrArray *pidns; /* of wl_pidns (containers.h), creation order */
} wl_guest;

typedef struct wl_sim {
	wl_options opt;
	wl_rng rng;
	uint64_t start_ns;
	uint64_t now; /* time of the next event to write */
	uint64_t last_event_ns;
	uint64_t events;
	wl_stub host_stub;
	char host_clock_uuid[40];
	GPtrArray *cpus; /* of wl_host_cpu */
	GPtrArray *host_threads; /* of wl_host_thread */
	GPtrArray *guests; /* of wl_guest */
	GPtrArray *flows; /* of wl_flow (tcp.h) */
	GHashTable *tcp_keys; /* (seq << 32 | ack_seq) already used */
	int next_host_tid;
	const char *kvm_entry_name;
	const char *kvm_exit_name;
	struct wl_losses *losses; /* --loss-rate (loss.h), else NULL */
	/* --migrate-rate (host-migrate.h): a generator of its own, so that the
	 * option draws nothing from the simulation's when it is 0 */
	wl_rng migrate_rng;
	uint64_t next_migrate_ns;
} wl_sim;

#endif
