/* Command line of vm-workload (documented in doc/workload-generator.md). */
#ifndef VM_WORKLOAD_OPTIONS_H
#define VM_WORKLOAD_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

/* What the tracer writes of KVM's events (doc/workload-generator.md, "KVM
 * and statedump layouts"): lttng-modules >= 2.13 on Linux >= 5.10, where
 * kvm_x86_exit carries the vCPU number and kvm_x86_entry a pointer's low
 * half, or the older layout. */
typedef enum { KVM_LAYOUT_MODERN, KVM_LAYOUT_CLASSIC } wl_kvm_layout;
/* lttng_statedump_process_state with its namespace fields (2.8 to 2.11), or
 * without them plus lttng_statedump_process_pid_ns (>= 2.12). */
typedef enum { STATEDUMP_2_11, STATEDUMP_2_12 } wl_statedump_layout;
/* The kvm_exit `isa` values: Intel VT-x or AMD-V. */
typedef enum { WL_ISA_VMX = 1, WL_ISA_SVM = 2 } wl_isa;

/* Deepest PID namespace nesting of --container-depth; most --containers. */
enum { MAX_NS_DEPTH = 8, MAX_CONTAINERS = 64 };

typedef struct wl_options {
	char *out_dir;
	uint64_t seed;
	int host_cpus;
	int guests;
	int vcpus;
	int threads;
	/* Of the threads each guest starts with, the first ones with an empty
	 * comm (prctl(PR_SET_NAME, "")): their forks inherit it. */
	int unnamed_threads;
	/* 0 = no limit; at least one of duration and events is a limit. */
	uint64_t duration_ns;
	uint64_t events;
	int64_t guest_offset_ns;
	int64_t drift_ppm;
	uint64_t latency_ns;
	/* 0 = no such exchanges. */
	uint64_t vmsync_period_ns;
	uint64_t tcp_period_ns;
	/* kvm_x86_entry/kvm_x86_exit (true) or kvm_entry/kvm_exit. */
	bool kvm_x86_names;
	wl_kvm_layout kvm_layout;
	wl_statedump_layout statedump_layout;
	wl_isa isa;
	/* --guest-activity=rich (true): interrupts, timers, idle, syscalls in
	 * the guests; basic: the output of the generator before them. */
	bool rich_guests;
	/* --loss-rate: streams losing events, per second and machine (0: none),
	 * each loss a gap of loss_min_ns..loss_max_ns (loss.h). */
	double loss_rate;
	uint64_t loss_min_ns;
	uint64_t loss_max_ns;
	/* --slew-ppm (0: guest clocks are lines) and --slew-period-ms: see
	 * guest-clock.h. */
	int64_t slew_ppm;
	uint64_t slew_min_ns, slew_max_ns;
	/* --guest-kvm-entries: each guest's first context switches are each
	 * followed by a KVM entry of a nested VM, as many as this: its trace
	 * declares the KVM events too, which the host's does. They change no
	 * state of the truth (a guest's KVM events are not the host's). */
	int guest_kvm_entries;
	/* --migrate-rate: sched_migrate_task of waiting host threads, per
	 * second (0: none; host-migrate.h). */
	double migrate_rate;
	/* --host-hogs: host threads busy most of the time (0: none). */
	int host_hogs;
	/* --containers: containers per guest (0: none, the output of the
	 * generator before the option); --container-depth: PID namespace
	 * levels of each (containers.h). */
	int containers;
	int container_depth;
	/* --pid-ns-context: guest events carry the pid_ns context field. */
	bool pid_ns_context;
} wl_options;

/* Parses argv; on bad options prints why on stderr and returns false. */
bool wl_options_parse(wl_options *opt, int argc, char **argv);
void wl_options_clear(wl_options *opt);

#endif
