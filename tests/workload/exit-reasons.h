/* The VM exit reasons the simulated guests cause, with their names in
 * Linux's VMX_EXIT_REASONS table and how long KVM takes to handle them. */
#ifndef VM_WORKLOAD_EXIT_REASONS_H
#define VM_WORKLOAD_EXIT_REASONS_H

#include <stdint.h>

enum {
	EXIT_EXTERNAL_INTERRUPT = 1,
	EXIT_HLT = 12,
	EXIT_VMCALL = 18,
	EXIT_CR_ACCESS = 28,
	EXIT_IO_INSTRUCTION = 30,
	EXIT_MSR_READ = 31,
	EXIT_MSR_WRITE = 32,
	EXIT_PAUSE_INSTRUCTION = 40,
	EXIT_EPT_VIOLATION = 48,
	EXIT_EPT_MISCONFIG = 49,
	EXIT_PREEMPTION_TIMER = 52,
	/* Reasons are below this (sizes per-reason tables). */
	EXIT_REASON_LIMIT = 80,
};

typedef struct wl_exit_reason {
	uint32_t reason;
	const char *name;
	/* Relative frequency among the exits a running guest causes by
	 * itself (0: only caused on purpose, like HLT). */
	unsigned weight;
	uint64_t min_ns, max_ns;
	/* Per mille of these exits after which the vCPU thread sleeps on the
	 * host (QEMU lock, page-in) before re-entering. */
	unsigned block_permille;
} wl_exit_reason;

/* The entry of REASON; NULL when the generator never causes it. */
const wl_exit_reason *wl_exit_reason_find(uint32_t reason);
/* An exit reason drawn by weight, from a value uniform in [0, 2^64). */
const wl_exit_reason *wl_exit_reason_pick(uint64_t draw);

#endif
