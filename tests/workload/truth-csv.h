/* Writes DIR/truth/: timemap.csv, machines.csv, counts.csv and the
 * threads.csv, vcpus.csv, exits.csv of SPEC.md's sink.vm.threads. */
#ifndef VM_WORKLOAD_TRUTH_CSV_H
#define VM_WORKLOAD_TRUTH_CSV_H

#include "model.h"

/* False (and a message) on I/O error. */
bool wl_truth_write(wl_sim *sim);

#endif
