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

#include "correlate/vcpu-solve.h"
#include "correlate/formula-range.h"
#include "correlate/iterator.h"
#include "correlate/vcpu-collect.h"
#include "sync/segments.h"

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

struct machine *correlate_reference_machine(struct correlate_iter *iter)
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

static bool method_allows(enum correlate_sync_method wanted, enum correlate_sync_method method)
{
	return wanted == CORRELATE_SYNC_AUTO || wanted == method;
}

/*
 * A machine's map: Trace Compass's one line, or with sync-model="piecewise"
 * the segments of its pair with the reference; the entries that describe
 * the formula then describe the first segment (SPEC "Long traces").
 */
static void take_result(struct correlate_iter *iter, struct machine_info *info,
		const struct vm_sync_result *result, const char *method)
{
	const struct vm_sync_segment *segments;
	unsigned int count;

	vm_sync_map_set_formula(&info->map, &result->formula);
	info->quality = result->quality;
	info->accuracy = result->accuracy;
	info->matches = result->matches;
	info->method = method;
	if (iter->comp->params.model != CORRELATE_MODEL_PIECEWISE || !result->segments) {
		return;
	}

	segments = vm_sync_segments_map(result->segments, &count);
	if (count < 2) {
		return;
	}

	vm_sync_map_set_segments(&info->map, segments, count);
	info->quality = segments[0].quality;
	info->accuracy = segments[0].accuracy;
	info->matches = segments[0].matches;
}

/* The messages that parameter `sync` lets match, as the warnings name them. */
static const char *sync_messages(enum correlate_sync_method method)
{
	switch (method) {
	case CORRELATE_SYNC_VMSYNC:
		return "vmsync";
	case CORRELATE_SYNC_TCP:
		return "TCP";
	case CORRELATE_SYNC_VCPU:
		return "vCPU guest-mode";
	default:
		return "vmsync or TCP";
	}
}

static void warn_no_sync(struct correlate_iter *iter, struct machine *machine,
		const struct machine *reference, const struct vcpu_solution *by_vcpu)
{
	enum correlate_sync_method method = iter->comp->params.sync;
	/* Before the warn-once test: it may set the quality. */
	char *vcpu_failure = correlate_vcpu_failure(iter, by_vcpu, machine);
	char *why;

	if (!machine_warn_once(machine, WARN_NO_SYNC)) {
		g_free(vcpu_failure);
		return;
	}

	if (method == CORRELATE_SYNC_VCPU) {
		why = g_strdup_printf("sync=\"vcpu\": %s", vcpu_failure ? vcpu_failure :
			"no vCPU alignment reaches it");
	} else {
		why = g_strdup_printf("sync=\"%s\": no %s message matched between them, "
			"directly or through other machines%s%s",
			correlate_sync_method_name(method), sync_messages(method),
			vcpu_failure ? "; vCPU alignment: " : "", vcpu_failure ? vcpu_failure : "");
	}

	CORRELATE_LOGW(iter->log_level, iter->name,
		"Machine `%s` has no synchronization pair with the reference `%s` "
		"(%s): its times stay on its own clock (vm_sync_quality `%s`). %s, or "
		"pass transforms={%s={slope=S,offset-ns=O}}.",
		machine->name, reference->name, why,
		vm_sync_quality_name(correlate_machine_info(iter, machine)->quality),
		method == CORRELATE_SYNC_AUTO ? "Trace the vmsync or TCP events on both machines" :
			method == CORRELATE_SYNC_VCPU ? "Pass sync=\"auto\" to use vmsync or "
				"TCP messages too" :
			method == CORRELATE_SYNC_VMSYNC ? "Trace the vmsync events on both "
				"machines (or pass sync=\"auto\" to use the other methods too)" :
			"Trace the TCP events on both machines (or pass sync=\"auto\" to "
				"use the other methods too)", machine->name);
	g_free(why);
	g_free(vcpu_failure);
}

