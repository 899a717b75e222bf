#ifndef VM_LOSS_WINDOWS_H
#define VM_LOSS_WINDOWS_H

/*
 * Windows of time in which a machine's record is incomplete because its
 * tracer lost events (SPEC "Lost events"), as the vCPU synchronization
 * needs them: what happened inside is unknown, so nothing may be concluded
 * from the absence of an event there.
 *
 * Windows come in any order and may overlap; queries see them merged.
 * Times are ns on one machine's own clock. No babeltrace2 types.
 */

#include <stdbool.h>
#include <stdint.h>

struct vm_loss_windows;

struct vm_loss_windows *vm_loss_windows_create(void);
void vm_loss_windows_destroy(struct vm_loss_windows *windows);

/* Adds [begin, end] (swapped when end < begin). */
void vm_loss_windows_add(struct vm_loss_windows *windows, int64_t begin, int64_t end);

/* Adds every window of `from`. */
void vm_loss_windows_add_all(struct vm_loss_windows *windows,
		const struct vm_loss_windows *from);

/* Whether some window meets [low, high] (closed ends; low <= high). */
bool vm_loss_windows_overlap(const struct vm_loss_windows *windows, int64_t low,
		int64_t high);

/*
 * Whether `t` is within `margin` (>= 0) of some window: what is mapped
 * there with an error up to `margin` may belong inside.
 */
bool vm_loss_windows_near(const struct vm_loss_windows *windows, int64_t t,
		int64_t margin);

/* Forgets the windows that end before `t` (those behind a walk). */
void vm_loss_windows_drop_before(struct vm_loss_windows *windows, int64_t t);

/* Merged windows. */
unsigned int vm_loss_windows_count(const struct vm_loss_windows *windows);

/* Their total length, ns (saturated). */
int64_t vm_loss_windows_total_ns(const struct vm_loss_windows *windows);

/* The merged window of index `i` (< count). */
void vm_loss_windows_at(const struct vm_loss_windows *windows, unsigned int i,
		int64_t *begin, int64_t *end);

#endif /* VM_LOSS_WINDOWS_H */
