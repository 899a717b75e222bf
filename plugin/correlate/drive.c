/*
 * The next method of filter.vm.correlate: one function per state
 * (context.h lists them), one switch in correlate_drive_next(). The
 * parts it drives: the inputs (inputs.c), the machines (setup.c), the
 * sync pass (two-pass.c), a strategy that reads (strategy.h) and the
 * merge that releases (merge.c).
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/drive.h"
#include "correlate/env.h"
#include "correlate/host-ahead.h"
#include "correlate/inputs.h"
#include "correlate/merge.h"
#include "correlate/setup.h"
#include "correlate/strategy.h"
#include "correlate/sync-stream-queue.h"
#include "correlate/two-pass.h"

typedef bt_message_iterator_class_next_method_status next_status;

#define NEXT_OK BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK
#define NEXT_ERROR BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR
#define NEXT_AGAIN BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN
#define NEXT_END BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END

/* A failed call returns no message: those already released are put. */
static next_status fail(next_status status, bt_message_array_const msgs, uint64_t *count)
{
	uint64_t i;

	for (i = 0; i < *count; i++) {
		bt_message_put_ref(msgs[i]);
	}

	*count = 0;
	return status;
}

/* The sync pass, from the beginning of the inputs. */
static next_status start_sync_pass(struct correlate_iter *iter)
{
	if (!iter->can_seek) {
		ITER_ERROR(iter, "Parameter `transforms` gives no formula for some "
			"machines, so filter.vm.correlate must read its inputs twice, "
			"but an upstream cannot seek to its beginning: give a formula "
			"for every machine but the reference, or pass `sync=\"none\"`.");
		return NEXT_ERROR;
	}

	iter->machines_final = false;
	iter->state = CORRELATE_STATE_SYNC_PASS;
	if (!correlate_seek_upstreams(iter)) {
		return NEXT_ERROR;
	}

	correlate_merge_reset(iter);
	return NEXT_OK;
}

/* The strategy reads and the merge releases; the vm:sync events of fixed maps go in first. */
static void enter_read(struct correlate_iter *iter)
{
	iter->state = CORRELATE_STATE_READ;
	iter->sync_events_queued = false;
}

/*
 * SETTLE: every upstream showed a time (and, read once, the host is
 * known): the machines are final, and the strategy takes what was read.
 */
static next_status settle(struct correlate_iter *iter)
{
	next_status status = correlate_inputs_prime(iter);

	if (status == NEXT_OK && correlate_reads_once(iter)) {
		status = correlate_read_ahead_for_host(iter);
	}

	if (status != NEXT_OK) {
		return status;
	}

	if (!correlate_finalize_machines(iter)) {
		return NEXT_ERROR;
	}

	if (correlate_reads_once(iter) && correlate_transforms_cover_all(iter)) {
		/* Nothing to learn: the merge of the given formulas. */
		iter->strategy = &correlate_fixed_maps;
	}

	if (!correlate_reads_once(iter) && iter->comp->params.sync != CORRELATE_SYNC_NONE &&
			!correlate_transforms_cover_all(iter)) {
		return start_sync_pass(iter);
	}

	if (!correlate_reads_once(iter)) {
		correlate_log_summary(iter);
	}

	status = iter->strategy->start(iter);
	if (status == NEXT_OK) {
		enter_read(iter);
	}

	return status;
}

/* SYNC_PASS: read to the end, then from the beginning again with the maps. */
static next_status sync_pass(struct correlate_iter *iter)
{
	bool done;
	next_status status = correlate_sync_pass(iter, &done);

	if (status != NEXT_OK || !done) {
		return status;
	}

	if (!correlate_seek_upstreams(iter)) {
		return NEXT_ERROR;
	}

	correlate_merge_reset(iter);
	if (iter->machines_final) {
		enter_read(iter);
	} else {
		/* Nothing was read (no machine): settle on what comes. */
		iter->state = CORRELATE_STATE_SETTLE;
	}

	return NEXT_OK;
}

