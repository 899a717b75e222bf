#ifndef VM_CORRELATE_DRIVE_H
#define VM_CORRELATE_DRIVE_H

/* The next method of filter.vm.correlate's message iterator, state by state. */

#include "correlate/context.h"

bt_message_iterator_class_next_method_status correlate_drive_next(
		struct correlate_iter *iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count);

/* The one reset: every part forgets what it read (a seek to the beginning). */
void correlate_drive_reset(struct correlate_iter *iter);

#endif /* VM_CORRELATE_DRIVE_H */
