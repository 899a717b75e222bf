#ifndef VM_CORRELATE_ITERATOR_H
#define VM_CORRELATE_ITERATOR_H

/*
 * The message iterator of filter.vm.correlate.
 *
 * Sync pass (pass 1): read every upstream to its end, note the machines and
 * the synchronization events, solve every machine's clock against the
 * reference; then seek every upstream to its beginning.
 *
 * Merge pass: every upstream message goes into a reorder buffer keyed by
 * its converted time. A message leaves the buffer once no upstream can still
 * deliver an earlier one: each upstream's future messages are at least at
 * the converted value of its current input time (input times never go back
 * within an upstream, and formulas have positive slopes), taken over the
 * machines that upstream carries. With one upstream per source port this is
 * the muxer's merge; with one already-muxed input it is a reorder window as
 * wide as the time correction.
 */

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <babeltrace2/babeltrace.h>

#include "common/log.h"
#include "common/machine.h"
#include "correlate/component.h"
#include "correlate/duplicate-inputs.h"
#include "correlate/mirror.h"
#include "correlate/reorder.h"
#include "correlate/sync-events.h"
#include "correlate/sync-stream.h"
#include "correlate/upstream.h"
#include "sync/guest-mode.h"
#include "sync/map.h"
#include "sync/quality.h"
#include "sync/formula.h"
#include "sync/prepared.h"
#include "sync/vcpu-align.h"
#include "sync/vcpu-follow.h"

/* An error cause from the message iterator. */
#define ITER_ERROR(iter, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR((iter)->self, __VA_ARGS__)

/* Log lines of filter.vm.correlate, in babeltrace2's shape (common/log.h). */
#define CORRELATE_LOG_TAG "PLUGIN/FLT.VM.CORRELATE"
#define CORRELATE_LOGW(lvl, name, ...) \
	vm_log_bt((lvl), BT_LOGGING_LEVEL_WARNING, CORRELATE_LOG_TAG, (name), \
		__VA_ARGS__)
#define CORRELATE_LOGI(lvl, name, ...) \
	vm_log_bt((lvl), BT_LOGGING_LEVEL_INFO, CORRELATE_LOG_TAG, (name), \
		__VA_ARGS__)

/* Warning kinds, once per machine (machine_warn_once()). */
enum correlate_warning {
	WARN_NO_SYNC,
	WARN_OVERLAP,
	WARN_MISSING_FIELDS,
	WARN_NO_CLOCK,
	WARN_LATE_MACHINE,
	WARN_OUT_OF_ORDER,
	WARN_MANY_HOSTS,
};

/* What filter.vm.correlate knows about one machine. */
struct machine_info {
	struct vm_sync_map map;           /* machine clock -> reference; map.formula: the first line */
	/*
	 * The last two formulas prepared (merge.c): read once, the held
	 * messages of a machine's upstreams leave upstream by upstream, so
	 * its times go back and forth across the border of two segments.
	 */
	struct vm_sync_prepared prepared[2];
	unsigned int prepared_older;      /* the slot to replace next */
	enum vm_sync_quality quality;
	long double accuracy;
	uint64_t matches;
	const char *method;               /* how the formula was obtained */
	const char *role;                 /* "host", "guest" or "unknown" */
	bool is_reference;
	uint64_t kvm_entries;             /* seen in the sync pass */
	uint64_t kvm_entries_ahead;       /* read once: seen before the host was chosen (host-ahead.c) */
	bool has_span;                    /* first_ns and last_ns are set */
	int64_t first_ns;                 /* own clock, seen in the sync pass */
	int64_t last_ns;
	bool declares_kvm;                /* its stream classes have KVM entries */
	bool declares_sync;               /* ... vmsync or TCP events (sync-events.h) */
	/* sync="vcpu" collection of the last sync pass (vcpu-collect.h). */
	uint64_t vcpu_guest_events;       /* as a guest: events given to by_vcpu */
	uint64_t vcpu_events_without_cpu; /* as a guest: events with no packet context cpu_id */
	bool vcpu_unneeded;               /* as a guest: vmsync reaches it (vcpu-collect.c) */
	struct vm_guest_mode_counts guest_modes; /* as the host: its entry/exit pairing */
	/* sync="vcpu": gaps of its streams located (vcpu-losses.c), and the time they cover. */
	uint64_t vcpu_loss_gaps;
	int64_t vcpu_loss_ns;
	int64_t host_pid;                 /* as a guest: its QEMU process on the host, -1 none */
	struct onepass_machine *onepass;  /* one pass: its held messages (onepass.c) */
	/* Read once, as a guest synchronized by the vCPU method (vcpu-onepass.c). */
	struct vm_vcpu_follow *vcpu_follow;
	struct vm_sync_online *vcpu_online;  /* its map, host to guest */
};

