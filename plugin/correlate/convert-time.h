#ifndef VM_CORRELATE_CONVERT_TIME_H
#define VM_CORRELATE_CONVERT_TIME_H

/*
 * The converted time of every message, computed for ordering: exactly
 * vm_sync_formula_apply()'s result (the mirror's output times come from
 * it), at a fraction of its cost.
 */

#include <stdint.h>

#include "sync/sync.h"

int64_t correlate_convert_time(const struct vm_sync_formula *formula, int64_t t);

#endif /* VM_CORRELATE_CONVERT_TIME_H */
