/* A machine's whole clock map: see map.h. */

#include "sync/map.h"

void vm_sync_map_init(struct vm_sync_map *map, const struct vm_sync_formula *formula)
{
	map->formula = *formula;
	map->segments = NULL;
	map->cursor = 0;
	map->online = NULL;
}

void vm_sync_map_set_online(struct vm_sync_map *map, const struct vm_sync_online *online)
{
	unsigned int count;

	vm_sync_map_set_formula(map, &vm_sync_online_map(online, &count)[0].formula);
	map->online = online;
}

unsigned int vm_sync_map_segment_count(const struct vm_sync_map *map)
{
	unsigned int count;

	if (map->online) {
		vm_sync_online_map(map->online, &count);
		return count;
	}
	return map->segments ? map->segments->len : 1;
}

void vm_sync_map_fini(struct vm_sync_map *map)
{
	if (map->segments) {
		g_array_free(map->segments, TRUE);
	}
	map->segments = NULL;
	map->cursor = 0;
	map->online = NULL;
}

void vm_sync_map_set_formula(struct vm_sync_map *map, const struct vm_sync_formula *formula)
{
	vm_sync_map_fini(map);
	vm_sync_map_init(map, formula);
}

void vm_sync_map_set_segments(struct vm_sync_map *map,
		const struct vm_sync_segment *segments, unsigned int count)
{
	vm_sync_map_set_formula(map, &segments[0].formula);
	if (count < 2) {
		return;
	}
	map->segments = g_array_sized_new(FALSE, FALSE, sizeof(struct vm_sync_segment), count);
	g_array_append_vals(map->segments, segments, count);
	/* Whatever the first one's begin was, it applies before it too. */
	g_array_index(map->segments, struct vm_sync_segment, 0).begin = INT64_MIN;
}

const struct vm_sync_segment *vm_sync_map_segment(const struct vm_sync_map *map,
		unsigned int index)
{
	unsigned int count;

	if (map->online) {
		const struct vm_sync_segment *segments = vm_sync_online_map(map->online, &count);

		return index < count && count > 1 ? &segments[index] : NULL;
	}
	if (!map->segments || index >= map->segments->len) {
		return NULL;
	}
	return &g_array_index(map->segments, struct vm_sync_segment, index);
}

static guint segment_index(const GArray *segments, int64_t t)
{
	guint low = 0;
	guint high = segments->len - 1;

	/* The last segment that begins at or before t. */
	while (low < high) {
		guint mid = low + (high - low + 1) / 2;

		if (g_array_index(segments, struct vm_sync_segment, mid).begin <= t) {
			low = mid;
		} else {
			high = mid - 1;
		}
	}
	return low;
}

const struct vm_sync_formula *vm_sync_map_formula_at(const struct vm_sync_map *map,
		int64_t t)
{
	if (map->online) {
		return vm_sync_online_formula_at(map->online, t);
	}
	if (!map->segments) {
		return &map->formula;
	}
	return &g_array_index(map->segments, struct vm_sync_segment,
		segment_index(map->segments, t)).formula;
}

const struct vm_sync_formula *vm_sync_map_formula_near(struct vm_sync_map *map, int64_t t)
{
	const struct vm_sync_segment *at;
	guint next = map->cursor + 1;

	if (map->online) {
		return vm_sync_online_formula_at(map->online, t);
	}
	if (!map->segments) {
		return &map->formula;
	}
	at = &g_array_index(map->segments, struct vm_sync_segment, map->cursor);
	if (at->begin > t || (next < map->segments->len &&
			g_array_index(map->segments, struct vm_sync_segment, next).begin <= t)) {
		map->cursor = segment_index(map->segments, t);
		at = &g_array_index(map->segments, struct vm_sync_segment, map->cursor);
	}
	return &at->formula;
}
