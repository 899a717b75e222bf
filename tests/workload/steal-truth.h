/* truth/steal.csv: who took the time of each preempted vCPU (SPEC.md,
 * sink.vm.threads, "Who took the time"), from the simulation's own record
 * of which host thread was current on which host CPU, never from the
 * events written. Also truth/steal-affected.csv with --loss-rate. */
#ifndef VM_WORKLOAD_STEAL_TRUTH_H
#define VM_WORKLOAD_STEAL_TRUTH_H

#include <stdio.h>

#include "model.h"

#define STEAL_CSV_HEADER                                                                    \
	"machine,vcpu,tid,comm,begin_ns,end_ns,pcpu,culprit_kind,culprit_machine,culprit_vcpu," \
	"culprit_tid,culprit_comm"
#define STEAL_AFFECTED_CSV_HEADER "machine,vcpu,begin_ns,end_ns"

void wl_steal_body(wl_sim *sim, FILE *file);
void wl_steal_affected_body(wl_sim *sim, FILE *file);

#endif