struct stream_state {
	struct machine *machine;
	struct machine_info *info;   /* the machine's, looked up once */
	bool has_clock;
	char *sort_key;      /* graph-independent tie-break */
	uint64_t seq;        /* messages of the stream so far */
	int64_t last_time;   /* converted time of its last timed message */
	bool has_last_time;
	int64_t last_own_ns; /* one pass: own time of its last timed message read */
	guint reorder_queue; /* its queue in the reorder buffer */
};

/* Where an upstream stands for the merge. */
struct upstream_bound {
	bool ended;
	bool primed;           /* it delivered a timed message */
	int64_t input_ns;      /* time of its last timed message, own clock */
	int64_t ahead_ns;      /* the same, while reading ahead for the host (host-ahead.c) */
	int64_t lower_bound;   /* no future message converts below this */
	uint64_t machines;     /* machines it carries (bit per machine index) */
	const bt_stream *cached_stream;         /* its last stream, and */
	struct stream_state *cached_state;      /* that stream's state */
	bool many_machines;    /* one of them has an index >= 64 */
};

/* Adds `machine` to the machines `bound` carries. */
static inline void upstream_bound_note_machine(struct upstream_bound *bound,
		const struct machine *machine)
{
	if (machine->index < 64) {
		bound->machines |= UINT64_C(1) << machine->index;
	} else {
		bound->many_machines = true;
	}
}

/* The next timed message of an upstream, during the sync pass. */
struct sync_head {
	const bt_message *msg;    /* NULL: none pulled yet */
	struct msg_time time;
};

/* A message read before the machines were final. */
struct pending_message {
	guint upstream;
	const bt_message *msg;
};

/* One synchronization event noted by the sync pass. */
struct sync_record {
	int64_t ts;                 /* the machine's own clock */
	struct machine *machine;
	struct sync_message message;
};

enum correlate_phase {
	PHASE_SYNC_PASS,
	PHASE_MERGE,
};

struct correlate_iter {
	struct correlate_comp *comp;
	bt_self_message_iterator *self;
	bt_logging_level log_level;
	const char *name;

	GArray *upstreams;        /* struct upstream */
	GArray *bounds;           /* struct upstream_bound, same indices */
	bool can_seek;

	struct machine_table *machines;
	GPtrArray *infos;         /* struct machine_info *, by machine index */
	GHashTable *streams;      /* const bt_stream * -> struct stream_state * */
	const bt_stream *last_stream;          /* one-entry cache of `streams` */
	struct stream_state *last_stream_state;
	GHashTable *stream_classes_seen;   /* for declares_kvm */
	struct duplicate_inputs *duplicates;  /* the same trace given twice */

	enum correlate_phase phase;
	/* Reads the inputs once, maps learnt as they are read (onepass.c). */
	bool onepass;
	bool onepass_started;
	bool onepass_finished;
	/*
	 * Read once, a machine found no direct pair with the reference
	 * while nothing had left yet and the inputs can seek: the sync pass
	 * takes over (onepass.c says when).
	 */
	bool onepass_fallback;
	bool onepass_released;    /* a message left since one pass began */
	bool machines_final;      /* names, roles and formulas are set */
	/*
	 * The input is a previous run's output, already in one time base:
	 * its times, roles and vm_sync_* entries are kept (setup.c).
	 */
	bool keeps_time_base;
	bool sync_pass_done;
	bool summary_has_segments;   /* a machine's map has several segments */
	bool summary_has_unsynced;   /* a machine is left on its own clock */
	/*
	 * An input began with a stream beginning that has a time: the mark
	 * of a seek to that time before correlate (filter.utils.trimmer, the
	 * convert form's --begin), which dropped what came before (merge.c).
	 */
	bool input_cut;
	int64_t input_cut_ns;     /* that time, ns from its clock's origin */

