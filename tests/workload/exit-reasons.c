#include "exit-reasons.h"

#include <glib.h>

/* Durations are what perf kvm stat typically reports on a busy x86 host.
 * SVM counterparts: a CR access is a CR4 write (with nested paging KVM
 * stops intercepting CR0 and CR3 writes, not CR4's), both MSR directions
 * are one exit, EPT violations and misconfigurations (MMIO) are both
 * nested page faults, and SVM has no preemption timer: the host's hrtimer
 * interrupt kicks the vCPU out. */
static const wl_exit_reason reasons[] = {
	{ EXIT_EXTERNAL_INTERRUPT, "EXTERNAL_INTERRUPT", SVM_EXIT_INTR, "interrupt", 30, 600, 4000, 0 },
	{ EXIT_HLT, "HLT", SVM_EXIT_HLT, "hlt", 0, 2000, 25000, 0 },
	{ EXIT_VMCALL, "VMCALL", SVM_EXIT_VMMCALL, "hypercall", 2, 800, 3000, 0 },
	{ EXIT_CR_ACCESS, "CR_ACCESS", SVM_EXIT_WRITE_CR4, "write_cr4", 6, 400, 1500, 0 },
	{ EXIT_IO_INSTRUCTION, "IO_INSTRUCTION", SVM_EXIT_IOIO, "io", 10, 8000, 60000, 150 },
	{ EXIT_MSR_READ, "MSR_READ", SVM_EXIT_MSR, "msr", 6, 400, 1500, 0 },
	{ EXIT_MSR_WRITE, "MSR_WRITE", SVM_EXIT_MSR, "msr", 18, 500, 2500, 0 },
	{ EXIT_PAUSE_INSTRUCTION, "PAUSE_INSTRUCTION", SVM_EXIT_PAUSE, "pause", 4, 300, 1200, 0 },
	{ EXIT_EPT_VIOLATION, "EPT_VIOLATION", SVM_EXIT_NPF, "npf", 20, 1500, 20000, 40 },
	{ EXIT_EPT_MISCONFIG, "EPT_MISCONFIG", SVM_EXIT_NPF, "npf", 4, 2000, 9000, 0 },
	/* the guest's LAPIC timer (--guest-activity=rich) */
	{ EXIT_PREEMPTION_TIMER, "PREEMPTION_TIMER", SVM_EXIT_INTR, "interrupt", 0, 500, 2500, 0 },
};

const wl_exit_reason *wl_exit_reason_find(uint32_t reason)
{
	for (size_t i = 0; i < G_N_ELEMENTS(reasons); i++)
		if (reasons[i].reason == reason)
			return &reasons[i];
	return NULL;
}

const wl_exit_reason *wl_exit_reason_pick(uint64_t draw)
{
	unsigned total = 0;

	for (size_t i = 0; i < G_N_ELEMENTS(reasons); i++)
		total += reasons[i].weight;

	unsigned target = (unsigned)(draw % total);

	for (size_t i = 0; i < G_N_ELEMENTS(reasons); i++) {
		if (target < reasons[i].weight)
			return &reasons[i];
		target -= reasons[i].weight;
	}
	return &reasons[0];
}

int wl_exit_code(wl_isa isa, int reason)
{
	if (reason < 0 || isa == WL_ISA_VMX)
		return reason;

	const wl_exit_reason *info = wl_exit_reason_find((uint32_t)reason);

	g_assert(info);
	return (int)info->svm_code;
}

const char *wl_exit_code_name(wl_isa isa, int code)
{
	for (size_t i = 0; i < G_N_ELEMENTS(reasons); i++) {
		if (isa == WL_ISA_VMX && (int)reasons[i].reason == code)
			return reasons[i].name;
		if (isa == WL_ISA_SVM && (int)reasons[i].svm_code == code)
			return reasons[i].svm_name;
	}
	return NULL;
}
