/*
 * Matching of one-way messages: per protocol and key, the first unmatched
 * send and the first unmatched receive recorded on two different machines
 * form one match. Events that find no partner wait in arrival order, so a
 * duplicate key (a retransmission, a counter that wrapped) waits for a
 * partner of its own instead of replacing the first one.
 */
#include "sync/online.h"
#include "sync/segments.h"
#include "sync/sync-private.h"

struct unmatched_event {
	enum vm_sync_role role;
	unsigned int machine;
	int64_t ts;
};

static guint key_hash(gconstpointer data)
{
	const struct vm_sync_key *key = data;
	guint64 mixed = key->a * G_GUINT64_CONSTANT(0x9e3779b97f4a7c15);

	mixed = (mixed ^ key->b) * G_GUINT64_CONSTANT(0xbf58476d1ce4e5b9);
	mixed = (mixed ^ key->c) * G_GUINT64_CONSTANT(0x94d049bb133111eb);
	return (guint) (mixed ^ (mixed >> 32));
}

static gboolean key_equal(gconstpointer left, gconstpointer right)
{
	const struct vm_sync_key *k1 = left;
	const struct vm_sync_key *k2 = right;

	return k1->a == k2->a && k1->b == k2->b && k1->c == k2->c;
}

static void free_queue(gpointer queue)
{
	g_queue_free_full(queue, g_free);
}

static GHashTable *unmatched_table_new(void)
{
	/* key (struct vm_sync_key *) -> GQueue of struct unmatched_event * */
	return g_hash_table_new_full(key_hash, key_equal, g_free, free_queue);
}

static GHashTable *table_of(struct vm_sync *sync, unsigned int protocol)
{
	GHashTable *table = g_hash_table_lookup(sync->unmatched, GUINT_TO_POINTER(protocol));

	if (!table) {
		table = unmatched_table_new();
		g_hash_table_insert(sync->unmatched, GUINT_TO_POINTER(protocol), table);
	}
	return table;
}

/* The first waiting event that pairs with (role, machine), NULL if none. */
static GList *find_partner(GQueue *waiting, enum vm_sync_role role, unsigned int machine)
{
	for (GList *link = waiting->head; link; link = link->next) {
		const struct unmatched_event *event = link->data;

		if (event->role != role && event->machine != machine) {
			return link;
		}
	}
	return NULL;
}

void vm_sync_add_matched(struct vm_sync *sync, unsigned int sender, int64_t send_ts,
		unsigned int receiver, int64_t recv_ts)
{
	struct vm_sync_hull *hull;
	struct vm_sync_segments *segments;
	struct vm_sync_online *online;

	if (sender == receiver || sender >= sync->machine_count ||
			receiver >= sync->machine_count) {
		return;
	}
	hull = vm_sync_pair_hull_get(sync, sender, receiver);
	online = vm_sync_pair_online(sync, sender, receiver);
	if (online) {
		/* Read once: the online map's windows are the only fit needed. */
		vm_sync_online_add(online, sender < receiver,
			sender < receiver ? send_ts : recv_ts,
			sender < receiver ? recv_ts : send_ts);
		return;
	}
	/* The pair's ref side is its lower machine index. */
	vm_sync_hull_add_match(hull, sender < receiver, send_ts, recv_ts);
	segments = vm_sync_pair_segments(sync, sender, receiver);
	if (segments) {
		vm_sync_segments_add(segments, sender < receiver,
			sender < receiver ? send_ts : recv_ts,
			sender < receiver ? recv_ts : send_ts);
	}
}

static void record_match(struct vm_sync *sync, const struct unmatched_event *send,
		const struct unmatched_event *receive)
{
	vm_sync_add_matched(sync, send->machine, send->ts, receive->machine, receive->ts);
}

static struct vm_sync_key *copy_key(const struct vm_sync_key *key)
{
	struct vm_sync_key *copy = g_new(struct vm_sync_key, 1);

	*copy = *key;
	return copy;
}

static struct unmatched_event *copy_event(const struct unmatched_event *event)
{
	struct unmatched_event *copy = g_new(struct unmatched_event, 1);

	*copy = *event;
	return copy;
}

static void wait_for_partner(GHashTable *table, GQueue *waiting,
		const struct vm_sync_key *key, const struct unmatched_event *event)
{
	if (!waiting) {
		waiting = g_queue_new();
		g_hash_table_insert(table, copy_key(key), waiting);
	}
	g_queue_push_tail(waiting, copy_event(event));
}

void vm_sync_add_event(struct vm_sync *sync, unsigned int protocol,
		const struct vm_sync_key *key, enum vm_sync_role role,
		unsigned int machine, int64_t ts)
{
	GHashTable *table;
	GQueue *waiting;
	GList *partner_link = NULL;
	struct unmatched_event event = { role, machine, ts };

	if (machine >= sync->machine_count) {
		return;
	}
	table = table_of(sync, protocol);
	waiting = g_hash_table_lookup(table, key);
	if (waiting) {
		partner_link = find_partner(waiting, role, machine);
	}
	if (!partner_link) {
		wait_for_partner(table, waiting, key, &event);
		return;
	}

	struct unmatched_event *partner = partner_link->data;

	if (role == VM_SYNC_SEND) {
		record_match(sync, &event, partner);
	} else {
		record_match(sync, partner, &event);
	}
	g_queue_delete_link(waiting, partner_link);
	g_free(partner);
	if (g_queue_is_empty(waiting)) {
		g_hash_table_remove(table, key);
	}
}
