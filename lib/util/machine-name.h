#ifndef VM_UTIL_MACHINE_NAME_H
#define VM_UTIL_MACHINE_NAME_H

/*
 * How parameters name machines. Machines that share a hostname are named
 * `base`, `base#2`, `base#3`, ... (SPEC, Machines), but babeltrace2's
 * parameter syntax rejects `#` in a map key, quoted or not: `transforms`
 * and `vm-pids` could not name such a machine. Parameters therefore also
 * take `base-N` for `base#N`, unless a machine is really named `base-N`
 * (exact names first), and the suggestions the components log write that
 * spelling.
 */

#include <stdbool.h>

/*
 * Whether `spelling` is the `base-N` spelling of machine name `name`, that
 * is `name` is `base#N` with N a decimal number from 2, no leading zero.
 */
bool vm_machine_name_is_alias(const char *spelling, const char *name);

/*
 * The index in `names` (`count` machine names, all different) of the
 * machine that `spelling` names, -1 if none: an exact name first, else the
 * one whose `base-N` spelling it is.
 */
int vm_machine_name_match(const char *spelling, const char *const *names,
		unsigned int count);

/*
 * The spelling of `name` to pass in a parameter (g_free it): `base-N` for
 * `base#N`, unless another of the `count` `names` is `base-N` (then `name`
 * itself, the only one that names it); any other name as it is.
 */
char *vm_machine_name_for_param(const char *name, const char *const *names,
		unsigned int count);

#endif /* VM_UTIL_MACHINE_NAME_H */
