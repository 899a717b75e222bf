#ifndef VM_CORRELATE_SETUP_H
#define VM_CORRELATE_SETUP_H

/*
 * Once every machine is known: names, parameter checks, roles, the host,
 * the reference, and the formulas that `transforms` gives.
 */

#include "correlate/context.h"

/* False with an error cause (a parameter names no machine, say). */
bool correlate_finalize_machines(struct correlate_iter *iter);

/* The host: `host`, else the machine with the most KVM entries. */
struct machine *correlate_detect_host(struct correlate_iter *iter);

/* Whether the given `transforms` cover every machine but the reference. */
bool correlate_transforms_cover_all(struct correlate_iter *iter);

#endif /* VM_CORRELATE_SETUP_H */
