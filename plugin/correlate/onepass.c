/*
 * filter.vm.correlate in one pass (SPEC "Long traces", sync-model=
 * "piecewise"): no sync pass, no second decode.
 *
 * Every message is noted for synchronization as it is read; the matches
 * feed each machine pair's one-pass map (lib/sync/online.h). The messages
 * of a machine that is synchronized to the reference wait, in a queue per
 * upstream (each upstream's times never go back), until its map is fixed
 * at their time:
 *
 * - its first formula waits for FIRST_MATCHES matches each way, with the
 *   best line known at its first message about as well as at the horizon
 *   (else it waits for more, up to SETTLE_MAX_NS); a budget of held
 *   messages or of trace time since its first event ends the wait
 *   (FIRST_WAIT_*) with what it has, and an input read whole gives exactly
 *   the linear result (Trace Compass's pair does: its first matches come
 *   14 s and 120,000 messages after its first events); a machine that
 *   cannot be paired at all (it or the reference declares no vmsync or TCP
 *   event) does not wait;
 * - then its map is fixed up to `look-ahead-ns` behind the frontier (in
 *   its own clock: own_horizon()), at every COMMIT_STEP_NS of it, and what
 *   waits up to there leaves for the reorder buffer: the messages are held
 *   for the look-ahead only.
 *
 * The inputs are read as the sync pass reads them, in the order of their
 * own clocks; the frontier is the time up to which every upstream was read.
 * The sync events up to the frontier are fed in the sync pass's own order,
 * and the maps are fixed at the steps of the frontier: what the maps learn,
 * and when, does not depend on how the graph is built (one input per source
 * port, or one muxed input). The reorder buffer's bound is the least time
 * any upstream or waiting message can still map to: a map is continuous and
 * increasing, so a machine's messages not yet mapped come at or after its
 * map's value at its horizon; a machine without its first formula holds
 * everything back. The bound is computed again at each step (and when an
 * upstream starts or ends), not at every message: a bound that lags is
 * still a bound, and the maps only move at the steps.
 *
 * Correlate reads once by default, whether its upstreams can seek or not
 * (iterator.c). A machine that no vmsync or TCP message pairs with the
 * reference by the time its first formula is due needs the sync pass (the
 * vCPU method, a path through another machine): when the upstreams can
 * seek and nothing has left yet, the sync pass takes over (merge.c);
 * otherwise the machine keeps its own clock, with a warning.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/iterator.h"
#include "correlate/vcpu-collect.h"
#include "correlate/vcpu-onepass.h"
#include "sync/online.h"
#include "util/fifo.h"
#include "util/time-span.h"

#define FIRST_MATCHES 64
/* The first formula's line at the first message: within twice its spread at the horizon. */
#define FIRST_WIDTH_SLACK_NS 200.0L
/*
 * ... and within 1 us in any case: the first formula maps back to the first
 * message, and matches a millisecond or more apart (TCP) leave the line of
 * the first fraction of a second wide there (up to 0.8 us off the truth).
 */
#define FIRST_WIDTH_MAX_NS 1000.0L
#define SETTLE_MAX_NS INT64_C(1000000000)
/*
 * Budgets of the wait for the first formula: held messages (all machines,
 * the reorder buffer's too: memory, about 170 bytes each for kernel
 * events parked as records) and trace time since the machine's first
 * event. Until it has a formula, nothing of the machine's can be put on
 * the reference's time: the wait only ends early when memory says so.
 */
#define FIRST_WAIT_NS (INT64_C(30) * 1000000000)
#define FIRST_WAIT_MESSAGES (1 << 20)
/*
 * Held messages (all machines' and the reorder buffer's) that a trace-time
 * wait may cost before the event rate, not the trace time, bounds it: 2 M
 * events/s of trace time fill the default 50 ms look-ahead with 100,000
 * messages (about 25 MiB with their records) and a 64-match first wait
 * with more. Over the budget, a machine with a vmsync line from
 * VM_SYNC_ONLINE_MIN_EACH_WAY matches each way takes its first formula
 * without waiting for FIRST_MATCHES, and the maps are fixed nearer the
 * frontier (next_look_ahead()). A machine with no match at all still
 * waits (FIRST_WAIT_MESSAGES): it has nothing to map with.
 */
#define HELD_BUDGET (1 << 13)
/*
 * A machine that no message pairs with the reference yet, when the sync
 * pass can take over (sync_pass_may_pair()): how long it waits for a first
 * match before the sync pass does.
 */
#define NO_MATCH_WAIT_NS INT64_C(1000000000)
#define NO_MATCH_WAIT_MESSAGES (1 << 16)
/*
 * The vCPU method (vcpu-onepass.c) aligns a guest on what was read when its
 * events span VCPU_FIRST_TRY_NS, or when the collection has read
 * VCPU_FIRST_TRY_MESSAGES events (host and guests), and again on twice as
 * much each time it does not fit (too little activity yet). When the sync
 * pass can take over, or TCP matches are ready, they do after
 * VCPU_SEEK_BUDGET_*: the whole trace may fit where its beginning does not,
 * and a machine with TCP matches may be no guest at all.
 */
#define VCPU_FIRST_TRY_NS INT64_C(250000000)
#define VCPU_FIRST_TRY_MESSAGES (1 << 16)
#define VCPU_SEEK_BUDGET_NS (INT64_C(4) * 1000000000)
#define VCPU_SEEK_BUDGET_MESSAGES (1 << 18)
/* The maps are fixed every millisecond of the frontier. */
#define COMMIT_STEP_NS INT64_C(1000000)

