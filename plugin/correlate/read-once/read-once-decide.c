/*
 * Read once: which map a machine follows, and when its first formula is
 * due (read-once.c says how the inputs are read).
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/machines.h"
#include "correlate/vcpu/vcpu-collect.h"
#include "correlate/vcpu/vcpu-onepass.h"
#include "correlate/choose.h"
#include "util/time-span.h"
#include "correlate/read-once/read-once-private.h"
#include "sync/precedence.h"

/* The map of `op`'s pair with the reference (first in the sync order) in `sync`. */
static struct vm_sync_online *pair_with_reference(struct correlate_iter *iter,
		struct vm_sync *sync, const struct read_once_machine *op)
{
	return vm_sync_online_of(sync, 0, iter->sync_index[op->machine->index]);
}

/*
 * Whether `op` waits for the vCPU method: no vmsync match pairs it with the
 * reference yet, the method may synchronize it, and its tries go on.
 */
bool read_once_waits_for_vcpu(struct correlate_iter *iter, const struct read_once_machine *op)
{
	enum correlate_sync_method wanted = iter->comp->params.sync;
	struct vm_sync_online *by_vmsync = pair_with_reference(iter, iter->by_vmsync, op);

	if (op->vcpu_given_up || correlate_machine_info(iter, op->machine)->vcpu_online) {
		return false;
	}

	/* vmsync matches that all go one way fit no line: the vCPU method may. */
	if (wanted == CORRELATE_SYNC_AUTO && by_vmsync &&
			vm_sync_online_fewest_each_way(by_vmsync) > 0) {
		return false;
	}

	return correlate_vcpu_onepass_possible(iter, op->machine);
}

/* Whether `online` has matches both ways: a line (vmsync or TCP). */
static bool has_line(struct vm_sync_online *online)
{
	return online && vm_sync_online_fewest_each_way(online) > 0;
}

/*
 * Whether `op` has vmsync matches both ways with a machine other than the
 * reference: a path through it (a guest to the host, when a guest is the
 * reference) that only the sync pass composes.
 */
static bool vmsync_elsewhere(struct correlate_iter *iter, const struct read_once_machine *op)
{
	unsigned int self = iter->sync_index[op->machine->index];

	for (unsigned int other = 1; other < iter->sync_count; other++) {
		if (other != self && has_line(vm_sync_online_of(iter->by_vmsync, other, self))) {
			return true;
		}
	}

	return false;
}

/* The pair map with the reference that `op` can follow, in the precedence of sync/precedence.h. */
static struct vm_sync_online *candidate(struct correlate_iter *iter,
		const struct read_once_machine *op, const char **method)
{
	enum correlate_sync_method wanted = iter->comp->params.sync;
	struct vm_sync_online *by_vmsync = pair_with_reference(iter, iter->by_vmsync, op);
	struct vm_sync_online *by_tcp = pair_with_reference(iter, iter->by_tcp, op);
	struct machine_info *info = correlate_machine_info(iter, op->machine);
	bool vmsync = wanted != CORRELATE_SYNC_TCP && wanted != CORRELATE_SYNC_VCPU &&
		by_vmsync && vm_sync_online_matches(by_vmsync) > 0;
	bool tcp = wanted != CORRELATE_SYNC_VMSYNC && wanted != CORRELATE_SYNC_VCPU &&
		by_tcp && vm_sync_online_matches(by_tcp) > 0;
	struct vm_sync_offer offer = {
		.vmsync = vmsync,
		.vmsync_line = vmsync && has_line(by_vmsync),
		.vcpu = info->vcpu_online != NULL,
		.vcpu_pending = read_once_waits_for_vcpu(iter, op),
		.tcp = tcp,
		.tcp_line = tcp && has_line(by_tcp),
		/* Only the sync pass composes vmsync through another machine. */
		.vmsync_elsewhere = wanted != CORRELATE_SYNC_TCP && vmsync_elsewhere(iter, op) &&
			read_once_sync_pass_may_pair(iter, op),
	};
	enum vm_sync_source source = vm_sync_precedence(&offer);

	*method = vm_sync_source_name(source);
	switch (source) {
	case VM_SYNC_SOURCE_VMSYNC:
		return by_vmsync;
	case VM_SYNC_SOURCE_VCPU:
		return info->vcpu_online;
	case VM_SYNC_SOURCE_TCP:
		return by_tcp;
	default:
		return NULL;
	}
}

