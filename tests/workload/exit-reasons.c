#include "exit-reasons.h"

#include <glib.h>

/* Durations are what perf kvm stat typically reports on a busy x86 host. */
static const wl_exit_reason reasons[] = {
	{ EXIT_EXTERNAL_INTERRUPT, "EXTERNAL_INTERRUPT", 30, 600, 4000, 0 },
	{ EXIT_HLT, "HLT", 0, 2000, 25000, 0 },
	{ EXIT_VMCALL, "VMCALL", 2, 800, 3000, 0 },
	{ EXIT_CR_ACCESS, "CR_ACCESS", 6, 400, 1500, 0 },
	{ EXIT_IO_INSTRUCTION, "IO_INSTRUCTION", 10, 8000, 60000, 150 },
	{ EXIT_MSR_READ, "MSR_READ", 6, 400, 1500, 0 },
	{ EXIT_MSR_WRITE, "MSR_WRITE", 18, 500, 2500, 0 },
	{ EXIT_PAUSE_INSTRUCTION, "PAUSE_INSTRUCTION", 4, 300, 1200, 0 },
	{ EXIT_EPT_VIOLATION, "EPT_VIOLATION", 20, 1500, 20000, 40 },
	{ EXIT_EPT_MISCONFIG, "EPT_MISCONFIG", 4, 2000, 9000, 0 },
	/* the guest's LAPIC timer (--guest-activity=rich) */
	{ EXIT_PREEMPTION_TIMER, "PREEMPTION_TIMER", 0, 500, 2500, 0 },
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
