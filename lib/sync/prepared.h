#ifndef VM_SYNC_PREPARED_H
#define VM_SYNC_PREPARED_H

#include <stdbool.h>
#include <stdint.h>

#include "sync/formula.h"

/*
 * A formula prepared for many applications (vm_sync_formula_prepare()):
 * vm_sync_prepared_apply() gives what vm_sync_formula_apply() gives, mostly
 * in integer arithmetic. The fields are internal to lib/sync/.
 */
struct vm_sync_prepared {
	struct vm_sync_formula formula;  /* what it was prepared from */
	bool identity;
	bool fixed;                      /* the fixed-point path applies */
	bool slope_negative;             /* slope < 1 */
	int slope_shift;
	uint64_t slope_mantissa;         /* |slope - 1|, see prepared.c */
	__extension__ __int128 offset_fixed;
};

void vm_sync_formula_prepare(const struct vm_sync_formula *formula,
		struct vm_sync_prepared *prepared);

int64_t vm_sync_prepared_apply(const struct vm_sync_prepared *prepared, int64_t t);

/* The same, false on overflow, as vm_sync_formula_apply_checked(). */
bool vm_sync_prepared_apply_checked(const struct vm_sync_prepared *prepared, int64_t t,
		int64_t *result);

/*
 * Which side of `ref` the exact (unrounded) map of `t` lies on: true and
 * `*sign` -1 or +1 when the fixed point tells for sure, false when the map
 * is within a hair of `ref` (or out of the fixed point's range): the
 * caller then evaluates wide.
 */
bool vm_sync_prepared_side(const struct vm_sync_prepared *prepared, int64_t t, int64_t ref,
		int *sign);

#endif /* VM_SYNC_PREPARED_H */