/*
 * Messages waiting in the machines' queues for their map, with an own time
 * before `cutoff` (a commit step's time): the budgets that read this decide
 * the maps, which must not depend on the graph's form. Every upstream was
 * read past the cutoff in any form, so what waits before it is the same in
 * both; what was read beyond it is not (the ports form reads each upstream
 * one message ahead), nor is what waits in the merge's reorder buffer (its
 * bound follows the form), which is left out.
 */
guint read_once_held_before(const struct correlate_iter *iter, int64_t cutoff)
{
	guint count = 0;

	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);
		const struct read_once_machine *op = info->read_once;

		if (!op) {
			continue;
		}

		count += op->held_count;
		for (guint q = 0; q < op->held->len; q++) {
			const struct vm_fifo *queue = held_queue(op, q);

			/* Each queue is in time order: what is past the cutoff is at its end. */
			for (size_t k = vm_fifo_length(queue); k > 0; k--) {
				const struct held_message *held = vm_fifo_at(queue, k - 1);

				if (held->time < cutoff) {
					break;
				}

				count--;
			}
		}
	}

	return count;
}

/*
 * Whether the sync pass may synchronize a machine that read once found no
 * direct pair for: with sync="auto", the vCPU method; with several
 * machines that declare sync events, a path through another one. Only
 * when the inputs can seek and nothing has left correlate yet: the sync
 * pass starts over from the beginning, and the output with it.
 */
bool read_once_sync_pass_may_pair(struct correlate_iter *iter, const struct read_once_machine *op)
{
	if (!iter->can_seek || iter->released_any) {
		return false;
	}

	return iter->comp->params.sync == CORRELATE_SYNC_AUTO ||
		iter->comp->params.sync == CORRELATE_SYNC_VCPU ||
		(!read_once_trace_without_sync(iter, op) && machine_table_count(iter->machines) > 2);
}

/* Whether TCP matches with the reference could give `op` its first formula. */
static bool tcp_ready(struct correlate_iter *iter, const struct read_once_machine *op)
{
	struct vm_sync_online *by_tcp = pair_with_reference(iter, iter->by_tcp, op);

	return iter->comp->params.sync == CORRELATE_SYNC_AUTO && by_tcp &&
		vm_sync_online_fewest_each_way(by_tcp) >= VM_SYNC_FIRST_MATCHES;
}

/*
 * How much of its own trace `op` was read since its first event: up to the
 * frontier (what was read beyond it depends on how the graph is built), or
 * up to its last message when its trace ended (or paused) before it. The
 * frontier is another machine's clock then: a guest whose clock is behind
 * the reference's by more than its trace is long is read whole before the
 * reference starts, and the frontier's jump to the reference's first time
 * is no wait of the guest's (it decided on the first two matches, with the
 * guest left on its own clock).
 */
static int64_t own_span(const struct read_once_machine *op, int64_t frontier)
{
	int64_t last = op->last_read < frontier ? op->last_read : frontier;

	return op->has_event && last > op->first_event ? last - op->first_event : 0;
}

/*
 * A guest waiting for the vCPU method: tried when the data doubled since
 * the last try; given up after its budget (that of the first formula, or
 * less when the sync pass can take over), and then it goes on as a machine
 * that no message pairs yet.
 */