/* A message held until its machine's map is fixed at its own time. */
struct held_message {
	int64_t time;              /* own clock (its stream's last time if it has none) */
	const bt_message *msg;     /* owned reference; NULL for a parked event */
	struct mirror_parked *parked; /* an event, as a record (owned) */
	struct msg_time msg_time;  /* as read: the message is not touched again until it leaves */
};

struct onepass_machine {
	struct machine *machine;
	struct vm_sync_online *online;   /* the map it follows; NULL: none (yet) */
	bool decided;                    /* its first formula is set */
	GArray *held;                    /* struct vm_fifo of held_message, per upstream */
	guint held_count;
	bool has_read;
	int64_t first_read;              /* own times of its timed messages read */
	int64_t last_read;
	bool has_event;
	int64_t first_event;             /* own time of its first event read */
	unsigned int announced;          /* segments told as vm:sync events */
	/* The vCPU method: when to try next, and how the last try went. */
	int64_t next_try_span;
	uint64_t next_try_notes;
	bool vcpu_tried;
	bool vcpu_given_up;
	struct vm_vcpu_fit vcpu_fit;
};

static struct vm_fifo *held_queue(const struct onepass_machine *op, guint upstream)
{
	return &g_array_index(op->held, struct vm_fifo, upstream);
}

/* Own time of its oldest held message (INT64_MAX: none). */
static int64_t oldest_held(const struct onepass_machine *op)
{
	int64_t oldest = INT64_MAX;

	for (guint i = 0; i < op->held->len; i++) {
		const struct held_message *head = vm_fifo_peek(held_queue(op, i));

		if (head && head->time < oldest) {
			oldest = head->time;
		}
	}

	return oldest;
}

static struct onepass_machine *onepass_machine_create(struct machine *machine, guint upstreams)
{
	struct onepass_machine *op = g_new0(struct onepass_machine, 1);

	op->machine = machine;
	op->next_try_span = VCPU_FIRST_TRY_NS;
	op->next_try_notes = VCPU_FIRST_TRY_MESSAGES;
	op->held = g_array_sized_new(FALSE, FALSE, sizeof(struct vm_fifo), upstreams);
	g_array_set_size(op->held, upstreams);
	for (guint i = 0; i < upstreams; i++) {
		vm_fifo_init(held_queue(op, i), sizeof(struct held_message));
	}

	return op;
}

static void onepass_machine_destroy(struct onepass_machine *op)
{
	for (guint i = 0; i < op->held->len; i++) {
		struct vm_fifo *queue = held_queue(op, i);
		struct held_message *held;

		while ((held = vm_fifo_pop(queue))) {
			bt_message_put_ref(held->msg);
			mirror_parked_destroy(held->parked);
		}

		vm_fifo_fini(queue);
	}

	g_array_free(op->held, TRUE);
	g_free(op);
}

bool correlate_onepass_wanted(const struct correlate_iter *iter)
{
	const struct correlate_params *params = &iter->comp->params;

	return params->model == CORRELATE_MODEL_PIECEWISE && params->sync != CORRELATE_SYNC_NONE;
}

static struct onepass_machine *onepass_of(struct correlate_iter *iter, struct machine *machine)
{
	return machine ? correlate_machine_info(iter, machine)->onepass : NULL;
}

static bool waits_for_map(struct correlate_iter *iter, struct machine *machine)
{
	struct machine_info *info = correlate_machine_info(iter, machine);

	return !info->is_reference && machine->has_clock && machine->index < iter->sync_count &&
		!g_hash_table_contains(iter->comp->params.transforms, machine->name);
}

bool correlate_onepass_start(struct correlate_iter *iter)
{
	iter->onepass_started = true;
	iter->onepass_finished = false;
	iter->onepass_fallback = false;
	iter->onepass_released = false;
	iter->onepass_frontier = INT64_MIN;
	iter->onepass_pick_valid = false;
	iter->onepass_keys_valid = false;
	iter->onepass_step = INT64_MIN;
	iter->onepass_look_ahead = iter->comp->params.look_ahead_ns;
	if (iter->keeps_time_base) {
		return true;
	}

	if (!correlate_sync_prepare(iter)) {
		return false;
	}

	for (unsigned int i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		struct onepass_machine *op;

		if (!waits_for_map(iter, machine)) {
			continue;
		}

		op = onepass_machine_create(machine, iter->bounds->len);
		correlate_machine_info(iter, machine)->onepass = op;
	}

	return true;
}

void correlate_onepass_reset(struct correlate_iter *iter)
{
	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		if (!info->onepass) {
			continue;
		}

		onepass_machine_destroy(info->onepass);
		info->onepass = NULL;
		/* The one-pass maps go with the sync objects. */
		vm_sync_map_set_formula(&info->map, &(struct vm_sync_formula) { 1.0L, 0.0L });
	}

	correlate_vcpu_onepass_reset(iter);

	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		if (info) {
			info->kvm_entries_ahead = 0;
		}
	}

	iter->host_ahead_started = false;
	iter->host_ahead_done = false;
	iter->host_ahead_has_start = false;
	iter->onepass_started = false;
	iter->onepass_finished = false;
	correlate_sync_pass_reset(iter);
}

/* The map of `op`'s pair with the reference (first in the sync order) in `sync`. */
static struct vm_sync_online *pair_with_reference(struct correlate_iter *iter,
		struct vm_sync *sync, const struct onepass_machine *op)
{
	return vm_sync_online_of(sync, 0, iter->sync_index[op->machine->index]);
}

