#ifndef VM_MODEL_HOST_RULE_H
#define VM_MODEL_HOST_RULE_H

/*
 * Which machine is the host (SPEC, Machines), the one rule every component
 * applies: the machine named by parameter `host` when there is one, else
 * the machine with host evidence (for KVM: kvm_entry / kvm_x86_entry
 * events, see the model's is_host_evidence()); when several machines have
 * some (a guest that runs nested VMs, or stray events), the one with the
 * most, ties going to the smallest name. One warning says which machine
 * was chosen and why whenever the choice was not obvious.
 *
 * filter.vm.correlate applies it once every machine is counted and writes
 * the answer in `vm_role`; filter.vm.state and sink.vm.threads follow that
 * entry, and apply the rule themselves only without it.
 */

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

/* One machine as the rule sees it. */
struct vm_host_candidate {
	const char *name;   /* for ties and the warning; NULL: by position */
	uint64_t evidence;  /* host events of the machine */
};

enum vm_host_reason {
	VM_HOST_REASON_NONE,   /* no machine has host events, none named */
	VM_HOST_REASON_NAMED,  /* parameter `host` */
	VM_HOST_REASON_ONLY,   /* the only machine with host events */
	VM_HOST_REASON_MOST,   /* the most host events of several machines */
};

struct vm_host_choice {
	int64_t host;               /* position in the candidates, or VM_MODEL_UNKNOWN */
	enum vm_host_reason reason;
	unsigned int with_evidence; /* machines that have host events */
};

/*
 * Applies the rule to `count` candidates; `named` is the position of the
 * machine parameter `host` names, VM_MODEL_UNKNOWN when it names none.
 */
struct vm_host_choice vm_host_rule_choose(const struct vm_host_candidate *machines,
		unsigned int count, int64_t named);

/*
 * The warning that the choice is due, NULL when none is: several machines
 * have host events, or `host` names a machine without any while another
 * has some. The text lists the machines with their counts (g_free() it).
 */
char *vm_host_rule_warning(const struct vm_host_choice *choice,
		const struct vm_host_candidate *machines, unsigned int count);

#endif /* VM_MODEL_HOST_RULE_H */