static bool vcpu_due(struct correlate_iter *iter, struct read_once_machine *op, int64_t frontier)
{
	int64_t span = own_span(op, frontier);
	/* The notes the collection applied (not the messages held): the same in every graph. */
	uint64_t notes = correlate_vcpu_notes_applied(iter);
	/*
	 * The shorter budget when something else can pair it: the sync pass,
	 * or TCP matches ready (a machine that is no guest at all, say).
	 */
	bool other = read_once_sync_pass_may_pair(iter, op) || tcp_ready(iter, op);
	bool budget = vm_sync_vcpu_budget_spent(span, notes,
		read_once_held_before(iter, frontier), other);

	if (!vm_sync_vcpu_try_due(&op->vcpu_tries, span, notes, budget)) {
		return false;
	}

	op->vcpu_tried = true;
	if (correlate_vcpu_onepass_try(iter, op->machine, frontier, &op->vcpu_fit)) {
		return true;
	}

	vm_sync_vcpu_tries_failed(&op->vcpu_tries, span, notes);
	op->vcpu_given_up = budget;
	return budget;
}

bool read_once_first_formula_due(struct correlate_iter *iter, struct read_once_machine *op,
		int64_t frontier)
{
	const char *method;
	struct vm_sync_online *online;
	int64_t waited = own_span(op, frontier);
	struct vm_sync_wait wait = { waited, read_once_held_before(iter, frontier) };

	if (read_once_waits_for_vcpu(iter, op)) {
		return vcpu_due(iter, op, frontier);
	}

	online = candidate(iter, op, &method);
	if (online && strcmp(method, "vcpu") == 0) {
		return true;
	}

	if (!online && read_once_trace_without_sync(iter, op)) {
		/* Waiting would hold its messages for nothing. */
		return true;
	}

	if (!online && read_once_sync_pass_may_pair(iter, op) &&
			vm_sync_no_match_wait_spent(&wait)) {
		/*
		 * Declared, never matched (kernel traces declare the network
		 * events whether or not the machines talk): the sync pass will
		 * do, without holding the whole first wait's messages.
		 */
		return true;
	}

	if (online && strcmp(method, "vmsync") == 0 &&
			vm_sync_online_fewest_each_way(online) >= VM_SYNC_ONLINE_MIN_EACH_WAY &&
			vm_sync_held_over_budget(wait.held)) {
		/* The rate, not the trace time, bounds the wait now (read-once-policy.h). */
		return true;
	}

	if (online && vm_sync_online_fewest_each_way(online) >= VM_SYNC_FIRST_MATCHES) {
		/*
		 * The first formula maps everything before it too: its line
		 * must be known at the first message about as well as at the
		 * horizon (matches that begin late, say), or it waits longer.
		 */
		long double spread = vm_sync_online_width_at(online,
			frontier - iter->comp->params.look_ahead_ns);
		long double limit = vm_sync_first_width_limit(spread);

		if (waited >= VM_SYNC_SETTLE_MAX_NS || vm_sync_online_settled(online, op->first_read,
				limit)) {
			return true;
		}
	}

	return vm_sync_first_wait_spent(&wait);
}

/*
 * `online`'s machine's own time that its map puts at `frontier` (the
 * reference's time), or `frontier` when that is earlier. Before its first
 * commit the map is the identity: the best line of its matches stands for
 * it. The map is increasing and its slopes differ by far less than 1 from
 * segment to segment: a few steps of its inverse converge (to well under a
 * ns).
 */
static int64_t own_time_at(const struct vm_sync_online *online, int64_t frontier)
{
	long double own = (long double) frontier;
	bool committed = vm_sync_online_committed(online);
	struct vm_sync_formula best = committed ? vm_sync_formula_identity() :
		vm_sync_online_best(online);

	for (int step = 0; step < 3; step++) {
		int64_t at = own >= (long double) INT64_MAX ? INT64_MAX :
			own <= (long double) INT64_MIN ? INT64_MIN : (int64_t) own;
		const struct vm_sync_formula *formula = committed ?
			vm_sync_online_formula_at(online, at) : &best;

		if (!(formula->slope > 0)) {
			break;
		}

		own = ((long double) frontier - formula->offset_ns) / formula->slope;
	}

	return own >= (long double) frontier ? frontier :
		own <= (long double) INT64_MIN ? INT64_MIN : (int64_t) own;
}

