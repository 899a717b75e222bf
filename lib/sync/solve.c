/*
 * Every machine against one reference: a breadth-first search from the
 * reference over the pairs that have matches gives each reachable machine a
 * path with the fewest hops (neighbours visited by increasing machine index,
 * so ties always resolve the same way); the pair formulas compose along it.
 */
#include "sync/sync-private.h"
#include "sync/quality.h"

static void reset_result(struct vm_sync_result *result)
{
	result->formula = vm_sync_formula_identity();
	result->quality = VM_SYNC_ABSENT;
	result->accuracy = 0.0L;
	result->matches = 0;
	result->parent = -1;
	result->segments = NULL;
}

/* The map child clock -> parent clock given by the pair's hull. */
static struct vm_sync_formula child_to_parent(const struct vm_sync_hull *hull,
		unsigned int parent, unsigned int child)
{
	/* The hull maps its other side (higher index) to its ref side. */
	struct vm_sync_formula other_to_ref = vm_sync_hull_formula(hull);

	if (parent < child) {
		return other_to_ref;
	}
	return vm_sync_formula_invert(&other_to_ref);
}

static void attach(const struct vm_sync *sync, struct vm_sync_result *results,
		unsigned int parent, unsigned int child, unsigned int reference)
{
	const struct vm_sync_hull *hull = vm_sync_pair_hull(sync, parent, child);
	struct vm_sync_formula to_parent = child_to_parent(hull, parent, child);
	struct vm_sync_result *result = &results[child];
	enum vm_sync_quality pair_quality = vm_sync_hull_quality(hull);

	result->formula = vm_sync_formula_compose(&results[parent].formula, &to_parent);
	result->quality = parent == reference ? pair_quality :
		vm_sync_quality_worst(results[parent].quality, pair_quality);
	result->accuracy = vm_sync_hull_accuracy(hull);
	result->matches = vm_sync_hull_matches(hull);
	result->parent = (int) parent;
	result->segments = parent == reference && parent < child ?
		vm_sync_pair_segments(sync, parent, child) : NULL;
}

void vm_sync_solve(const struct vm_sync *sync, unsigned int reference,
		struct vm_sync_result *results)
{
	unsigned int count = sync->machine_count;
	GQueue frontier = G_QUEUE_INIT;
	gboolean *reached;

	for (unsigned int m = 0; m < count; m++) {
		reset_result(&results[m]);
	}
	if (reference >= count) {
		return;
	}

	reached = g_new0(gboolean, count);
	reached[reference] = TRUE;
	g_queue_push_tail(&frontier, GUINT_TO_POINTER(reference));
	while (!g_queue_is_empty(&frontier)) {
		unsigned int parent = GPOINTER_TO_UINT(g_queue_pop_head(&frontier));

		for (unsigned int child = 0; child < count; child++) {
			if (reached[child] || !vm_sync_has_matches(sync, parent, child)) {
				continue;
			}
			reached[child] = TRUE;
			attach(sync, results, parent, child, reference);
			g_queue_push_tail(&frontier, GUINT_TO_POINTER(child));
		}
	}
	g_free(reached);
}