/*
 * Whether `op` waits for the vCPU method: no vmsync match pairs it with the
 * reference yet, the method may synchronize it, and its tries go on.
 */
static bool waits_for_vcpu(struct correlate_iter *iter, const struct onepass_machine *op)
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

static bool sync_pass_may_pair(struct correlate_iter *iter, const struct onepass_machine *op);

/*
 * Whether `op` has vmsync matches both ways with a machine other than the
 * reference: a path through it (a guest to the host, when a guest is the
 * reference) that only the sync pass composes.
 */
static bool vmsync_elsewhere(struct correlate_iter *iter, const struct onepass_machine *op)
{
	unsigned int self = iter->sync_index[op->machine->index];

	for (unsigned int other = 1; other < iter->sync_count; other++) {
		if (other != self && has_line(vm_sync_online_of(iter->by_vmsync, other, self))) {
			return true;
		}
	}

	return false;
}

/* The pair map with the reference that `op` can follow: vmsync first. */
static struct vm_sync_online *candidate(struct correlate_iter *iter,
		const struct onepass_machine *op, const char **method)
{
	enum correlate_sync_method wanted = iter->comp->params.sync;
	struct vm_sync_online *by_vmsync = pair_with_reference(iter, iter->by_vmsync, op);
	struct vm_sync_online *by_tcp = pair_with_reference(iter, iter->by_tcp, op);
	struct machine_info *info = correlate_machine_info(iter, op->machine);

	bool vmsync = wanted != CORRELATE_SYNC_TCP && wanted != CORRELATE_SYNC_VCPU &&
		by_vmsync && vm_sync_online_matches(by_vmsync) > 0;
	bool tcp = wanted != CORRELATE_SYNC_VMSYNC && wanted != CORRELATE_SYNC_VCPU &&
		by_tcp && vm_sync_online_matches(by_tcp) > 0;

	if (vmsync && has_line(by_vmsync)) {
		*method = "vmsync";
		return by_vmsync;
	}

	if (info->vcpu_online) {
		*method = "vcpu";
		return info->vcpu_online;
	}

	/*
	 * One precedence in both models: vmsync through another machine comes
	 * before TCP with the reference (sync-pass.c builds the vmsync tree
	 * first), so the sync pass takes such a machine when it can.
	 */
	if (tcp && wanted != CORRELATE_SYNC_TCP && vmsync_elsewhere(iter, op) &&
			sync_pass_may_pair(iter, op)) {
		return NULL;
	}

	/* SPEC: a guest that the vCPU method may synchronize is tried by it before TCP. */
	if (tcp && (has_line(by_tcp) || !vmsync) && !waits_for_vcpu(iter, op)) {
		*method = "tcp";
		return by_tcp;
	}

	/* Matches that all go one way, and nothing better: warned (no line). */
	if (vmsync && !waits_for_vcpu(iter, op)) {
		*method = "vmsync";
		return by_vmsync;
	}

	return NULL;
}

/* Messages held in all: the machines' and the reorder buffer's. */
static guint held_in_all(const struct correlate_iter *iter)
{
	guint count = reorder_size(iter->reorder);

	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		count += info->onepass ? info->onepass->held_count : 0;
	}

	return count;
}

/*
 * Which of the machine and the reference declares no vmsync or TCP event,
 * as the warning names it; NULL when both do, so that such messages may
 * pair them some day (live sources declare the event classes they will
 * send, in the metadata before the events).
 */
static const char *trace_without_sync(struct correlate_iter *iter,
		const struct onepass_machine *op)
{
	struct machine *reference = correlate_reference_machine(iter);

	if (!correlate_machine_info(iter, op->machine)->declares_sync) {
		return "its trace";
	}

	if (!reference || !correlate_machine_info(iter, reference)->declares_sync) {
		return "the reference's trace";
	}

	return NULL;
}

/*
 * Whether the sync pass may synchronize a machine that read once found no
 * direct pair for: with sync="auto", the vCPU method; with several
 * machines that declare sync events, a path through another one. Only
 * when the inputs can seek and nothing has left correlate yet: the sync
 * pass starts over from the beginning, and the output with it.
 */
static bool sync_pass_may_pair(struct correlate_iter *iter, const struct onepass_machine *op)
{
	if (!iter->can_seek || iter->onepass_released) {
		return false;
	}

	return iter->comp->params.sync == CORRELATE_SYNC_AUTO ||
		iter->comp->params.sync == CORRELATE_SYNC_VCPU ||
		(!trace_without_sync(iter, op) && machine_table_count(iter->machines) > 2);
}

