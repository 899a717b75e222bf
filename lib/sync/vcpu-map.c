/*
 * The guest -> host map the vCPU fit attributes events under: one line, or
 * the segments of a piecewise map, each prepared once (a fit applies it to
 * every guest event, several times).
 */

#include "sync/vcpu-align-private.h"

static void add_piece(struct vm_vcpu_map *map, int64_t begin,
		const struct vm_sync_formula *formula)
{
	struct vm_vcpu_piece piece = { .begin = begin };

	vm_sync_formula_prepare(formula, &piece.prepared);
	piece.inverse = vm_sync_formula_invert(formula);
	piece.host_begin = begin == INT64_MIN ? INT64_MIN :
		vm_sync_prepared_apply(&piece.prepared, begin);
	g_array_append_val(map->pieces, piece);
}

void vm_vcpu_map_init_line(struct vm_vcpu_map *map, const struct vm_sync_formula *formula)
{
	map->pieces = g_array_sized_new(FALSE, FALSE, sizeof(struct vm_vcpu_piece), 1);
	map->cursor = 0;
	add_piece(map, INT64_MIN, formula);
}

void vm_vcpu_map_init_segments(struct vm_vcpu_map *map,
		const struct vm_sync_segment *segments, unsigned int count)
{
	map->pieces = g_array_sized_new(FALSE, FALSE, sizeof(struct vm_vcpu_piece), count);
	map->cursor = 0;
	for (unsigned int i = 0; i < count; i++) {
		add_piece(map, i == 0 ? INT64_MIN : segments[i].begin, &segments[i].formula);
	}
}

void vm_vcpu_map_fini(struct vm_vcpu_map *map)
{
	g_array_free(map->pieces, TRUE);
	map->pieces = NULL;
}

static const struct vm_vcpu_piece *piece_at(const struct vm_vcpu_map *map, guint i)
{
	return &g_array_index(map->pieces, struct vm_vcpu_piece, i);
}

/* The last piece that begins at or before guest time `t`. */
static guint piece_index(const struct vm_vcpu_map *map, int64_t t)
{
	guint low = 0, high = map->pieces->len - 1;

	while (low < high) {
		guint mid = low + (high - low + 1) / 2;

		if (piece_at(map, mid)->begin <= t) {
			low = mid;
		} else {
			high = mid - 1;
		}
	}
	return low;
}

int64_t vm_vcpu_map_apply(struct vm_vcpu_map *map, int64_t t)
{
	guint next = map->cursor + 1;

	/* Events come in time order: mostly the piece of the last one, or the next. */
	if (map->pieces->len > 1 && (piece_at(map, map->cursor)->begin > t ||
			(next < map->pieces->len && piece_at(map, next)->begin <= t))) {
		if (next < map->pieces->len && piece_at(map, next)->begin <= t &&
				(next + 1 == map->pieces->len ||
					piece_at(map, next + 1)->begin > t)) {
			map->cursor = next;
		} else {
			map->cursor = piece_index(map, t);
		}
	}
	return vm_sync_prepared_apply(&piece_at(map, map->cursor)->prepared, t);
}

int64_t vm_vcpu_map_invert(const struct vm_vcpu_map *map, int64_t h)
{
	guint low = 0, high = map->pieces->len - 1;

	/* The map increases: the last piece whose image begins at or before h. */
	while (low < high) {
		guint mid = low + (high - low + 1) / 2;

		if (piece_at(map, mid)->host_begin <= h) {
			low = mid;
		} else {
			high = mid - 1;
		}
	}
	return vm_sync_formula_apply(&piece_at(map, low)->inverse, h);
}

unsigned int vm_vcpu_map_piece_count(const struct vm_vcpu_map *map)
{
	return map->pieces->len;
}
