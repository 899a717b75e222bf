#ifndef VM_CORRELATE_STRATEGY_H
#define VM_CORRELATE_STRATEGY_H

/*
 * How filter.vm.correlate reads its inputs once the machines are known:
 * with maps fixed before the merge (`transforms`, sync="none", or after
 * the sync pass: fixed-maps.c) or learning them as it reads
 * (read-once.c). The merge (merge.c) asks a strategy only for its floors;
 * the driver (drive.c) calls the rest. No strategy calls another.
 */

#include "correlate/context.h"

struct correlate_strategy {
	const char *name;
	/* Whether it learns the maps as it reads (else they are fixed before). */
	bool learns_maps;
	/*
	 * Whether the merge keeps each upstream's lower bound as messages go
	 * in (the maps are fixed: a message's converted time bounds what
	 * follows it).
	 */
	bool merge_keeps_bounds;
	/* The machines are settled: takes the messages that `pending` holds. */
	bt_message_iterator_class_next_method_status (*start)(struct correlate_iter *iter);
	/* Reads one message into the merge; `*ended` once every input ended. */
	bt_message_iterator_class_next_method_status (*read)(struct correlate_iter *iter,
		bool *ended);
	/* The least converted time upstream `index` (not ended) can still give. */
	int64_t (*floor)(struct correlate_iter *iter, guint index);
	/* The least converted time of what the strategy holds back; false: nothing held. */
	bool (*held_floor)(struct correlate_iter *iter, int64_t *floor);
	/* Every input ended: lets out what it holds. */
	bt_message_iterator_class_next_method_status (*finish)(struct correlate_iter *iter);
	/* Forgets what it learnt (a seek, or the sync pass taking over). */
	void (*reset)(struct correlate_iter *iter);
};

extern const struct correlate_strategy correlate_fixed_maps;
extern const struct correlate_strategy correlate_read_once;

/* Whether the inputs are read once, the maps learnt as they are read. */
static inline bool correlate_reads_once(const struct correlate_iter *iter)
{
	return iter->strategy && iter->strategy->learns_maps;
}

#endif /* VM_CORRELATE_STRATEGY_H */
