/* A guest at the start of a run: its clock, vCPUs (and their QEMU threads
 * on the host), threads, and who runs or waits where. */
#ifndef VM_WORKLOAD_GUEST_SETUP_H
#define VM_WORKLOAD_GUEST_SETUP_H

#include "model.h"

/* Creates guest INDEX (from 1) and opens its stub; false on error. */
bool wl_guest_setup(wl_sim *sim, int index);
/* Current, queued and sleeping threads; vCPUs whose thread runs on the
 * host are in guest mode. Call after wl_host_place_threads(). */
void wl_guest_place(wl_sim *sim, wl_guest *guest);
void wl_guest_free(gpointer guest);

#endif
