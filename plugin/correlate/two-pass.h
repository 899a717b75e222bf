#ifndef VM_CORRELATE_TWO_PASS_H
#define VM_CORRELATE_TWO_PASS_H

/*
 * The sync pass: every upstream is read to its end, merged on the
 * machines' own clocks, everything noted (sync-notes.h); then every
 * machine's map is solved (choose.h). The merge then reads the inputs
 * again with those fixed maps (fixed-maps.c).
 */

#include "correlate/context.h"

/*
 * Reads on; `*done` once the maps are set (the caller seeks the inputs
 * back). Not done with OK: read again from the beginning (the host was
 * guessed wrong), the inputs already sought.
 */
bt_message_iterator_class_next_method_status correlate_sync_pass(
		struct correlate_iter *iter, bool *done);

/* Forgets a sync pass under way (a seek restarts it). */
void correlate_sync_pass_reset(struct correlate_iter *iter);

#endif /* VM_CORRELATE_TWO_PASS_H */
