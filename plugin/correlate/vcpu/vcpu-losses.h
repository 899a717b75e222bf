#ifndef VM_CORRELATE_VCPU_LOSSES_H
#define VM_CORRELATE_VCPU_LOSSES_H

/*
 * What the vCPU method (vcpu-collect.c) must leave out where the tracers
 * lost events (SPEC "Lost events"). The discarded-events and -packets
 * messages of the host and the guests are located as gaps of their
 * streams (lib/loss/gap-tracker.h), in the collection's order (read once,
 * with its notes: vcpu-collect.c defers them alike):
 *
 * - a gap of a host CPU: its open guest-mode interval is dropped (its exit
 *   may be lost), and until the CPU's next sched_switch its thread is
 *   unknown, so that its entries and exits are not collected. From the
 *   gap's beginning to that switch, any vCPU thread may have been in guest
 *   mode on that CPU unseen: that window goes to the alignment and to the
 *   followers (lib/sync/vcpu-align.h, vcpu-follow.h), which leave it out;
 * - a gap of a guest CPU removes guest events, which takes nothing the fit
 *   relies on: it is only counted, for the warnings.
 *
 * Each machine's info gets the gaps located and the time they cover
 * (vcpu_loss_gaps, vcpu_loss_ns), which the warnings of a failed fit name.
 */

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

#include "common/msg-time.h"
#include "event.h"

struct correlate_iter;
struct machine;
struct vcpu_losses;

struct vcpu_losses *vcpu_losses_create(void);
void vcpu_losses_destroy(struct vcpu_losses *losses);

/*
 * A discarded-events or -packets message as a loss (kind VM_EVENT_LOSS: ts
 * the range's beginning, u.loss its end and count), own clock. False when
 * it has no times: nothing says where its gap is, and it is left alone.
 */
bool vcpu_losses_read(const bt_message *msg, const struct msg_time *time,
		struct vm_event *loss);

/* A loss of stream `stream` (the caller's key) of machine `machine` (index). */
void vcpu_losses_apply_loss(struct correlate_iter *iter, const void *stream,
		unsigned int machine, const struct vm_event *loss);

/*
 * A host event of stream `stream`, before it is applied: locates the gap
 * it follows, and tells whether it may be applied (false: an entry or exit
 * of a CPU whose thread is unknown since a gap).
 */
bool vcpu_losses_host_event(struct correlate_iter *iter, const void *stream,
		const struct vm_event *event);

/* A guest event of stream `stream`, on its CPU `cpu`, before it is applied. */
void vcpu_losses_guest_event(struct correlate_iter *iter, const void *stream,
		int64_t cpu, int64_t ts);

/*
 * Read once, everything was applied up to `frontier`: the host CPUs whose
 * thread is still unknown since a gap are so up to there, which the
 * alignment and the followers learn.
 */
void vcpu_losses_reach(struct correlate_iter *iter, int64_t frontier);

/*
 * Read once: the host time up to which every gap of the host that the
 * collection may still locate is known (INT64_MAX when none is pending).
 */
int64_t vcpu_losses_host_known(const struct correlate_iter *iter);

/* The whole input was applied: the losses still pending are located where they stand. */
void vcpu_losses_finish(struct correlate_iter *iter);

/*
 * What the host and guest `guest` lost, for a warning (g_free it), or NULL
 * when neither lost anything: "`host` lost events in N gaps covering X ms,
 * until its CPUs' next sched_switch; `guest` lost events in ...".
 */
char *vcpu_losses_describe(struct correlate_iter *iter, struct machine *guest);

#endif /* VM_CORRELATE_VCPU_LOSSES_H */
