#ifndef VM_SYNC_FEED_ORDER_H
#define VM_SYNC_FEED_ORDER_H

/*
 * The order in which vmsync and TCP events are fed to the sync library:
 * time order, then an order that does not depend on how the graph was
 * built (machine name, protocol, role, key). Matching takes "the first
 * unmatched event of a key" and the hulls keep their history, so the same
 * events fed in another order could give another map: this order makes
 * one input per source port and one muxed input give the same maps.
 */

#include <stdint.h>

#include "sync/sync.h"

/* One event as the order sees it. */
struct vm_sync_feed_event {
	int64_t ts;              /* its machine's own clock */
	const char *machine;     /* its machine's name */
	unsigned int protocol;   /* the caller's protocol number (vmsync, TCP) */
	enum vm_sync_role role;
	struct vm_sync_key key;
};

/* <0, 0 or >0 as `a` is fed before, with or after `b`. */
int vm_sync_feed_compare(const struct vm_sync_feed_event *a, const struct vm_sync_feed_event *b);

#endif /* VM_SYNC_FEED_ORDER_H */