void correlate_warn_if_no_line(struct correlate_iter *iter, struct machine *machine)
{
	struct machine_info *info = correlate_machine_info(iter, machine);
	struct machine *reference = correlate_reference_machine(iter);

	if (info->quality != VM_SYNC_INCOMPLETE || info->matches == 0 ||
			!machine_warn_once(machine, WARN_NO_SYNC)) {
		return;
	}

	CORRELATE_LOGW(iter->log_level, iter->name,
		"Machine `%s`: its %" PRIu64 " %s matches with the reference `%s` all go "
		"one way (vm_sync_quality `incomplete`): they bound its clock on one side "
		"only and no line fits them, so its times stay on its own clock%s. Trace "
		"the messages of both directions, or pass "
		"transforms={%s={slope=S,offset-ns=O}}.", machine->name, info->matches,
		info->method, reference ? reference->name : "(none)",
		iter->onepass ? " until matches come both ways" :
		vm_sync_map_segment_count(&info->map) > 1 ?
			" until its first segment with matches both ways" : "",
		machine->name);
}

/*
 * Each machine's formula: vmsync when it reaches the reference, else the
 * vCPU alignment, else TCP.
 */
static void choose_results(struct correlate_iter *iter, const struct vm_sync_result *by_vmsync,
		const struct vcpu_solution *by_vcpu, const struct vm_sync_result *by_tcp,
		const struct machine *reference, const unsigned int *sync_index)
{
	enum correlate_sync_method wanted = iter->comp->params.sync;
	unsigned int i;

	/* Who runs whom is known apart from whose clock the fit sets. */
	correlate_vcpu_note_identities(iter, by_vcpu->fits, by_vcpu->fit_count);
	for (i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		struct machine_info *info = correlate_machine_info(iter, machine);

		/* A clockless machine has nothing to synchronize (already warned). */
		if (i >= iter->sync_count || info->is_reference || !machine->has_clock ||
				g_hash_table_contains(iter->comp->params.transforms, machine->name)) {
			continue;
		}

		const struct vm_sync_result *vmsync = method_allows(wanted,
			CORRELATE_SYNC_VMSYNC) && by_vmsync[sync_index[i]].parent >= 0 ?
			&by_vmsync[sync_index[i]] : NULL;
		const struct vm_sync_result *tcp = method_allows(wanted, CORRELATE_SYNC_TCP) &&
			by_tcp[sync_index[i]].parent >= 0 ? &by_tcp[sync_index[i]] : NULL;

		if (vmsync && vmsync->quality != VM_SYNC_INCOMPLETE) {
			take_result(iter, info, vmsync, "vmsync");
		} else if (method_allows(wanted, CORRELATE_SYNC_VCPU) &&
				correlate_vcpu_has_path(iter, by_vcpu, machine)) {
			/* Also before vmsync matches that all go one way: they fit no line. */
			take_result(iter, info, &by_vcpu->results[sync_index[i]], "vcpu");
		} else if (tcp && (tcp->quality != VM_SYNC_INCOMPLETE || !vmsync)) {
			take_result(iter, info, tcp, "tcp");
			correlate_warn_if_no_line(iter, machine);
		} else if (vmsync) {
			take_result(iter, info, vmsync, "vmsync");
			correlate_warn_if_no_line(iter, machine);
		} else {
			warn_no_sync(iter, machine, reference, by_vcpu);
		}
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

/* Feeds the events of the current timestamp, in their fixed order. */
void correlate_sync_flush(struct correlate_iter *iter)
{
	guint i;

	g_array_sort(iter->records, compare_records);
	for (i = 0; i < iter->records->len; i++) {
		const struct sync_record *record =
			&g_array_index(iter->records, struct sync_record, i);

		vm_sync_add_event(record->message.protocol == SYNC_PROTOCOL_VMSYNC ?
				iter->by_vmsync : iter->by_tcp,
			record->message.protocol, &record->message.key,
			record->message.role, iter->sync_index[record->machine->index],
			record->ts);
	}

	g_array_set_size(iter->records, 0);
}

static void warn_missing_fields(struct correlate_iter *iter, const bt_message *msg,
		struct machine *machine)
{
	if (!machine_warn_once(machine, WARN_MISSING_FIELDS)) {
		return;
	}

	CORRELATE_LOGW(iter->log_level, iter->name,
		"Event `%s` of machine `%s` lacks the fields that identify its "
		"message (vmsync: `vm_uid`, `cnt`; TCP: `seq`, `ack_seq`, "
		"`flags`): such events are not used to synchronize.",
		bt_event_class_get_name(bt_event_borrow_class_const(
			bt_message_event_borrow_event_const(msg))),
		machine_display_name(machine));
}

static void note_sync_message(struct correlate_iter *iter, struct sync_record *record)
{
	if (record->machine->index >= iter->sync_count) {
		/* Met after the sync objects were made: welcome_late_machine() warns. */
		return;
	}

	if (iter->onepass) {
		/* Fed in the sync pass's order by correlate_sync_feed_until(). */
		if (iter->records->len == 0) {
			iter->records_min_ts = record->ts;
			iter->records_sorted = true;
		} else {
			if (record->ts < iter->records_min_ts) {
				iter->records_min_ts = record->ts;
			}

			/* Usually one record, or records already in order: no sort then. */
			if (iter->records_sorted && compare_records(&g_array_index(iter->records,
					struct sync_record, iter->records->len - 1), record) > 0) {
				iter->records_sorted = false;
			}
		}

		g_array_append_val(iter->records, *record);
		return;
	}

	if (iter->records->len > 0 &&
			g_array_index(iter->records, struct sync_record, 0).ts != record->ts) {
		correlate_sync_flush(iter);
	}

	g_array_append_val(iter->records, *record);
}

void correlate_sync_feed_until(struct correlate_iter *iter, int64_t frontier)
{
	guint fed = 0;

	if (iter->records->len == 0 || iter->records_min_ts > frontier) {
		return;
	}

	if (!iter->records_sorted) {
		/* GLib's sort is stable: records that compare equal keep their order. */
		g_array_sort(iter->records, compare_records);
		iter->records_sorted = true;
	}

	while (fed < iter->records->len &&
			g_array_index(iter->records, struct sync_record, fed).ts <= frontier) {
		const struct sync_record *record =
			&g_array_index(iter->records, struct sync_record, fed);

		vm_sync_add_event(record->message.protocol == SYNC_PROTOCOL_VMSYNC ?
				iter->by_vmsync : iter->by_tcp,
			record->message.protocol, &record->message.key,
			record->message.role, iter->sync_index[record->machine->index],
			record->ts);
		fed++;
	}

	g_array_remove_range(iter->records, 0, fed);
	if (iter->records->len > 0) {
		iter->records_min_ts = g_array_index(iter->records, struct sync_record, 0).ts;
	}
}

static void note_event(struct correlate_iter *iter, guint upstream, const bt_message *msg,
		const struct msg_time *time, struct stream_state *state)
{
	struct sync_record record;
	bool missing_fields;
	enum sync_event_kind kind = sync_event_read(iter->reader,
		bt_message_event_borrow_event_const(msg), &record.message, &missing_fields);

	if (iter->by_vcpu) {
		correlate_vcpu_note(iter, upstream, msg, time, state);
	}

	if (kind == SYNC_EVENT_KVM_ENTRY) {
		/* Counted once, even when the pass is read again. */
		if (!iter->sync_pass_done) {
			state->info->kvm_entries++;
		}
	} else if (kind == SYNC_EVENT_MESSAGE && time->has_time) {
		record.ts = time->ns;
		record.machine = state->machine;
		note_sync_message(iter, &record);
	} else if (missing_fields) {
		warn_missing_fields(iter, msg, state->machine);
	}
}

/* Notes one message; events only once the sync objects exist. */
void correlate_sync_note(struct correlate_iter *iter, guint upstream_index,
		const bt_message *msg, const struct msg_time *time)
{
	struct upstream_bound *bound;
	struct stream_state *state;

	if (!time->stream) {
		return;
	}

	bound = &g_array_index(iter->bounds, struct upstream_bound, upstream_index);
	state = correlate_upstream_stream_state(iter, bound, time->stream);
	if (time->has_time) {
		note_span(state->info, time->ns);
	}

	upstream_bound_note_machine(bound, state->machine);
	if (iter->sync_ready && time->type == BT_MESSAGE_TYPE_EVENT) {
		note_event(iter, upstream_index, msg, time, state);
	} else if (iter->sync_ready && iter->by_vcpu &&
			(time->type == BT_MESSAGE_TYPE_DISCARDED_EVENTS ||
				time->type == BT_MESSAGE_TYPE_DISCARDED_PACKETS)) {
		correlate_vcpu_note_loss(iter, upstream_index, msg, time, state);
	}
}

static struct sync_head *head_at(struct correlate_iter *iter, guint index)
{
	return &g_array_index(iter->heads, struct sync_head, index);
}

static bt_message_iterator_class_next_method_status upstream_error(
		struct correlate_iter *iter, enum upstream_status status, guint index)
{
	if (status == UPSTREAM_AGAIN) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	}

	if (status == UPSTREAM_MEMORY_ERROR) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	}

	ITER_ERROR(iter, "Cannot read upstream message iterator #%u during the "
		"synchronization pass.", index);
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

/*
 * Gives an upstream a head: its next timed message. Messages without time
 * are noted on the way (they carry no sync event).
 */
static bt_message_iterator_class_next_method_status fill_head(struct correlate_iter *iter,
		guint index)
{
	struct upstream *upstream = &g_array_index(iter->upstreams, struct upstream, index);
	struct sync_head *head = head_at(iter, index);

	while (!head->msg) {
		const bt_message *msg;
		bool repaired;
		enum upstream_status status = upstream_next(upstream, iter->self,
			&msg, &head->time, &repaired);

		if (status == UPSTREAM_END) {
			break;
		}

		if (status != UPSTREAM_OK) {
			return upstream_error(iter, status, index);
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

/*
 * Every upstream showed its first time, so every machine is known: names,
 * the host as its event classes tell it (checked against its events at the
 * end of the pass), the reference, and the sync objects in their order.
 */
bool correlate_sync_prepare(struct correlate_iter *iter)
{
	unsigned int count = machine_table_count(iter->machines);

	if (!correlate_finalize_machines(iter)) {
		return false;
	}

	iter->sync_host = correlate_detect_host(iter);
	iter->sync_count = count;
	iter->sync_index = make_sync_order(iter);
	iter->by_vmsync = vm_sync_create(count);
	iter->by_tcp = vm_sync_create(count);
	if (iter->onepass) {
		/* The vCPU method read once: vcpu-onepass.c. */
		vm_sync_keep_online(iter->by_vmsync);
		vm_sync_keep_online(iter->by_tcp);
		correlate_vcpu_start(iter);
		iter->sync_ready = true;
		return true;
	}

	if (iter->comp->params.model == CORRELATE_MODEL_PIECEWISE) {
		vm_sync_keep_piecewise(iter->by_vmsync);
		vm_sync_keep_piecewise(iter->by_tcp);
	}
	correlate_vcpu_start(iter);
	iter->sync_ready = true;
	return true;
}

void correlate_sync_pass_reset(struct correlate_iter *iter)
{
	guint i;

	for (i = 0; i < iter->heads->len; i++) {
		bt_message_put_ref(head_at(iter, i)->msg);
		head_at(iter, i)->msg = NULL;
	}

	g_array_set_size(iter->records, 0);
	vm_sync_destroy(iter->by_vmsync);
	vm_sync_destroy(iter->by_tcp);
	g_free(iter->sync_index);
	iter->by_vmsync = NULL;
	iter->by_tcp = NULL;
	correlate_vcpu_reset(iter);
	iter->sync_index = NULL;
	iter->sync_ready = false;
	if (!iter->sync_pass_done) {
		for (i = 0; i < iter->infos->len; i++) {
			((struct machine_info *) g_ptr_array_index(iter->infos, i))->kvm_entries = 0;
		}
	}
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
	choose_results(iter, by_vmsync, &by_vcpu, by_tcp, reference, iter->sync_index);
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

bt_message_iterator_class_next_method_status correlate_sync_pass(
		struct correlate_iter *iter)
{
	bt_message_iterator_class_next_method_status status = read_merged(iter);
	bool first_time = !iter->sync_pass_done;

	if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
		return status;
	}

	iter->sync_pass_done = true;
	if (iter->sync_ready) {
		correlate_sync_flush(iter);
		if (first_time && !host_guess_holds(iter)) {
			correlate_sync_pass_reset(iter);
			iter->machines_final = false;
			if (!correlate_seek_upstreams(iter)) {
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
			}

			return correlate_sync_pass(iter);
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

	if (!correlate_seek_upstreams(iter)) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}

	correlate_merge_reset(iter);
	iter->phase = PHASE_MERGE;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}