	/* Sync pass. */
	struct sync_event_reader *reader;
	GArray *heads;            /* struct sync_head, one per upstream */
	bool sync_ready;          /* machines named, sync objects created */
	struct vm_sync *by_vmsync;
	struct vm_sync *by_tcp;
	/*
	 * sync="vcpu" (or auto): the host's guest-mode intervals and the
	 * guests' events, machines by machine-table index; NULL when `sync`
	 * rules vcpu out or the input keeps its time base.
	 */
	struct vm_vcpu_align *by_vcpu;
	struct vcpu_collector *vcpu_collector; /* NULL without a host */
	unsigned int *sync_index; /* machine index -> sync library index */
	unsigned int sync_count;  /* machines the sync objects know */
	struct machine *sync_host;   /* the host the pass started with */
	GArray *records;          /* struct sync_record of one timestamp (one pass: not fed yet) */
	int64_t records_min_ts;   /* one pass: the earliest of `records` */
	bool records_sorted;      /* one pass: `records` is in compare_records() order */
	int64_t onepass_frontier; /* one pass: every upstream was read up to it (own clocks) */
	int64_t onepass_step;     /* one pass: the last commit step reached */
	int64_t onepass_look_ahead; /* one pass: the look-ahead in force (HELD_BUDGET) */
	int onepass_pick;         /* one pass: the upstream to read next (onepass.c) */
	bool onepass_pick_valid;  /* ... and no upstream read on or ended since */
	GArray *onepass_keys;     /* int64_t per upstream: how far read (onepass.c) */
	bool onepass_keys_valid;
	/* One pass: reading ahead to count KVM entries before choosing the host (host-ahead.c). */
	bool host_ahead_started;
	bool host_ahead_done;
	bool host_ahead_has_start;
	int64_t host_ahead_start;  /* the earliest own time read */

	/* Merge pass. */
	GArray *pending;          /* struct pending_message, before machines are final */
	struct reorder *reorder;
	bool bound_valid;         /* `bound` and `limiting` are up to date */
	int64_t bound;            /* entries below it can be emitted */
	int limiting;             /* the upstream that holds `bound` down, -1: none */
	int64_t other_bound;      /* the lowest bound of the other upstreams */
	struct mirror *mirror;
	struct sync_stream *sync_stream;   /* vm:sync events (sync-stream.h) */
	bool sync_events_queued;           /* this pass's are in the reorder buffer */
	uint64_t sync_stream_seq;          /* next position in the vm:sync stream */
	uint64_t inactivity_seq;
	bool has_last_emitted;
	int64_t last_emitted;
};

/* The machine info of `machine`, created (identity) on first call. */
struct machine_info *correlate_machine_info(struct correlate_iter *iter,
		struct machine *machine);

/* The state of a stream, registering its machine on first sight. */
struct stream_state *correlate_stream_state(struct correlate_iter *iter,
		const bt_stream *stream);

/* The same, through the cache of the upstream the message came from. */
struct stream_state *correlate_upstream_stream_state(struct correlate_iter *iter,
		struct upstream_bound *bound, const bt_stream *stream);

/* setup.c: names, parameter checks, roles, reference, formulas. */
bool correlate_finalize_machines(struct correlate_iter *iter);

/* sync-pass.c: the machine whose clock is the time base, NULL before it is chosen. */
struct machine *correlate_reference_machine(struct correlate_iter *iter);

/* The host: `host`, else the machine with the most KVM entries. */
struct machine *correlate_detect_host(struct correlate_iter *iter);

/* Whether the given `transforms` cover every machine but the reference. */
bool correlate_transforms_cover_all(struct correlate_iter *iter);

/* sync-pass.c: pass 1 and the solve. */
bt_message_iterator_class_next_method_status correlate_sync_pass(
		struct correlate_iter *iter);

/*
 * The sync objects (names, host, reference, order), as the sync pass makes
 * them before its first event; in one pass, with one-pass maps and no vCPU
 * collection.
 */
bool correlate_sync_prepare(struct correlate_iter *iter);

/* Notes one message for synchronization (machines, spans, sync events). */
void correlate_sync_note(struct correlate_iter *iter, guint upstream_index,
		const bt_message *msg, const struct msg_time *time);

/* Feeds the sync events noted but not yet fed (those of the last timestamp). */
void correlate_sync_flush(struct correlate_iter *iter);

/*
 * One pass: feeds the sync events noted up to `frontier` (own clocks: every
 * upstream was read up to there), in the order the sync pass feeds them, so
 * that matching does not depend on how the graph is built.
 */
