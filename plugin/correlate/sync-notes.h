#ifndef VM_CORRELATE_SYNC_NOTES_H
#define VM_CORRELATE_SYNC_NOTES_H

/*
 * What the sync sources learn from the messages: machines, spans, KVM
 * entries, the vmsync and TCP messages (fed to the sync library in an
 * order that does not depend on how the graph is built) and the vCPU
 * method's collection.
 */

#include "correlate/context.h"

/*
 * The sync objects (names, host, reference, order), before the first
 * event; read once, with one-pass maps.
 */
bool correlate_sync_prepare(struct correlate_iter *iter);

/* Notes one message for synchronization (machines, spans, sync events). */
void correlate_sync_note(struct correlate_iter *iter, guint upstream_index,
		const bt_message *msg, const struct msg_time *time);

/* Feeds the sync events noted but not yet fed (those of the last timestamp). */
void correlate_sync_flush(struct correlate_iter *iter);

/*
 * Read once: feeds the sync events noted up to `frontier` (own clocks:
 * every upstream was read up to there), in the order the sync pass feeds
 * them.
 */
void correlate_sync_feed_until(struct correlate_iter *iter, int64_t frontier);

/* Forgets the sync objects and what was noted (a seek starts over). */
void correlate_sync_reset(struct correlate_iter *iter);

#endif /* VM_CORRELATE_SYNC_NOTES_H */
