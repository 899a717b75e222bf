/* The host at the start of a run: its CPUs, ordinary and per-CPU threads,
 * what runs where (statedump.h writes it first). */
#ifndef VM_WORKLOAD_HOST_SETUP_H
#define VM_WORKLOAD_HOST_SETUP_H

#include "model.h"

/* Opens host.stub and creates the CPUs and host threads; false on error. */
bool wl_host_setup(wl_sim *sim);
/* A blocked host thread; PID 0 makes it a process of its own. */
wl_host_thread *wl_host_add_thread(wl_sim *sim, wl_host_kind kind, int pid, const char *comm);
/* --host-hogs: host threads busy most of the time (after every other
 * thread, so that without them the tids and draws are what they were). */
void wl_host_add_hogs(wl_sim *sim);
/* vCPU threads run on the first CPUs, the rest wait (vCPUs) or sleep. */
void wl_host_place_threads(wl_sim *sim);

#endif
