/* The VM exit reasons the simulated guests cause, with their names in
 * Linux's VMX_EXIT_REASONS table and how long KVM takes to handle them.
 * The simulation thinks in VMX reasons; with --isa svm each is written (in
 * kvm_exit and in the truth) as the AMD SVM exit code KVM would report for
 * the same guest action, named as in Linux's SVM_EXIT_REASONS. */
#ifndef VM_WORKLOAD_EXIT_REASONS_H
#define VM_WORKLOAD_EXIT_REASONS_H

#include <stdint.h>

#include "options.h"

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

/* SVM exit codes (Linux arch/x86/include/uapi/asm/svm.h). */
enum {
	SVM_EXIT_WRITE_CR4 = 0x014,
	SVM_EXIT_INTR = 0x060,
	SVM_EXIT_PAUSE = 0x077,
	SVM_EXIT_HLT = 0x078,
	SVM_EXIT_IOIO = 0x07b,
	SVM_EXIT_MSR = 0x07c,
	SVM_EXIT_VMMCALL = 0x081,
	SVM_EXIT_NPF = 0x400,
};

typedef struct wl_exit_reason {
	uint32_t reason;
	const char *name;
	/* The SVM exit of the same guest action, and its name. */
	uint32_t svm_code;
	const char *svm_name;
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
/* What the tracer writes for the (VMX) REASON under ISA; -1 stays -1 (no
 * exit). Several reasons may share one SVM code (MSR_READ and MSR_WRITE are
 * both SVM_EXIT_MSR). */
int wl_exit_code(wl_isa isa, int reason);
/* The name of a code wl_exit_code gives (Linux's table of that ISA). */
const char *wl_exit_code_name(wl_isa isa, int code);

#endif
