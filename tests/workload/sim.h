/* The run: every simulated entity says when it acts next; the earliest
 * acts, until the duration or the event budget is used. */
#ifndef VM_WORKLOAD_SIM_H
#define VM_WORKLOAD_SIM_H

#include "model.h"

void wl_sim_run(wl_sim *sim);
/* Writes a last, state-neutral event and closes every truth interval. */
void wl_sim_finish(wl_sim *sim);

#endif
