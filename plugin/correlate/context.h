#ifndef VM_CORRELATE_CONTEXT_H
#define VM_CORRELATE_CONTEXT_H

/*
 * What the parts of filter.vm.correlate's message iterator share: the
 * iterator's data, its log macros and warning kinds. No part's functions:
 * each part declares its own in its header (doc/correlate.md draws them).
 *
 * The merge (merge.c): every upstream message goes into a reorder buffer
 * keyed by its converted time. A message leaves the buffer once no
 * upstream can still deliver an earlier one: each upstream's future
 * messages are at least at the converted value of its current input time
 * (input times never go back within an upstream, and maps increase), taken
 * over the machines that upstream carries. With one upstream per source
 * port this is the muxer's merge; with one already-muxed input it is a
 * reorder window as wide as the time correction.
 */

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <babeltrace2/babeltrace.h>

#include "common/log.h"
#include "common/machine.h"
#include "correlate/component.h"
#include "correlate/duplicate-inputs.h"
#include "correlate/mirror/mirror.h"
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
	struct read_once_machine *read_once; /* read once: its held messages (read-once.c) */
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

/*
 * The iterator's states (drive.c has one function each). Fall-back and
 * host re-guess are state changes, not calls back into the driver.
 */
enum correlate_state {
	/* Priming the inputs until every machine is known (and, read once, the host). */
	CORRELATE_STATE_SETTLE,
	/* Two passes: reading everything to solve the maps (two-pass.c). */
	CORRELATE_STATE_SYNC_PASS,
	/* The strategy reads, the merge releases. */
	CORRELATE_STATE_READ,
	/*
	 * Read once found no direct pair for a machine while nothing had
	 * left yet and the inputs can seek: the sync pass takes over, from
	 * the beginning.
	 */
	CORRELATE_STATE_READ_AGAIN,
	/* Every input ended: the strategy let out what it held; the merge drains. */
	CORRELATE_STATE_ENDING,
	CORRELATE_STATE_ENDED,
};

struct correlate_strategy;
struct read_once;
struct host_ahead;

struct correlate_iter {
	struct correlate_comp *comp;
	bt_self_message_iterator *self;
	bt_logging_level log_level;
	const char *name;
	enum correlate_state state;     /* drive.c changes it */
	const struct correlate_strategy *strategy;   /* strategy.h */

	/* Owned by inputs.c. */
	GArray *upstreams;        /* struct upstream */
	GArray *bounds;           /* struct upstream_bound, same indices */
	bool can_seek;
	/*
	 * An input began with a stream beginning that has a time: the mark
	 * of a seek to that time before correlate (filter.utils.trimmer, the
	 * convert form's --begin), which dropped what came before.
	 */
	bool input_cut;
	int64_t input_cut_ns;     /* that time, ns from its clock's origin */
	/* The least-read scan (correlate_inputs_least_read()). */
	int pick;                 /* the upstream to read next */
	bool pick_valid;          /* ... and no upstream read on or ended since */
	GArray *read_keys;        /* int64_t per upstream: how far read */
	bool read_keys_valid;

	/* Owned by machines.c and setup.c. */
	struct machine_table *machines;
	GPtrArray *infos;         /* struct machine_info *, by machine index */
	GHashTable *streams;      /* const bt_stream * -> struct stream_state * */
	const bt_stream *last_stream;          /* one-entry cache of `streams` */
	struct stream_state *last_stream_state;
	GHashTable *stream_classes_seen;   /* for declares_kvm */
	struct duplicate_inputs *duplicates;  /* the same trace given twice */
	/*
	 * The input is a previous run's output, already in one time base:
	 * its times, roles and vm_sync_* entries are kept (setup.c).
	 */
	bool keeps_time_base;
	bool machines_final;      /* names, roles and formulas are set (setup.c) */

	/* Owned by sync-notes.c, choose.c and the vCPU method (vcpu-*.c). */
	struct sync_event_reader *reader;
	bool sync_ready;          /* machines named, sync objects created */
	bool sync_pass_done;      /* the maps come from a whole sync pass */
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
	GArray *records;          /* struct sync_record of one timestamp (read once: not fed yet) */
	int64_t records_min_ts;   /* read once: the earliest of `records` */
	bool records_sorted;      /* read once: `records` is in feed order */

	/* Owned by the strategies: two-pass.c, read-once*.c, host-ahead.c. */
	GArray *heads;            /* struct sync_head, one per upstream */
	struct read_once *read_once;
	struct host_ahead *host_ahead;

	/* Owned by merge.c and sync-stream-queue.c. */
	GArray *pending;          /* struct pending_message, before machines are final */
	struct reorder *reorder;
	bool bound_valid;         /* `bound` and `limiting` are up to date */
	int64_t bound;            /* entries below it can be emitted */
	int limiting;             /* the upstream that holds `bound` down, -1: none */
	int64_t other_bound;      /* the lowest bound of the other upstreams */
	bool sync_events_queued;  /* the vm:sync events of fixed maps are in the buffer */
	bool released_any;        /* a message left since the inputs were last read from the start */
	struct mirror *mirror;
	struct sync_stream *sync_stream;   /* vm:sync events (sync-stream.h) */
	uint64_t sync_stream_seq;          /* next position in the vm:sync stream */
	uint64_t inactivity_seq;
	bool has_last_emitted;
	int64_t last_emitted;
};

/* Where upstream `index` stands. */
static inline struct upstream_bound *correlate_bound_at(struct correlate_iter *iter,
		guint index)
{
	return &g_array_index(iter->bounds, struct upstream_bound, index);
}

#endif /* VM_CORRELATE_CONTEXT_H */
