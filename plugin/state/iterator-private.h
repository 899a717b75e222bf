#ifndef VM_PLUGIN_STATE_ITERATOR_PRIVATE_H
#define VM_PLUGIN_STATE_ITERATOR_PRIVATE_H

/*
 * The message iterator of filter.vm.state, shared by its files:
 * state-iterator.c (life, message dispatch, output), machine-params.c (the
 * machines and who runs them: env, `vm-pids`, `host`) and input-losses.c
 * (lost events placed in time for the vCPU tracker).
 */

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "state/state-component.h"
#include "state/msg-ring.h"
#include "state/cause-ring.h"
#include "state/vcpu-stream.h"
#include "state/earlier-states.h"
#include "common/event-decode.h"
#include "common/log.h"
#include "common/loss-streams.h"
#include "common/machine.h"
#include "loss/gap-locator.h"
#include "model/model.h"
#include "vcpu/tracker.h"

#define STATE_LOG(self_comp, level, ...) \
	vm_log_comp((self_comp), (level), "filter.vm.state", __VA_ARGS__)

struct state_iterator {
	bt_self_message_iterator *self_msg_iter;
	struct state_component *component;
	bt_message_iterator *upstream;
	struct event_decoder *decoder;
	struct machine_table *machines;
	struct vm_model *model;
	/* In front of the tracker: lost events at their place in time. */
	struct vm_gap_locator *locator;
	struct loss_streams *loss_streams;
	/* The latest input time given to the locator (ns), INT64_MIN before. */
	int64_t locator_ts;
	/* Losses given to the locator and not located yet. */
	uint64_t losses_pending;
	/*
	 * The message being pushed to the locator (NULL between pushes) and
	 * its type, which on_located() then need not ask again.
	 */
	const bt_message *pushing;
	bt_message_type pushing_type;
	/*
	 * Some stream may lose events without telling when (its discarded
	 * messages have no clock snapshots): its gaps are placed at the time
	 * of the message before them, so every message's time is read.
	 * Otherwise an event's time is read only while the locator needs it
	 * (a loss pending, or messages held): it costs as much as the rest of
	 * this component's work on an event that the analysis does not use.
	 */
	bool times_always;
	/*
	 * The analysis is being destroyed: what the locator still releases is
	 * dropped, not analyzed.
	 */
	bool dropping;
	struct vm_vcpu_tracker *tracker;
	struct vcpu_stream *vcpu_stream;
	/* vm:vcpu_state streams of the input, replaced by ours. */
	struct earlier_states *earlier_states;
	/* References owned, in output order. */
	struct msg_ring output;
	/* Of each input the tracker holds, in input order. */
	struct cause_ring causes;
	/*
	 * The last input released: the event that causes the mode changes
	 * reported right after it. The message is borrowed: its reference is
	 * in `output`, which next() drains only after the tracker returns.
	 */
	const bt_message *cause_msg;
	struct input_cause cause;
	/* Clock of the last timed input released: the vCPU stream ends there. */
	struct event_clock input_end;
	bool vm_pids_applied;
	/*
	 * Whether vm-pids was checked against the host (once it is known), or
	 * needs no check (empty).
	 */
	bool vm_pids_host_checked;
	/*
	 * filter.vm.correlate's `vm_role` said which machine is the host:
	 * the host rule was applied there, this component follows it.
	 */
	bool roles_given;
	int64_t role_host;  /* the machine whose vm_role is `host`, or -1 */
	bool upstream_ended;
	/* A tracker callback failed (error cause appended). */
	bool failed;
	/* Warned that several machines came without filter.vm.correlate. */
	bool warned_unsynchronized;
};

#define ITER_ERROR_CAUSE(it, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR( \
		(it)->self_msg_iter, __VA_ARGS__)

/* machine-params.c */

/* The name of machine `index` (named on first sight), "" if none. */
const char *state_machine_name(const struct state_iterator *it,
		unsigned int index);

/* Machine `machine` to the tracker, with the role `vm_role` gives it. */
void state_announce_machine(struct state_iterator *it, unsigned int machine);

/* The machine of `stream`, announced to the tracker on first sight. */
unsigned int state_machine_of_stream(struct state_iterator *it,
		const bt_stream *stream);

/*
 * Applies `vm-pids`, the guests' `vm_host_pid` and `host` (once); false,
 * with an error cause, when they cannot be.
 */
bool state_apply_machine_params(struct state_iterator *it);

/* Checks `vm-pids` against the host once it is known; false on error. */
bool state_check_vm_pids_host(struct state_iterator *it);

/* Says how the host was chosen, when that was a choice. */
void state_warn_host_choice(struct state_iterator *it);

/* input-losses.c */

/* A located gap: a VM_EVENT_LOSS input of the tracker (gap locator callback). */
void state_on_gap(const struct vm_gap *gap, void *data);

/* The time the gap locator gets for `msg`. */
int64_t state_locator_time(struct state_iterator *it, const bt_message *msg,
		bool is_event);

/* Whether `stream` may lose events or packets without saying when. */
bool state_loses_without_times(const bt_stream *stream);

/* A discarded-events/packets message: the locator places its gap. */
void state_locate_discarded(struct state_iterator *it, const bt_message *msg);

#endif /* VM_PLUGIN_STATE_ITERATOR_PRIVATE_H */
