/*
 * The sync pass (pass 1): every upstream is read to its end; the machines,
 * the KVM entries that tell the host, and the vmsync and TCP messages are
 * noted; then every machine's clock is solved against the reference.
 */

#include <string.h>

#include "correlate/iterator.h"
#include "correlate/log.h"

#define ITER_ERROR(iter, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR((iter)->self, __VA_ARGS__)

static void note_machine(struct upstream_bound *bound, const struct machine *machine)
{
	if (machine->index < 64) {
		bound->machines |= UINT64_C(1) << machine->index;
	} else {
		bound->many_machines = true;
	}
}

static void note_event(struct correlate_iter *iter, const bt_message *msg,
		const struct msg_time *time, struct stream_state *state)
{
	struct sync_record record;
	bool missing_fields;
	enum sync_event_kind kind = sync_event_read(iter->reader,
		bt_message_event_borrow_event_const(msg), &record.message, &missing_fields);

	switch (kind) {
	case SYNC_EVENT_KVM_ENTRY:
		correlate_machine_info(iter, state->machine)->kvm_entries++;
		break;
	case SYNC_EVENT_MESSAGE:
		if (!time->has_time) {
			break;
		}

		record.ts = time->ns;
		record.machine = state->machine;
		g_array_append_val(iter->records, record);
		break;
	default:
		if (missing_fields && machine_warn_once(state->machine, WARN_MISSING_FIELDS)) {
			CORRELATE_LOGW(iter->log_level, iter->name,
				"Event `%s` of the trace with hostname `%s` lacks the fields "
				"that identify its message (vmsync: `vm_uid`, `cnt`; TCP: "
				"`seq`, `ack_seq`, `flags`): such events are not used to "
				"synchronize.",
				bt_event_class_get_name(bt_event_borrow_class_const(
					bt_message_event_borrow_event_const(msg))),
				state->machine->hostname);
		}

		break;
	}
}

/* The time span of a machine, where its formula matters most. */
static void note_span(struct machine_info *info, int64_t ns)
{
	if (!info->has_span || ns < info->first_ns) {
		info->first_ns = ns;
	}

	if (!info->has_span || ns > info->last_ns) {
		info->last_ns = ns;
	}

	info->has_span = true;
}

static void note_message(struct correlate_iter *iter, guint upstream_index,
		const bt_message *msg, const struct msg_time *time)
{
	struct stream_state *state;

	if (!time->stream) {
		return;
	}

	state = correlate_stream_state(iter, time->stream);
	if (time->has_time) {
		note_span(correlate_machine_info(iter, state->machine), time->ns);
	}

	note_machine(&g_array_index(iter->bounds, struct upstream_bound, upstream_index),
		state->machine);
	if (bt_message_get_type(msg) == BT_MESSAGE_TYPE_EVENT) {
		note_event(iter, msg, time, state);
	}
}

static int compare_keys(const struct vm_sync_key *a, const struct vm_sync_key *b)
{
	if (a->a != b->a) {
		return a->a < b->a ? -1 : 1;
	}

	if (a->b != b->b) {
		return a->b < b->b ? -1 : 1;
	}

	return a->c < b->c ? -1 : a->c > b->c;
}

/*
 * Time order, then an order that does not depend on how the graph is
 * built, so "the first unmatched event of a key" is always the same one.
 */
static gint compare_records(gconstpointer pa, gconstpointer pb)
{
	const struct sync_record *a = pa;
	const struct sync_record *b = pb;
	int diff;

	if (a->ts != b->ts) {
		return a->ts < b->ts ? -1 : 1;
	}

	diff = strcmp(a->machine->name, b->machine->name);
	if (diff) {
		return diff;
	}

	if (a->message.protocol != b->message.protocol) {
		return a->message.protocol < b->message.protocol ? -1 : 1;
	}

	if (a->message.role != b->message.role) {
		return a->message.role < b->message.role ? -1 : 1;
	}

	return compare_keys(&a->message.key, &b->message.key);
}

static struct machine *reference_machine(struct correlate_iter *iter)
{
	unsigned int i;

	for (i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);

		if (correlate_machine_info(iter, machine)->is_reference) {
			return machine;
		}
	}

	return NULL;
}

/*
 * Machines in the order the sync library sees them: the reference first,
 * then by name. A pair's hull fits t_other = a * t_ref + b with its lower
 * index as the ref side, so every pair with the reference is fitted from
 * the reference's side (as Trace Compass does), and nothing depends on the
 * order in which machines were met.
 */
static gint compare_sync_order(gconstpointer pa, gconstpointer pb, gpointer data)
{
	struct correlate_iter *iter = data;
	struct machine *a = *(struct machine * const *) pa;
	struct machine *b = *(struct machine * const *) pb;
	bool a_ref = correlate_machine_info(iter, a)->is_reference;
	bool b_ref = correlate_machine_info(iter, b)->is_reference;

	if (a_ref != b_ref) {
		return a_ref ? -1 : 1;
	}

	return strcmp(a->name, b->name);
}

/* sync_index[machine index] = the machine's index for the sync library. */
static unsigned int *make_sync_order(struct correlate_iter *iter)
{
	unsigned int count = machine_table_count(iter->machines);
	unsigned int *sync_index = g_new0(unsigned int, count);
	GPtrArray *order = g_ptr_array_new();
	unsigned int i;

	for (i = 0; i < count; i++) {
		g_ptr_array_add(order, machine_table_at(iter->machines, i));
	}

	g_ptr_array_sort_with_data(order, compare_sync_order, iter);
	for (i = 0; i < count; i++) {
		sync_index[((struct machine *) g_ptr_array_index(order, i))->index] = i;
	}

	g_ptr_array_free(order, TRUE);
	return sync_index;
}