void correlate_sync_feed_until(struct correlate_iter *iter, int64_t frontier);

/* Forgets a sync pass under way (a seek restarts it). */
void correlate_sync_pass_reset(struct correlate_iter *iter);

/*
 * Warns (once per machine) when the formula `machine` took has matches but
 * no line: they all go one way (quality `incomplete`), so its times stay on
 * its own clock where that formula applies.
 */
void correlate_warn_if_no_line(struct correlate_iter *iter, struct machine *machine);

/* env.c: environment entries of an output trace, and the summary log. */
bool correlate_trace_created(void *data,
		const bt_trace *upstream_trace, bt_trace *output_trace);
void correlate_log_summary(struct correlate_iter *iter);

/* merge.c */
bt_message_iterator_class_next_method_status correlate_merge_next(
		struct correlate_iter *iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count);
void correlate_merge_reset(struct correlate_iter *iter);

/*
 * sync-stream-queue.c: the vm:sync events of every machine's segments
 * after its first, into the reorder buffer (with the stream and packet
 * beginnings), and their ends once the inputs ended. False with an error
 * cause.
 */
bool correlate_queue_sync_events(struct correlate_iter *iter);

/* One pass: the vm:sync event of `segment` of `machine`, into the reorder buffer. */
bool correlate_announce_segment(struct correlate_iter *iter, struct machine *machine,
		const struct vm_sync_segment *segment);
bool correlate_end_sync_events(struct correlate_iter *iter);

/* merge.c, for onepass.c and host-ahead.c */
enum upstream_status correlate_pull(struct correlate_iter *iter, guint index,
		const bt_message **msg, struct msg_time *time);
bt_message_iterator_class_next_method_status correlate_status_of(struct correlate_iter *iter,
		enum upstream_status status, guint index);
bool correlate_push(struct correlate_iter *iter, guint upstream_index, const bt_message *msg,
		const struct msg_time *time);
bool correlate_push_parked(struct correlate_iter *iter, guint upstream_index,
		struct mirror_parked *parked, const struct msg_time *time);
struct machine *correlate_message_machine(struct correlate_iter *iter,
		struct upstream_bound *bound, const bt_message *msg, const struct msg_time *time,
		struct stream_state **state);
int64_t correlate_formula_lower_bound(const struct vm_sync_formula *formula, int64_t t);
bt_message_iterator_class_next_method_status correlate_start_sync_pass(
		struct correlate_iter *iter);

/*
 * onepass.c: correlate in one pass (sync-model="piecewise"). _wanted():
 * whether the parameters allow it; _start(): once the machines are known;
 * _take(): a pulled message (noted, held or pushed); _pick(): the upstream
 * to read next (-1: all ended); _bound(): the reorder's bound; _finish():
 * after the end of every input (true when it pushed messages); _reset():
 * forget everything (a seek).
 */
bool correlate_onepass_wanted(const struct correlate_iter *iter);

/*
 * host-ahead.c: read once, when several machines declare KVM entries,
 * reads on (into `pending`) until the entries counted tell the host, or a
 * budget is spent. Called again after AGAIN; OK once done.
 */
bt_message_iterator_class_next_method_status correlate_read_ahead_for_host(
		struct correlate_iter *iter);
bool correlate_onepass_start(struct correlate_iter *iter);
bt_message_iterator_class_next_method_status correlate_onepass_take(
		struct correlate_iter *iter, guint index, const bt_message *msg,
		const struct msg_time *time);
int correlate_onepass_pick(struct correlate_iter *iter);
/* One pass: upstream `index` ended. */
void correlate_onepass_upstream_ended(struct correlate_iter *iter, guint index);
void correlate_onepass_bound(struct correlate_iter *iter);
bt_message_iterator_class_next_method_status correlate_onepass_finish(
		struct correlate_iter *iter, bool *pushed);
void correlate_onepass_reset(struct correlate_iter *iter);
/* The sync pass takes over from one pass (`onepass_fallback` is set). */
bt_message_iterator_class_next_method_status correlate_onepass_fall_back(
		struct correlate_iter *iter);


/* iterator.c: seek every upstream to its beginning. */
bool correlate_seek_upstreams(struct correlate_iter *iter);

/* Drops every stream state (a seek makes streams start over). */
void correlate_forget_streams(struct correlate_iter *iter);

#endif /* VM_CORRELATE_ITERATOR_H */
