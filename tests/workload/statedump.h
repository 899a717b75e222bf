/* The LTTng statedump: one lttng_statedump_process_state per thread, as
 * the tracer writes it (--statedump-layout): 2.8 to 2.11 put the thread's
 * PID namespace in it (vtid, vpid, vppid, ns_level, ns_inum); 2.12 and
 * later leave them out (and add file_table_address) and write one
 * lttng_statedump_process_pid_ns per thread and namespace level right
 * after it. Host threads are all in the initial PID namespace; guest
 * threads may be in containers (containers.h). */
#ifndef VM_WORKLOAD_STATEDUMP_H
#define VM_WORKLOAD_STATEDUMP_H

#include "model.h"

/* Every host thread, on host CPU 0, at the start. */
void wl_statedump_host(wl_sim *sim);
/* Every thread of VCPU's guest, on VCPU (in guest mode). */
void wl_statedump_guest(wl_sim *sim, wl_vcpu *vcpu);

#endif
