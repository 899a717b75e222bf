#ifndef VM_PLUGIN_STATE_END_CHECKS_H
#define VM_PLUGIN_STATE_END_CHECKS_H

/*
 * Checks of filter.vm.state that are certain only once the whole input was
 * read (a vCPU thread can start late), made before the component ends:
 *
 * - a `vm-pids` entry whose process runs no vCPU thread is a mistake (a
 *   typo, the pid of another run) that would otherwise go unnoticed; the
 *   entry still counts: the user's word wins;
 * - a host with no vCPU thread at all, while guests are there: its trace
 *   was recorded without the KVM events, and no vCPU mode is computed.
 */

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "model/model.h"

/*
 * Logs a WARNING for each entry of `vm_pids` (guest name -> gint64 pid)
 * whose process ran no vCPU thread in the input `model` learnt, naming the
 * processes that did. `host_name` is the host machine's name. Nothing
 * while the model knows no host (filter.vm.state says that already) or
 * cannot list the vCPU processes.
 */
void end_check_vm_pids(bt_self_component *self_comp, GHashTable *vm_pids,
		const struct vm_model *model, const char *host_name);

/*
 * Logs a WARNING when the host `host_name` (known to the model) ran no
 * vCPU thread although the input has `machine_count` machines, saying how
 * to record the KVM events.
 */
void end_check_host_vcpus(bt_self_component *self_comp,
		const struct vm_model *model, const char *host_name,
		unsigned int machine_count);

#endif /* VM_PLUGIN_STATE_END_CHECKS_H */
