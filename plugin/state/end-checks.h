#ifndef VM_PLUGIN_STATE_END_CHECKS_H
#define VM_PLUGIN_STATE_END_CHECKS_H

/*
 * Checks of filter.vm.state that are certain only once the whole input was
 * read (a vCPU thread can start late), made before the component ends:
 *
 * - a `vm-pids` entry whose process runs no vCPU thread is a mistake (a
 *   typo, the pid of another run) that would otherwise go unnoticed; the
 *   entry still counts: the user's word wins.
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

#endif /* VM_PLUGIN_STATE_END_CHECKS_H */