static void feed(struct correlate_iter *iter, struct vm_sync *sync, unsigned int protocol,
		const unsigned int *sync_index)
{
	guint i;

	for (i = 0; i < iter->records->len; i++) {
		const struct sync_record *record =
			&g_array_index(iter->records, struct sync_record, i);

		if (record->message.protocol == protocol) {
			vm_sync_add_event(sync, protocol, &record->message.key,
				record->message.role, sync_index[record->machine->index],
				record->ts);
		}
	}
}

static bool method_allows(enum correlate_sync_method wanted, enum correlate_sync_method method)
{
	return wanted == CORRELATE_SYNC_AUTO || wanted == method;
}

static void take_result(struct machine_info *info, const struct vm_sync_result *result,
		const char *method)
{
	info->formula = result->formula;
	info->quality = result->quality;
	info->accuracy = result->accuracy;
	info->matches = result->matches;
	info->method = method;
}

static void warn_no_sync(struct correlate_iter *iter, struct machine *machine,
		const struct machine *reference)
{
	if (!machine_warn_once(machine, WARN_NO_SYNC)) {
		return;
	}

	CORRELATE_LOGW(iter->log_level, iter->name,
		"Machine `%s` has no synchronization pair with the reference `%s` "
		"(sync=\"%s\": no vmsync or TCP message matched between them, "
		"directly or through other machines): its times stay on its own "
		"clock (vm_sync_quality `absent`). Trace the vmsync or TCP events "
		"on both machines, or pass transforms={%s={slope=S,offset-ns=O}}.",
		machine->name, reference->name,
		correlate_sync_method_name(iter->comp->params.sync), machine->name);
}

/* Each machine's formula: vmsync when it reaches the reference, else TCP. */
static void choose_results(struct correlate_iter *iter, const struct vm_sync_result *by_vmsync,
		const struct vm_sync_result *by_tcp, const struct machine *reference,
		const unsigned int *sync_index)
{
	enum correlate_sync_method wanted = iter->comp->params.sync;
	unsigned int i;

	for (i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		struct machine_info *info = correlate_machine_info(iter, machine);

		/* A clockless machine has nothing to synchronize (already warned). */
		if (info->is_reference || !machine->has_clock ||
				g_hash_table_contains(iter->comp->params.transforms, machine->name)) {
			continue;
		}

		if (method_allows(wanted, CORRELATE_SYNC_VMSYNC) &&
				by_vmsync[sync_index[i]].parent >= 0) {
			take_result(info, &by_vmsync[sync_index[i]], "vmsync");
		} else if (method_allows(wanted, CORRELATE_SYNC_TCP) &&
				by_tcp[sync_index[i]].parent >= 0) {
			take_result(info, &by_tcp[sync_index[i]], "tcp");
		} else {
			warn_no_sync(iter, machine, reference);
		}
	}
}

static void solve(struct correlate_iter *iter)
{
	unsigned int count = machine_table_count(iter->machines);
	struct machine *reference = reference_machine(iter);
	struct vm_sync *vmsync = vm_sync_create(count);
	struct vm_sync *tcp = vm_sync_create(count);
	struct vm_sync_result *by_vmsync = g_new0(struct vm_sync_result, count);
	struct vm_sync_result *by_tcp = g_new0(struct vm_sync_result, count);
	unsigned int *sync_index = make_sync_order(iter);

	g_array_sort(iter->records, compare_records);
	feed(iter, vmsync, SYNC_PROTOCOL_VMSYNC, sync_index);
	feed(iter, tcp, SYNC_PROTOCOL_TCP, sync_index);
	vm_sync_solve(vmsync, sync_index[reference->index], by_vmsync);
	vm_sync_solve(tcp, sync_index[reference->index], by_tcp);
	choose_results(iter, by_vmsync, by_tcp, reference, sync_index);
	g_free(sync_index);
	g_free(by_tcp);
	g_free(by_vmsync);
	vm_sync_destroy(tcp);
	vm_sync_destroy(vmsync);

	/* The events are not needed any more. */
	g_array_set_size(iter->records, 0);
}

/* Reads every upstream to its end. */
static bt_message_iterator_class_next_method_status read_all(struct correlate_iter *iter)
{
	guint i;

	for (i = 0; i < iter->upstreams->len; i++) {
		struct upstream *upstream = &g_array_index(iter->upstreams, struct upstream, i);

		for (;;) {
			const bt_message *msg;
			struct msg_time time;
			bool repaired;

			switch (upstream_next(upstream, iter->self, &msg, &time, &repaired)) {
			case UPSTREAM_OK:
				note_message(iter, i, msg, &time);
				bt_message_put_ref(msg);
				continue;
			case UPSTREAM_END:
				break;
			case UPSTREAM_AGAIN:
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
			case UPSTREAM_MEMORY_ERROR:
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
			default:
				ITER_ERROR(iter, "Cannot read upstream message iterator #%u "
					"during the synchronization pass.", i);
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
			}

			break;
		}
	}

	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

bt_message_iterator_class_next_method_status correlate_sync_pass(
		struct correlate_iter *iter)
{
	bt_message_iterator_class_next_method_status status = read_all(iter);

	if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
		return status;
	}

	iter->sync_pass_done = true;
	if (machine_table_count(iter->machines) > 0) {
		if (!correlate_finalize_machines(iter)) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}

		solve(iter);
		correlate_log_summary(iter);
	}

	if (!correlate_seek_upstreams(iter)) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}

	correlate_merge_reset(iter);
	iter->phase = PHASE_MERGE;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}
