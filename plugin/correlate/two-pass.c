/*
 * The sync pass (pass 1): every upstream is read to its end; the machines,
 * the KVM entries that tell the host, and the vmsync and TCP messages are
 * noted; then every machine's clock is solved against the reference.
 *
 * The upstreams are read merged in time order (each machine's own clock),
 * and events of one timestamp are fed in a fixed order (machine name,
 * protocol, role, key), so the library sees the same sequence whatever the
 * graph form: "the first unmatched event of a key" and the hulls' history
 * are then always the same, and nothing is stored but the events of one
 * timestamp.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/choose.h"
#include "correlate/env.h"
#include "correlate/formula-range.h"
#include "correlate/inputs.h"
#include "correlate/machines.h"
#include "correlate/setup.h"
#include "correlate/sync-notes.h"
#include "correlate/two-pass.h"
#include "correlate/vcpu/vcpu-collect.h"
#include "correlate/vcpu/vcpu-solve.h"
#include "sync/segments.h"


static struct sync_head *head_at(struct correlate_iter *iter, guint index)
{
	return &g_array_index(iter->heads, struct sync_head, index);
}

/*
 * Gives an upstream a head: its next timed message. Messages without time
 * are noted on the way (they carry no sync event).
 */
static bt_message_iterator_class_next_method_status fill_head(struct correlate_iter *iter,
		guint index)
{
	struct sync_head *head = head_at(iter, index);

	while (!head->msg) {
		const bt_message *msg;
		enum upstream_status status = correlate_pull(iter, index, &msg, &head->time);

		if (status == UPSTREAM_END) {
			break;
		}

		if (status != UPSTREAM_OK) {
			return correlate_status_of(iter, status, index);
		}

		if (head->time.has_time) {
			head->msg = msg;
		} else {
			correlate_sync_note(iter, index, msg, &head->time);
			bt_message_put_ref(msg);
		}
	}

	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

static bt_message_iterator_class_next_method_status fill_heads(struct correlate_iter *iter)
{
	guint i;

	g_array_set_size(iter->heads, iter->upstreams->len);
	for (i = 0; i < iter->upstreams->len; i++) {
		bt_message_iterator_class_next_method_status status = fill_head(iter, i);

		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			return status;
		}
	}

	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/*
 * The upstream whose head is the earliest (the first one on ties), or -1
 * when all ended. Asked for every message, and which head wins changes
 * about every other time: conditional moves rather than branches.
 */
static int earliest_head(struct correlate_iter *iter)
{
	int earliest = -1;
	int64_t earliest_ns = 0;
	guint i;

	for (i = 0; i < iter->heads->len; i++) {
		struct sync_head *head = head_at(iter, i);
		bool take;

		if (!head->msg) {
			continue;
		}

		take = earliest < 0 || head->time.ns < earliest_ns;
		earliest_ns = take ? head->time.ns : earliest_ns;
		earliest = take ? (int) i : earliest;
	}

	return earliest;
}

static void solve(struct correlate_iter *iter)
{
	struct machine *reference = correlate_reference_machine(iter);
	struct vm_sync_result *by_vmsync = g_new0(struct vm_sync_result, iter->sync_count);
	struct vm_sync_result *by_tcp = g_new0(struct vm_sync_result, iter->sync_count);
	struct vcpu_solution by_vcpu;

	vm_sync_solve(iter->by_vmsync, iter->sync_index[reference->index], by_vmsync);
	vm_sync_solve(iter->by_tcp, iter->sync_index[reference->index], by_tcp);
	correlate_vcpu_solve(iter, reference, &by_vcpu);
	correlate_choose_results(iter, by_vmsync, &by_vcpu, by_tcp, reference, iter->sync_index);
	correlate_vcpu_solution_fini(&by_vcpu);
	g_free(by_tcp);
	g_free(by_vmsync);
}

/* Reads the upstreams merged in time order to their ends. */
static bt_message_iterator_class_next_method_status read_merged(struct correlate_iter *iter)
{
	/* After an AGAIN too: some heads may be missing. */
	bt_message_iterator_class_next_method_status status = fill_heads(iter);

	if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
		return status;
	}

	if (!iter->sync_ready && machine_table_count(iter->machines) > 0 &&
			!correlate_sync_prepare(iter)) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}

	for (;;) {
		int earliest = earliest_head(iter);
		struct sync_head *head;

		if (earliest < 0) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
		}

		head = head_at(iter, (guint) earliest);
		correlate_sync_note(iter, (guint) earliest, head->msg, &head->time);
		bt_message_put_ref(head->msg);
		head->msg = NULL;
		status = fill_head(iter, (guint) earliest);
		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			return status;
		}
	}
}

/* The pass guessed the host from event classes; its events may disagree. */
static bool host_guess_holds(struct correlate_iter *iter)
{
	struct machine *host = correlate_detect_host(iter);

	if (host == iter->sync_host) {
		return true;
	}

	CORRELATE_LOGI(iter->log_level, iter->name,
		"The host is `%s` after all (KVM entry events), not `%s` (event "
		"classes): reading the inputs again with the right reference.",
		host ? host->name : "(none)",
		iter->sync_host ? iter->sync_host->name : "(none)");
	return false;
}

void correlate_sync_pass_reset(struct correlate_iter *iter)
{
	for (guint i = 0; i < iter->heads->len; i++) {
		bt_message_put_ref(head_at(iter, i)->msg);
		head_at(iter, i)->msg = NULL;
	}

	correlate_sync_reset(iter);
}

bt_message_iterator_class_next_method_status correlate_sync_pass(
		struct correlate_iter *iter, bool *done)
{
	bt_message_iterator_class_next_method_status status = read_merged(iter);
	bool first_time = !iter->sync_pass_done;

	*done = false;
	if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
		return status;
	}

	iter->sync_pass_done = true;
	if (iter->sync_ready) {
		correlate_sync_flush(iter);
		if (first_time && !host_guess_holds(iter)) {
			/* Read again from the beginning, with the host the events tell. */
			correlate_sync_pass_reset(iter);
			iter->machines_final = false;
			return correlate_seek_upstreams(iter) ?
				BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK :
				BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}

		if (!correlate_finalize_machines(iter)) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}

		/* Known once the whole input is read: a late machine may be new. */
		if (!iter->keeps_time_base) {
			correlate_vcpu_finish(iter);
			solve(iter);
		}

		correlate_log_summary(iter);
		correlate_sync_pass_reset(iter);
		if (!correlate_check_formula_spans(iter)) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
	}

	*done = true;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}