/* Whether TCP matches with the reference could give `op` its first formula. */
static bool tcp_ready(struct correlate_iter *iter, const struct onepass_machine *op)
{
	struct vm_sync_online *by_tcp = pair_with_reference(iter, iter->by_tcp, op);

	return iter->comp->params.sync == CORRELATE_SYNC_AUTO && by_tcp &&
		vm_sync_online_fewest_each_way(by_tcp) >= FIRST_MATCHES;
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
static int64_t own_span(const struct onepass_machine *op, int64_t frontier)
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
static bool vcpu_due(struct correlate_iter *iter, struct onepass_machine *op, int64_t frontier)
{
	int64_t span = own_span(op, frontier);
	/* The notes the collection applied (not the messages held): the same in every graph. */
	uint64_t notes = correlate_vcpu_notes_applied(iter);
	/*
	 * The shorter budget when something else can pair it: the sync pass,
	 * or TCP matches ready (a machine that is no guest at all, say).
	 */
	bool other = sync_pass_may_pair(iter, op) || tcp_ready(iter, op);
	/* The memory budget of a first formula holds in any case. */
	bool budget = span >= (other ? VCPU_SEEK_BUDGET_NS : FIRST_WAIT_NS) ||
		(other && notes >= VCPU_SEEK_BUDGET_MESSAGES) ||
		held_in_all(iter) >= FIRST_WAIT_MESSAGES;

	if (span < op->next_try_span && notes < op->next_try_notes && !budget) {
		return false;
	}

	op->vcpu_tried = true;
	if (correlate_vcpu_onepass_try(iter, op->machine, frontier, &op->vcpu_fit)) {
		return true;
	}

	op->next_try_span = span * 2 > VCPU_FIRST_TRY_NS ? span * 2 : VCPU_FIRST_TRY_NS;
	op->next_try_notes = notes * 2 > VCPU_FIRST_TRY_MESSAGES ? notes * 2 :
		VCPU_FIRST_TRY_MESSAGES;
	op->vcpu_given_up = budget;
	return budget;
}

static bool first_formula_due(struct correlate_iter *iter, struct onepass_machine *op,
		int64_t frontier)
{
	const char *method;
	struct vm_sync_online *online;
	int64_t waited = own_span(op, frontier);

	if (waits_for_vcpu(iter, op)) {
		return vcpu_due(iter, op, frontier);
	}

	online = candidate(iter, op, &method);
	if (online && strcmp(method, "vcpu") == 0) {
		return true;
	}

	if (!online && trace_without_sync(iter, op)) {
		/* Waiting would hold its messages for nothing. */
		return true;
	}

	if (!online && sync_pass_may_pair(iter, op) && (waited >= NO_MATCH_WAIT_NS ||
			held_in_all(iter) >= NO_MATCH_WAIT_MESSAGES)) {
		/*
		 * Declared, never matched (kernel traces declare the network
		 * events whether or not the machines talk): the sync pass will
		 * do, without holding the whole first wait's messages.
		 */
		return true;
	}

	if (online && strcmp(method, "vmsync") == 0 &&
			vm_sync_online_fewest_each_way(online) >= VM_SYNC_ONLINE_MIN_EACH_WAY &&
			held_in_all(iter) >= HELD_BUDGET) {
		/*
		 * The rate, not the trace time, is what bounds the wait now:
		 * vmsync round trips frame the line within a few hundred ns
		 * from a few matches; TCP's, sparse and one-way, do not (8 of
		 * them gave 2.6 us errors: test correlate-truth-paths).
		 */
		return true;
	}

	if (online && vm_sync_online_fewest_each_way(online) >= FIRST_MATCHES) {
		/*
		 * The first formula maps everything before it too: its line
		 * must be known at the first message about as well as at the
		 * horizon (matches that begin late, say), or it waits longer.
		 */
		long double spread = vm_sync_online_width_at(online,
			frontier - iter->comp->params.look_ahead_ns);
		long double limit = 2 * spread + FIRST_WIDTH_SLACK_NS;

		if (limit > FIRST_WIDTH_MAX_NS) {
			limit = FIRST_WIDTH_MAX_NS;
		}

		if (waited >= SETTLE_MAX_NS || vm_sync_online_settled(online, op->first_read,
				limit)) {
			return true;
		}
	}

	return waited >= FIRST_WAIT_NS || held_in_all(iter) >= FIRST_WAIT_MESSAGES;
}

static const char *reference_name(struct correlate_iter *iter)
{
	struct machine *reference = correlate_reference_machine(iter);

	return reference ? reference->name : "(none)";
}

/* Why `op`'s machine has no map, as a clause (freed by the caller). */
static char *unsynchronized_reason(struct correlate_iter *iter, const struct onepass_machine *op)
{
	enum correlate_sync_method method = iter->comp->params.sync;
	struct machine *machine = op->machine;
	const char *without = trace_without_sync(iter, op);
	char *reason, *vcpu_reason;

	/* What was missing, as a clause of the warning. */
	reason = without ? g_strdup_printf("%s declares no vmsync or TCP event", without) :
		method == CORRELATE_SYNC_VCPU ? g_strdup("") :
		g_strdup_printf("no %s message matched between them in the %" PRId64
			" s after its first event, or while %d messages waited",
			method == CORRELATE_SYNC_VMSYNC ? "vmsync" :
				method == CORRELATE_SYNC_TCP ? "TCP" : "vmsync or TCP",
			FIRST_WAIT_NS / 1000000000, FIRST_WAIT_MESSAGES);
	if (op->vcpu_tried && op->vcpu_fit.status != VM_VCPU_FIT_OK) {
		/* The vCPU method was tried too: why it did not fit. */
		vcpu_reason = correlate_vcpu_onepass_failure(iter, machine, &op->vcpu_fit);
		if (op->vcpu_fit.status == VM_VCPU_FIT_AMBIGUOUS ||
				op->vcpu_fit.status == VM_VCPU_FIT_TAKEN) {
			correlate_machine_info(iter, machine)->quality = VM_SYNC_FAIL;
		}

		char *both = g_strdup_printf("%s%svCPU alignment: %s", reason,
			*reason ? "; " : "", vcpu_reason);

		g_free(reason);
		g_free(vcpu_reason);
		reason = both;
	}

	return reason;
}

static void warn_unsynchronized(struct correlate_iter *iter, const struct onepass_machine *op)
{
	enum correlate_sync_method method = iter->comp->params.sync;
	struct machine *machine = op->machine;
	char *reason;

	if (!machine_warn_once(machine, WARN_NO_SYNC)) {
		return;
	}

	reason = unsynchronized_reason(iter, op);
	CORRELATE_LOGW(iter->log_level, iter->name,
		"Machine `%s` has no synchronization pair with the reference `%s` "
		"(sync=\"%s\", inputs read once: %s): its times stay on its own "
		"clock (vm_sync_quality `%s`). %s, or pass "
		"transforms={%s={slope=S,offset-ns=O}}.", machine->name,
		reference_name(iter), correlate_sync_method_name(method), reason,
		vm_sync_quality_name(correlate_machine_info(iter, machine)->quality),
		method == CORRELATE_SYNC_VMSYNC ? "Trace the vmsync events on both machines "
			"(or pass sync=\"auto\" to use the other methods too)" :
		method == CORRELATE_SYNC_TCP ? "Trace the TCP events on both machines (or "
			"pass sync=\"auto\" to use the other methods too)" :
		"Trace the vmsync or TCP events on both machines, or the host's kvm_entry "
			"and kvm_exit events and more guest activity", machine->name);
	g_free(reason);
}

/*
 * A machine left unsynchronized in inputs cut at a time before correlate
 * (merge.c notes the cut): an error, not the warning. Each machine was cut
 * on its own clock, and what synchronizes it may lie before the cut (the
 * host's process list, which the vCPU method needs, is at the beginning
 * of its trace); its times would come out milliseconds or more off. The
 * trimmer after correlate cuts the synchronized output instead.
 */
static void fail_unsynchronized_after_cut(struct correlate_iter *iter,
		const struct onepass_machine *op)
{
	char *reason = unsynchronized_reason(iter, op);
	int64_t cut = iter->input_cut_ns;
	/* The time as filter.utils.trimmer's `begin` takes it. */
	char *begin = g_strdup_printf("%s%" PRId64 ".%09" PRId64, cut < 0 ? "-" : "",
		cut < 0 ? -(cut / 1000000000) : cut / 1000000000,
		cut < 0 ? -(cut % 1000000000) : cut % 1000000000);

	ITER_ERROR(iter, "Machine `%s` cannot be synchronized with the reference `%s`"
		"%s%s%s: its input was cut at %s (each machine on its own clock) by a "
		"trimmer before filter.vm.correlate (the convert form's --begin or "
		"--timerange, TraceCollectionMessageIterator's `begin`), and what "
		"synchronizes it may be before that time (the host's process list at the "
		"beginning of its trace, earlier vmsync or TCP messages). Put "
		"filter.utils.trimmer after filter.vm.correlate instead (and after "
		"filter.vm.state, which needs the beginning too), to cut the "
		"synchronized output in the reference's time base: babeltrace2 TRACE... "
		"--component=filter.vm.correlate [--component=filter.vm.state] "
		"--component=filter.utils.trimmer --params='begin=\"%s\"' "
		"--component=SINK (with an end: begin=\"%s\",end=\"END\"); in Python, "
		"a bt2.Graph with the trimmer after those filters.", op->machine->name,
		reference_name(iter), *reason ? " (" : "", reason, *reason ? ")" : "",
		begin, begin, begin);
	g_free(begin);
	g_free(reason);
}

static void log_fall_back(struct correlate_iter *iter, const struct onepass_machine *op)
{
	const char *without = trace_without_sync(iter, op);
	char *vcpu = op->vcpu_tried && op->vcpu_fit.status != VM_VCPU_FIT_OK ?
		correlate_vcpu_onepass_failure(iter, op->machine, &op->vcpu_fit) : NULL;

	CORRELATE_LOGI(iter->log_level, iter->name,
		"Machine `%s` has no direct vmsync or TCP pair with the reference `%s` "
		"(%s)%s%s: filter.vm.correlate reads its inputs again, from the "
		"beginning, with a synchronization pass, which sees the whole trace "
		"first (%s), instead of reading them once.",
		op->machine->name, reference_name(iter),
		without ? (strcmp(without, "its trace") == 0 ?
			"its trace declares no vmsync or TCP event" :
			"the reference's trace declares no vmsync or TCP event") :
			"no such message matched them in what was read",
		vcpu ? ", and no vCPU alignment in what was read: " : "", vcpu ? vcpu : "",
		op->vcpu_tried ? "the vCPU method on all of it, later matches, paths through "
			"other machines" :
		iter->comp->params.sync == CORRELATE_SYNC_AUTO ?
			"later matches, the vCPU method from stock KVM events, paths "
			"through other machines" :
			"later matches, paths through other machines");
	g_free(vcpu);
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
 * Where a machine's map is fixed: `look-ahead-ns` behind the frontier in
 * the machine's own clock. The frontier is the least own time the
 * upstreams were read to, whatever their clocks: a machine whose clock is
 * D behind the reference's is read D further in true time than the
 * reference, and its matches in that stretch come as the reference is
 * read. Fixed up to the frontier minus the look-ahead, its map would
 * follow the line of its last matches over D without them (a guest
 * seconds behind, a slewed clock: tens of us off). A machine ahead of the
 * reference is bounded by the frontier itself (the reference's time).
 */
/*
 * The look-ahead for the next step: `look-ahead-ns`, or less while the
 * messages held exceed HELD_BUDGET. What is held grows with the look-ahead
 * times the event rate: scaled down by budget / held, it comes back to
 * about the budget at the next step whatever the rate. It grows back by
 * one step per step at most (the horizon stands still meanwhile), as the
 * messages that it will hold come in, so that it does not overshoot.
 */
static int64_t next_look_ahead(const struct correlate_iter *iter)
{
	int64_t max = iter->comp->params.look_ahead_ns;
	int64_t now = iter->onepass_look_ahead;
	int64_t floor = MIN(COMMIT_STEP_NS, max);
	guint held = held_in_all(iter);
	int64_t next;

	if (held > HELD_BUDGET) {
		next = (int64_t) ((long double) now * HELD_BUDGET / held);
	} else {
		next = now + COMMIT_STEP_NS;
	}

	return CLAMP(next, floor, max);
}

static int64_t own_horizon(const struct correlate_iter *iter, const struct onepass_machine *op,
		const struct vm_sync_online *online, int64_t frontier)
{
	int64_t horizon = vm_time_sum(own_time_at(online, frontier),
		-iter->onepass_look_ahead);

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
static bool decide(struct correlate_iter *iter, struct onepass_machine *op, int64_t frontier)
{
	struct machine_info *info = correlate_machine_info(iter, op->machine);
	const char *method = "none";
	struct vm_sync_online *online = candidate(iter, op, &method);
	const struct vm_sync_segment *first;
	unsigned int count;

	if (!online && sync_pass_may_pair(iter, op)) {
		/* Nothing left yet: the sync pass reads again (merge.c), said once. */
		if (!iter->onepass_fallback) {
			log_fall_back(iter, op);
		}

		iter->onepass_fallback = true;
		return true;
	}

	op->decided = true;
	iter->bound_valid = false;
	if (strcmp(method, "vcpu") != 0) {
		/* Its events need not wait for an alignment any more. */
		correlate_vcpu_guest_done(iter, op->machine, false);
	}

	if (!online && iter->input_cut) {
		fail_unsynchronized_after_cut(iter, op);
		return false;
	}

	if (!online) {
		warn_unsynchronized(iter, op);
		return true;
	}

	op->online = online;
	if (strcmp(method, "vcpu") == 0) {
		/* Its first fit rests on all that was read: maybe several rates. */
		vm_sync_online_commit_windows(online, own_horizon(iter, op, online, frontier));
	} else {
		vm_sync_online_commit(online, own_horizon(iter, op, online, frontier));
	}

	vm_sync_map_set_online(&info->map, online);
	first = &vm_sync_online_map(online, &count)[0];
	info->method = method;
	info->quality = first->quality;
	info->accuracy = first->accuracy;
	info->matches = first->matches;
	op->announced = 1;
	correlate_warn_if_no_line(iter, op->machine);
	return true;
}

static int64_t horizon_of(const struct onepass_machine *op)
{
	if (!op->decided) {
		return INT64_MIN;
	}

	return op->online ? vm_sync_online_horizon(op->online) : INT64_MAX;
}

/* Into the reorder buffer, which owns it then; freed when it fails. */
static bool push_item(struct correlate_iter *iter, guint index, const bt_message *msg,
		struct mirror_parked *parked, const struct msg_time *time)
{
	if (parked ? correlate_push_parked(iter, index, parked, time) :
			correlate_push(iter, index, msg, time)) {
		return true;
	}

	bt_message_put_ref(msg);
	mirror_parked_destroy(parked);
	return false;
}

/* The held messages up to the horizon go to the reorder buffer. */
static bool release_waiting(struct correlate_iter *iter, struct onepass_machine *op)
{
	int64_t horizon = horizon_of(op);

	for (guint i = 0; i < op->held->len && op->held_count > 0; i++) {
		struct vm_fifo *queue = held_queue(op, i);
		const struct held_message *head;

		while ((head = vm_fifo_peek(queue)) && head->time <= horizon) {
			struct held_message held = *head;

			vm_fifo_pop(queue);
			op->held_count--;
			if (!push_item(iter, i, held.msg, held.parked, &held.msg_time)) {
				return false;
			}
		}
	}

	return true;
}

/* vm:sync events for the segments that now apply (up to the horizon). */
static bool announce(struct correlate_iter *iter, struct onepass_machine *op, bool at_end)
{
	unsigned int count;
	const struct vm_sync_segment *segments;
	int64_t horizon = op->has_read && at_end ? op->last_read : horizon_of(op);

	if (!op->online) {
		return true;
	}

	segments = vm_sync_online_map(op->online, &count);
	for (; op->announced < count && segments[op->announced].begin <= horizon;
			op->announced++) {
		if (!correlate_announce_segment(iter, op->machine, &segments[op->announced])) {
			return false;
		}
	}

	return true;
}

static bool advance(struct correlate_iter *iter, struct onepass_machine *op, int64_t frontier)
{
	if (!op->decided) {
		if (!first_formula_due(iter, op, frontier)) {
			return true;
		}

		if (!decide(iter, op, frontier)) {
			return false;
		}
	} else if (op->online) {
		/*
		 * Fixed at every step: the look-ahead's matches frame the line
		 * at the horizon. Waiting until the band of possible lines was
		 * within 200 ns held a second of messages (vmsync round trips
		 * keep it wider than that) for a few nanoseconds; sparse TCP
		 * matches give up to about 0.8 us (doc/sync.md).
		 */
		vm_sync_online_commit(op->online, own_horizon(iter, op, op->online, frontier));
	}

	iter->bound_valid = false;
	return release_waiting(iter, op) && announce(iter, op, false);
}

/*
 * The upstream read the least far (own clocks; ties to the lowest index),
 * -1 when all ended: the one to read next, in the sync pass's order. How
 * far it was read is the frontier, every upstream that has not ended was
 * read up to there (INT64_MAX when all ended). One scan gives both, and
 * its pick stays valid until an upstream reads on or ends: the next pick
 * needs no scan of its own.
 */
static int64_t read_key(const struct upstream_bound *bound)
{
	if (bound->ended) {
		return INT64_MAX;
	}

	return bound->primed ? bound->input_ns : INT64_MIN;
}

/* The scan itself, over every upstream's bound (what the keys stand for). */
static int64_t scan_bounds(struct correlate_iter *iter, int *earliest)
{
	int64_t earliest_ns = INT64_MAX;

	*earliest = -1;
	for (guint i = 0; i < iter->bounds->len; i++) {
		const struct upstream_bound *bound =
			&g_array_index(iter->bounds, struct upstream_bound, i);
		int64_t read = read_key(bound);

		if (!bound->ended && (*earliest < 0 || read < earliest_ns)) {
			*earliest = (int) i;
			earliest_ns = read;
		}
	}

	return earliest_ns;
}

static int64_t scan_upstreams(struct correlate_iter *iter)
{
	const int64_t *keys;
	int earliest = -1;
	int64_t earliest_ns = INT64_MAX;

	/* The keys, one int64_t per upstream, are what the scan reads per message. */
	if (!iter->onepass_keys_valid) {
		g_array_set_size(iter->onepass_keys, iter->bounds->len);
		for (guint i = 0; i < iter->bounds->len; i++) {
			g_array_index(iter->onepass_keys, int64_t, i) =
				read_key(&g_array_index(iter->bounds, struct upstream_bound, i));
		}

		iter->onepass_keys_valid = true;
	}

	keys = (const int64_t *) (const void *) iter->onepass_keys->data;
	for (guint i = 0; i < iter->onepass_keys->len; i++) {
		if (keys[i] < earliest_ns) {
			earliest = (int) i;
			earliest_ns = keys[i];
		}
	}

	if (earliest < 0) {
		/* Every key at INT64_MAX: ended, or (never seen) read that far. */
		earliest_ns = scan_bounds(iter, &earliest);
	}

	iter->onepass_pick = earliest;
	iter->onepass_pick_valid = true;
	return earliest_ns;
}

/* The frontier moved: sync events fed, and at each step, maps fixed. */
static bool advance_all(struct correlate_iter *iter)
{
	int64_t frontier = scan_upstreams(iter);
	int64_t step;

	if (frontier <= iter->onepass_frontier || frontier == INT64_MAX) {
		return true;
	}

	iter->onepass_frontier = frontier;
	correlate_sync_feed_until(iter, frontier);
	step = frontier / COMMIT_STEP_NS;
	if (step == iter->onepass_step) {
		return true;
	}

	iter->onepass_step = step;
	iter->onepass_look_ahead = next_look_ahead(iter);
	/* The vCPU method's constraints up to the frontier, before the maps are fixed. */
	correlate_vcpu_apply_until(iter, frontier);
	correlate_vcpu_onepass_step(iter, frontier);
	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		/* At the step's time, whatever the frontier's exact value. */
		if (info->onepass && !advance(iter, info->onepass, step * COMMIT_STEP_NS)) {
			return false;
		}
	}

	return true;
}

static void hold(struct onepass_machine *op, guint index, const bt_message *msg,
		struct mirror_parked *parked, const struct msg_time *time,
		const struct stream_state *state)
{
	struct held_message *held = vm_fifo_push(held_queue(op, index));

	held->time = time->has_time ? time->ns : state ? state->last_own_ns : INT64_MIN;
	held->msg = msg;
	held->parked = parked;
	held->msg_time = *time;
	op->held_count++;
}

static bool must_wait(const struct onepass_machine *op, guint index, const struct msg_time *time)
{
	return !op->decided || !vm_fifo_is_empty(held_queue(op, index)) ||
		(time->has_time && time->ns > horizon_of(op));
}

bt_message_iterator_class_next_method_status correlate_onepass_take(
		struct correlate_iter *iter, guint index, const bt_message *msg,
		const struct msg_time *time)
{
	struct upstream_bound *bound = &g_array_index(iter->bounds, struct upstream_bound, index);
	struct stream_state *state;
	struct machine *machine = correlate_message_machine(iter, bound, msg, time, &state);
	struct onepass_machine *op = onepass_of(iter, machine);
	bool clocked = machine && machine->has_clock && (!state || state->has_clock);
	struct mirror_parked *parked = NULL;

	if (iter->sync_ready) {
		correlate_sync_note(iter, index, msg, time);
	}

	if (time->type == BT_MESSAGE_TYPE_EVENT) {
		/* It waits as a record: mirror-parked.c says why. */
		parked = mirror_park(iter->mirror, msg, time->ns);
		bt_message_put_ref(msg);
		msg = NULL;
		if (!parked) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
	}

	if (machine) {
		upstream_bound_note_machine(bound, machine);
	}

	if (!bound->primed && ((clocked && time->has_time) || (!clocked && state))) {
		/* Until now, it held everything back. */
		bound->primed = true;
		iter->bound_valid = false;
	}

	if (clocked && time->has_time) {
		bound->input_ns = time->ns;
		if (state) {
			state->last_own_ns = time->ns;
		}
	}

	if (iter->onepass_keys_valid) {
		g_array_index(iter->onepass_keys, int64_t, index) = read_key(bound);
	}

	if (op && must_wait(op, index, time)) {
		hold(op, index, msg, parked, time, state);
	} else if (!push_item(iter, index, msg, parked, time)) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}

	if (op && clocked && time->has_time) {
		if (!op->has_read) {
			op->first_read = time->ns;
			op->has_read = true;
		}

		op->last_read = time->ns > op->last_read ? time->ns : op->last_read;
		if (!op->has_event && time->type == BT_MESSAGE_TYPE_EVENT) {
			op->first_event = time->ns;
			op->has_event = true;
		}
	}

	return advance_all(iter) ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK :
		BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

/*
 * The least reference time a machine's messages read from now on (own
 * times from `t`) or waiting can map to: its map at its horizon, which
 * they are all after, or nothing before its first formula.
 */
static int64_t machine_floor(struct correlate_iter *iter, struct machine *machine, int64_t t)
{
	struct machine_info *info = correlate_machine_info(iter, machine);
	struct onepass_machine *op = info->onepass;

	if (!machine->has_clock) {
		return INT64_MAX;
	}

	if (op && !op->decided) {
		return INT64_MIN;
	}

	if (op && t > horizon_of(op)) {
		t = horizon_of(op);
	}

	return correlate_formula_lower_bound(vm_sync_map_formula_at(&info->map, t), t);
}

static int64_t upstream_floor(struct correlate_iter *iter, const struct upstream_bound *bound)
{
	int64_t lowest = INT64_MAX;

	if (!bound->primed) {
		return INT64_MIN;
	}

	for (unsigned int i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		int64_t floor;

		if (!bound->many_machines && (machine->index >= 64 ||
				!(bound->machines & (UINT64_C(1) << machine->index)))) {
			continue;
		}

		floor = machine_floor(iter, machine, bound->input_ns);
		lowest = floor < lowest ? floor : lowest;
	}

	return lowest;
}

int correlate_onepass_pick(struct correlate_iter *iter)
{
	if (!iter->onepass_pick_valid) {
		scan_upstreams(iter);
	}

	return iter->onepass_pick;
}

void correlate_onepass_upstream_ended(struct correlate_iter *iter, guint index)
{
	g_array_index(iter->bounds, struct upstream_bound, index).ended = true;
	if (iter->onepass_keys_valid) {
		g_array_index(iter->onepass_keys, int64_t, index) = INT64_MAX;
	}

	iter->onepass_pick_valid = false;
	iter->bound_valid = false;
}

void correlate_onepass_bound(struct correlate_iter *iter)
{
	int64_t lowest = INT64_MAX;
	bool open = false;

	for (guint i = 0; i < iter->bounds->len; i++) {
		const struct upstream_bound *bound =
			&g_array_index(iter->bounds, struct upstream_bound, i);
		int64_t floor;

		if (bound->ended) {
			continue;
		}

		open = true;
		floor = upstream_floor(iter, bound);
		lowest = floor < lowest ? floor : lowest;
	}

	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);
		struct onepass_machine *op = info->onepass;
		int64_t floor;

		if (!op || op->held_count == 0) {
			continue;
		}

		open = true;
		floor = !op->decided ? INT64_MIN : machine_floor(iter, op->machine, oldest_held(op));
		lowest = floor < lowest ? floor : lowest;
	}

	iter->bound = lowest;
	iter->limiting = open ? 0 : -1;
	iter->bound_valid = true;
}

/*
 * Read once, the host was chosen from event classes; the KVM entries
 * counted since tell the final rule (and its warning, with the counts).
 */
static void check_host_guess(struct correlate_iter *iter)
{
	struct machine *host;

	if (!iter->sync_ready) {
		/* Nothing was synchronized (the input keeps its time base). */
		return;
	}

	host = correlate_detect_host(iter);
	if (host == iter->sync_host || !host) {
		return;
	}

	CORRELATE_LOGW(iter->log_level, iter->name,
		"The host is `%s` after all (it has the most KVM entry events), not `%s` "
		"(chosen from the event classes when the inputs, read once, began): the "
		"guests were synchronized to the wrong machine. Pass host=\"%s\".",
		host->name, iter->sync_host ? iter->sync_host->name : "(none)", host->name);
}

bt_message_iterator_class_next_method_status correlate_onepass_finish(
		struct correlate_iter *iter, bool *pushed)
{
	*pushed = false;
	if (iter->sync_ready) {
		correlate_sync_feed_until(iter, INT64_MAX);
	}

	correlate_vcpu_apply_until(iter, INT64_MAX);
	correlate_vcpu_onepass_finish(iter);

	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);
		struct onepass_machine *op = info->onepass;

		if (!op) {
			continue;
		}

		if (!op->decided) {
			if (waits_for_vcpu(iter, op)) {
				/* The last try, on the whole input; its follower attributes it all. */
				op->vcpu_tried = true;
				op->vcpu_given_up = !correlate_vcpu_onepass_try(iter, op->machine,
					INT64_MAX, &op->vcpu_fit);
				if (!op->vcpu_given_up) {
					correlate_vcpu_onepass_finish(iter);
				}
			}

			if (!decide(iter, op, INT64_MAX)) {
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
			}

			if (iter->onepass_fallback) {
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
			}
		} else if (op->online && op->has_read) {
			vm_sync_online_commit(op->online, op->last_read);
		}

		/* Everything left maps as the map stands; plans past it never apply. */
		if (op->online) {
			vm_sync_online_end(op->online, op->has_read ? op->last_read : INT64_MIN);
		}

		*pushed = *pushed || op->held_count > 0;
		if (!announce(iter, op, true)) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}

		op->decided = true;
		if (!release_waiting(iter, op)) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
	}

	iter->onepass_finished = true;
	check_host_guess(iter);
	correlate_log_summary(iter);
	iter->bound_valid = false;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}
