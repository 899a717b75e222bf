/* The truth about lost events (doc/workload-generator.md): losses.csv,
 * and affected.csv, the windows of the truth that the lost events can
 * make an analysis get wrong, following SPEC.md's "Lost events". */
#ifndef VM_WORKLOAD_LOSS_TRUTH_H
#define VM_WORKLOAD_LOSS_TRUTH_H

#include <stdio.h>

#include "model.h"

#define LOSSES_CSV_HEADER "machine,cpu,gap_begin_ns,gap_end_ns,lost,counted"
#define AFFECTED_CSV_HEADER "machine,kind,id,begin_ns,end_ns"

void wl_loss_losses_body(wl_sim *sim, FILE *file);
void wl_loss_affected_body(wl_sim *sim, FILE *file);

#endif
