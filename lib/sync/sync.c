/* Lifetime of the matching/solving state and its per-pair hulls. */
#include "sync/online.h"
#include "sync/segments.h"
#include "sync/sync-private.h"

static void destroy_hull(gpointer hull)
{
	vm_sync_hull_destroy(hull);
}

struct vm_sync *vm_sync_create(unsigned int machine_count)
{
	struct vm_sync *sync = g_new0(struct vm_sync, 1);
	guint slots = machine_count * machine_count;

	sync->machine_count = machine_count;
	sync->hulls = g_ptr_array_new_full(slots, destroy_hull);
	g_ptr_array_set_size(sync->hulls, (gint) slots);
	sync->unmatched = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		NULL, (GDestroyNotify) g_hash_table_destroy);
	return sync;
}

void vm_sync_keep_piecewise(struct vm_sync *sync)
{
	guint slots = sync->machine_count * sync->machine_count;

	if (sync->segments) {
		return;
	}
	sync->segments = g_ptr_array_new_full(slots,
		(GDestroyNotify) vm_sync_segments_destroy);
	g_ptr_array_set_size(sync->segments, (gint) slots);
}

void vm_sync_keep_online(struct vm_sync *sync)
{
	guint slots = sync->machine_count * sync->machine_count;

	if (sync->online) {
		return;
	}
	sync->online = g_ptr_array_new_full(slots, (GDestroyNotify) vm_sync_online_destroy);
	g_ptr_array_set_size(sync->online, (gint) slots);
}

void vm_sync_destroy(struct vm_sync *sync)
{
	if (!sync) {
		return;
	}
	g_ptr_array_free(sync->hulls, TRUE);
	if (sync->segments) {
		g_ptr_array_free(sync->segments, TRUE);
	}
	if (sync->online) {
		g_ptr_array_free(sync->online, TRUE);
	}
	g_hash_table_destroy(sync->unmatched);
	g_free(sync);
}

static guint pair_index(const struct vm_sync *sync, unsigned int x, unsigned int y)
{
	unsigned int low = MIN(x, y);
	unsigned int high = MAX(x, y);

	return low * sync->machine_count + high;
}

static bool valid_pair(const struct vm_sync *sync, unsigned int x, unsigned int y)
{
	return x != y && x < sync->machine_count && y < sync->machine_count;
}

struct vm_sync_hull *vm_sync_pair_hull(const struct vm_sync *sync,
		unsigned int x, unsigned int y)
{
	if (!valid_pair(sync, x, y)) {
		return NULL;
	}
	return g_ptr_array_index(sync->hulls, pair_index(sync, x, y));
}

struct vm_sync_hull *vm_sync_pair_hull_get(struct vm_sync *sync,
		unsigned int x, unsigned int y)
{
	struct vm_sync_hull *hull = vm_sync_pair_hull(sync, x, y);

	if (!hull && valid_pair(sync, x, y)) {
		hull = vm_sync_hull_create();
		g_ptr_array_index(sync->hulls, pair_index(sync, x, y)) = hull;
		if (sync->segments) {
			g_ptr_array_index(sync->segments, pair_index(sync, x, y)) =
				vm_sync_segments_create();
		}
		if (sync->online) {
			g_ptr_array_index(sync->online, pair_index(sync, x, y)) =
				vm_sync_online_create();
		}
	}
	return hull;
}

struct vm_sync_online *vm_sync_pair_online(const struct vm_sync *sync,
		unsigned int x, unsigned int y)
{
	if (!sync->online || !valid_pair(sync, x, y)) {
		return NULL;
	}
	return g_ptr_array_index(sync->online, pair_index(sync, x, y));
}

struct vm_sync_segments *vm_sync_pair_segments(const struct vm_sync *sync,
		unsigned int x, unsigned int y)
{
	if (!sync->segments || !valid_pair(sync, x, y)) {
		return NULL;
	}
	return g_ptr_array_index(sync->segments, pair_index(sync, x, y));
}

bool vm_sync_has_matches(const struct vm_sync *sync, unsigned int x, unsigned int y)
{
	const struct vm_sync_hull *hull = vm_sync_pair_hull(sync, x, y);

	return hull && vm_sync_hull_matches(hull) > 0;
}

bool vm_sync_has_line(const struct vm_sync *sync, unsigned int x, unsigned int y)
{
	const struct vm_sync_hull *hull = vm_sync_pair_hull(sync, x, y);
	enum vm_sync_quality quality = hull ? vm_sync_hull_quality(hull) : VM_SYNC_ABSENT;

	return quality != VM_SYNC_ABSENT && quality != VM_SYNC_INCOMPLETE;
}

struct vm_sync_online *vm_sync_online_of(const struct vm_sync *sync, unsigned int x,
		unsigned int y)
{
	return vm_sync_pair_online(sync, x, y);
}