/* READ_AGAIN: read once gave up on a machine; the sync pass reads from the beginning. */
static next_status read_again(struct correlate_iter *iter)
{
	iter->strategy->reset(iter);
	correlate_host_ahead_reset(iter);
	iter->strategy = &correlate_fixed_maps;
	return start_sync_pass(iter);
}

/* READ: one message read, or the inputs' end (the strategy lets out what it holds). */
static next_status read_one(struct correlate_iter *iter)
{
	bool ended = false;
	next_status status = iter->strategy->read(iter, &ended);

	if (status != NEXT_OK || !ended || iter->state != CORRELATE_STATE_READ) {
		return status;
	}

	iter->state = CORRELATE_STATE_ENDING;
	iter->bound_valid = false;
	return iter->strategy->finish(iter);
}

/* ENDING: the buffer is drained (the bound is open); the vm:sync stream ends last. */
static next_status end_sync_stream(struct correlate_iter *iter)
{
	if (sync_stream_is_open(iter->sync_stream)) {
		return correlate_end_sync_events(iter) ? NEXT_OK : NEXT_ERROR;
	}

	iter->state = CORRELATE_STATE_ENDED;
	return NEXT_OK;
}

/* READ and ENDING: messages released as the bound allows, reading on as needed. */
static next_status read_and_release(struct correlate_iter *iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count)
{
	next_status status = NEXT_OK;

	if (!iter->sync_events_queued) {
		iter->sync_events_queued = true;
		if (!correlate_queue_sync_events(iter)) {
			return NEXT_ERROR;
		}
	}

	while (*count < capacity && status == NEXT_OK) {
		if (!iter->bound_valid) {
			correlate_merge_compute_bound(iter);
		}

		if (correlate_merge_can_release(iter)) {
			status = correlate_merge_release(iter, msgs, count);
		} else if (iter->state == CORRELATE_STATE_READ) {
			status = read_one(iter);
			if (iter->state == CORRELATE_STATE_READ_AGAIN) {
				/* Nothing left yet (read-once.c): no message was released. */
				break;
			}
		} else if (iter->state == CORRELATE_STATE_ENDING) {
			/* Nothing can come before what is left: it all leaves. */
			status = reorder_is_empty(iter->reorder) ? end_sync_stream(iter) :
				correlate_merge_release(iter, msgs, count);
		} else {
			break;
		}
	}

	if (status == NEXT_AGAIN && *count > 0) {
		return NEXT_OK;
	}

	return status == NEXT_OK ? NEXT_OK : fail(status, msgs, count);
}

bt_message_iterator_class_next_method_status correlate_drive_next(
		struct correlate_iter *iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count)
{
	next_status status = NEXT_OK;

	*count = 0;
	while (status == NEXT_OK && *count == 0) {
		switch (iter->state) {
		case CORRELATE_STATE_SETTLE:
			status = settle(iter);
			break;
		case CORRELATE_STATE_SYNC_PASS:
			status = sync_pass(iter);
			break;
		case CORRELATE_STATE_READ_AGAIN:
			status = read_again(iter);
			break;
		case CORRELATE_STATE_READ:
		case CORRELATE_STATE_ENDING:
			status = read_and_release(iter, msgs, capacity, count);
			break;
		case CORRELATE_STATE_ENDED:
			return NEXT_END;
		}
	}

	return status;
}

void correlate_drive_reset(struct correlate_iter *iter)
{
	correlate_merge_reset(iter);
	/* Read once may have counted ahead for the host, then found nothing to learn. */
	correlate_host_ahead_reset(iter);
	if (correlate_reads_once(iter)) {
		/* Learnt again from the beginning: the machines too. */
		iter->strategy->reset(iter);
		iter->machines_final = false;
	}

	if (iter->state == CORRELATE_STATE_SYNC_PASS) {
		/* The sync pass is not redone once its results are known. */
		correlate_sync_pass_reset(iter);
	} else if (iter->machines_final) {
		enter_read(iter);
	} else {
		iter->state = CORRELATE_STATE_SETTLE;
	}
}