/*
 * Where a machine's map is fixed: the look-ahead in force (`look-ahead-ns`,
 * or less over the held budget: vm_sync_next_look_ahead()) behind the
 * frontier in the machine's own clock. The frontier is the least own time the
 * upstreams were read to, whatever their clocks: a machine whose clock is
 * D behind the reference's is read D further in true time than the
 * reference, and its matches in that stretch come as the reference is
 * read. Fixed up to the frontier minus the look-ahead, its map would
 * follow the line of its last matches over D without them (a guest
 * seconds behind, a slewed clock: tens of us off). A machine ahead of the
 * reference is bounded by the frontier itself (the reference's time).
 */
int64_t read_once_own_horizon(const struct correlate_iter *iter, const struct read_once_machine *op,
		const struct vm_sync_online *online, int64_t frontier)
{
	int64_t horizon = vm_time_sum(own_time_at(online, frontier),
		-iter->read_once->look_ahead);

	/*
	 * Nothing of its own comes after its last message once its upstreams
	 * ended (the frontier goes on with the others): its map ends there,
	 * rather than being planned, bridged and announced up to the others'
	 * times.
	 */
	return op->has_read && op->last_read < horizon ? op->last_read : horizon;
}

/*
 * The first formula: the best line, fixed up to the horizon of `frontier`.
 * False, with an error cause, when there is none in inputs cut before
 * correlate.
 */
bool read_once_decide(struct correlate_iter *iter, struct read_once_machine *op, int64_t frontier)
{
	struct machine_info *info = correlate_machine_info(iter, op->machine);
	const char *method = "none";
	struct vm_sync_online *online = candidate(iter, op, &method);
	const struct vm_sync_segment *first;
	unsigned int count;

	if (!online && read_once_sync_pass_may_pair(iter, op)) {
		/* Nothing left yet: the sync pass reads again (drive.c), said once. */
		if (iter->state != CORRELATE_STATE_READ_AGAIN) {
			read_once_log_fall_back(iter, op);
		}

		iter->state = CORRELATE_STATE_READ_AGAIN;
		return true;
	}

	op->decided = true;
	iter->bound_valid = false;
	if (strcmp(method, "vcpu") != 0) {
		/* Its events need not wait for an alignment any more. */
		correlate_vcpu_guest_done(iter, op->machine, false);
	}

	if (!online && iter->input_cut) {
		read_once_fail_after_cut(iter, op);
		return false;
	}

	if (!online) {
		read_once_warn_unsynchronized(iter, op);
		return true;
	}

	op->online = online;
	if (strcmp(method, "vcpu") == 0) {
		/* Its first fit rests on all that was read: maybe several rates. */
		vm_sync_online_commit_windows(online, read_once_own_horizon(iter, op, online, frontier));
	} else {
		vm_sync_online_commit(online, read_once_own_horizon(iter, op, online, frontier));
	}

	first = vm_sync_online_map(online, &count);
	info->method = method;
	if (correlate_refuse_map(iter, op->machine, first, count)) {
		/* Not adopted: it goes on as a machine without a map. */
		op->online = NULL;
		correlate_vcpu_guest_done(iter, op->machine, false);
		return true;
	}

	vm_sync_map_set_online(&info->map, online);
	info->quality = first->quality;
	info->accuracy = first->accuracy;
	info->matches = first->matches;
	op->announced = 1;
	correlate_warn_if_no_line(iter, op->machine);
	return true;
}

int64_t read_once_horizon(const struct read_once_machine *op)
{
	if (!op->decided) {
		return INT64_MIN;
	}

	return op->online ? vm_sync_online_horizon(op->online) : INT64_MAX;
}
