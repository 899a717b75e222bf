/* Building the machines of a run and their state at the first instant. */
#ifndef VM_WORKLOAD_SETUP_H
#define VM_WORKLOAD_SETUP_H

#include "model.h"

/* Creates the host, the guests and their stub files; false on I/O error. */
bool wl_setup(wl_sim *sim);
void wl_teardown(wl_sim *sim);

#endif
