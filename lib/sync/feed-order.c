/* The order of the sync library's events (feed-order.h). */

#include <string.h>

#include "sync/feed-order.h"

static int compare_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int compare_keys(const struct vm_sync_key *a, const struct vm_sync_key *b)
{
	int diff = compare_u64(a->a, b->a);

	if (diff == 0) {
		diff = compare_u64(a->b, b->b);
	}

	return diff ? diff : compare_u64(a->c, b->c);
}

int vm_sync_feed_compare(const struct vm_sync_feed_event *a, const struct vm_sync_feed_event *b)
{
	int diff;

	if (a->ts != b->ts) {
		return a->ts < b->ts ? -1 : 1;
	}

	diff = strcmp(a->machine, b->machine);
	if (diff) {
		return diff;
	}

	if (a->protocol != b->protocol) {
		return a->protocol < b->protocol ? -1 : 1;
	}

	if (a->role != b->role) {
		return a->role < b->role ? -1 : 1;
	}

	return compare_keys(&a->key, &b->key);
}
