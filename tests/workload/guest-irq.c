#include "guest-irq.h"

#include "emit.h"
#include "guest-sched.h"
#include "vcpu.h"

/* Linux's vectors and softirq numbers. */
enum {
	LOCAL_TIMER_VECTOR = 236,
	RESCHEDULE_VECTOR = 253,
	SOFTIRQ_TIMER = 1,
	SOFTIRQ_NET_TX = 2,
	SOFTIRQ_NET_RX = 3,
	SOFTIRQ_BLOCK = 4,
	SOFTIRQ_RCU = 9,
	IRQ_HANDLED = 1,
};

#define TICK_SCHED_TIMER UINT64_C(0xffffffff8113a2c0)
#define HRTIMER_WAKEUP UINT64_C(0xffffffff81139a10)

const char *const wl_girq_event_defs[] = {
	"irq_handler_entry irq:s32 name:string",
	"irq_handler_exit irq:s32 ret:s32",
	"irq_softirq_entry vec:u32",
	"irq_softirq_exit vec:u32",
	"timer_hrtimer_expire_entry hrtimer:x64 now:s64 function:x64",
	"timer_hrtimer_expire_exit hrtimer:x64",
	"x86_irq_vectors_local_timer_entry vector:s32",
	"x86_irq_vectors_local_timer_exit vector:s32",
	"x86_irq_vectors_reschedule_entry vector:s32",
	"x86_irq_vectors_reschedule_exit vector:s32",
	NULL,
};

typedef struct device_irq {
	int irq;
	const char *name;
	int softirq;
} device_irq;

/* A virtio guest's interrupt lines. */
static const device_irq devices[] = {
	{ 24, "virtio0-input.0", SOFTIRQ_NET_RX },
	{ 25, "virtio0-output.0", SOFTIRQ_NET_TX },
	{ 27, "virtio2-req.0", SOFTIRQ_BLOCK },
};

/* The steps of a handler; the softirq ones only when it raised one. */
typedef enum {
	OP_END,
	OP_IRQ_ENTRY, OP_IRQ_EXIT,
	OP_TIMER_ENTRY, OP_HRTIMER_ENTRY, OP_WAKE, OP_HRTIMER_EXIT, OP_TIMER_EXIT,
	OP_RESCHED_ENTRY, OP_RESCHED_EXIT,
	OP_SOFTIRQ_ENTRY, OP_SOFTIRQ_EXIT,
} op;

static const op device_ops[] = { OP_IRQ_ENTRY, OP_IRQ_EXIT, OP_SOFTIRQ_ENTRY, OP_SOFTIRQ_EXIT,
				 OP_END };
static const op tick_ops[] = { OP_TIMER_ENTRY, OP_HRTIMER_ENTRY, OP_HRTIMER_EXIT, OP_TIMER_EXIT,
			       OP_SOFTIRQ_ENTRY, OP_SOFTIRQ_EXIT, OP_END };
static const op thread_timer_ops[] = { OP_TIMER_ENTRY, OP_HRTIMER_ENTRY, OP_WAKE,
				       OP_HRTIMER_EXIT, OP_TIMER_EXIT, OP_END };
static const op resched_ops[] = { OP_RESCHED_ENTRY, OP_RESCHED_EXIT, OP_END };

static const op *program(const wl_girq *girq)
{
	switch (girq->kind) {
	case GIRQ_DEVICE:
		return device_ops;
	case GIRQ_TICK:
		return tick_ops;
	case GIRQ_THREAD_TIMER:
		return thread_timer_ops;
	case GIRQ_RESCHED:
		break;
	}
	return resched_ops;
}

static op next_op(const wl_girq *girq)
{
	op next = program(girq)[girq->step];

	if ((next == OP_SOFTIRQ_ENTRY || next == OP_SOFTIRQ_EXIT) && girq->softirq < 0)
		return OP_END;
	return next;
}

/* Guest CPU time from the previous step to this one. */
static uint64_t gap_ns(wl_sim *sim, op o)
{
	switch (o) {
	case OP_IRQ_EXIT:
		return wl_rng_range(&sim->rng, 1000, 6000);
	case OP_SOFTIRQ_ENTRY:
		return wl_rng_range(&sim->rng, 200, 1000);
	case OP_SOFTIRQ_EXIT:
		return wl_rng_range(&sim->rng, 2000, 15000);
	case OP_HRTIMER_EXIT:
		return wl_rng_range(&sim->rng, 300, 3000);
	case OP_WAKE:
	case OP_RESCHED_EXIT:
		return wl_rng_range(&sim->rng, 300, 1500);
	default:
		break;
	}
	return wl_rng_range(&sim->rng, 200, 600);
}

bool wl_girq_busy(const wl_vcpu *vcpu)
{
	return vcpu->irq || !g_queue_is_empty((GQueue *)&vcpu->irqs);
}

static bool has_kind(const wl_vcpu *vcpu, wl_girq_kind kind)
{
	if (vcpu->irq && vcpu->irq->kind == kind)
		return true;
	for (GList *l = vcpu->irqs.head; l; l = l->next)
		if (((const wl_girq *)l->data)->kind == kind)
			return true;
	return false;
}

/* Injects GIRQ. EXIT_REASON: the exit it causes in guest mode (0: none,
 * a posted interrupt). Out of guest mode it waits for the next entry,
 * and wakes a halted vCPU. */
static void raise_irq(wl_sim *sim, wl_vcpu *vcpu, wl_girq *girq, uint32_t exit_reason)
{
	bool was_busy = wl_girq_busy(vcpu);

	g_queue_push_tail(&vcpu->irqs, girq);
	if (vcpu->mode != MODE_GUEST) {
		wl_vcpu_kick(sim, vcpu);
	} else if (exit_reason) {
		if (!vcpu->forced_reason) {
			vcpu->forced_reason = exit_reason;
			vcpu->exit_ns = sim->now;
		}
	} else if (!was_busy) {
		vcpu->irq_next_ns = sim->now + wl_rng_range(&sim->rng, 300, 1500);
	}
}

static wl_girq *new_girq(wl_girq_kind kind)
{
	wl_girq *girq = g_new0(wl_girq, 1);

	girq->kind = kind;
	girq->softirq = -1;
	return girq;
}

static void inject_device(wl_sim *sim, wl_vcpu *vcpu)
{
	const device_irq *device = &devices[wl_rng_range(&sim->rng, 0, G_N_ELEMENTS(devices) - 1)];
	wl_girq *girq = new_girq(GIRQ_DEVICE);

	girq->irq = device->irq;
	girq->softirq = wl_rng_chance(&sim->rng, 500) ? device->softirq : -1;
	raise_irq(sim, vcpu, girq, 0);
}

void wl_girq_after_exit(wl_sim *sim, wl_vcpu *vcpu, uint32_t reason, bool picked)
{
	/* Most EXTERNAL_INTERRUPT exits a guest causes are its devices'
	 * interrupts, injected at the next entry; the rest are the host's. */
	if (reason == EXIT_EXTERNAL_INTERRUPT && picked && wl_rng_chance(&sim->rng, 800))
		inject_device(sim, vcpu);
}

void wl_girq_device(wl_sim *sim, wl_vcpu *vcpu)
{
	inject_device(sim, vcpu);
}

void wl_girq_entered(wl_sim *sim, wl_vcpu *vcpu, bool was_halted)
{
	if (vcpu->irq)
		vcpu->irq_next_ns = sim->now + vcpu->irq_left_ns;
	else if (!g_queue_is_empty(&vcpu->irqs))
		/* KVM injected it with the entry: the guest is in its handler at once */
		vcpu->irq_next_ns = sim->now + wl_rng_range(&sim->rng, 300, was_halted ? 1000 : 2000);
}

void wl_girq_exited(wl_sim *sim, wl_vcpu *vcpu)
{
	if (vcpu->irq)
		vcpu->irq_left_ns = vcpu->irq_next_ns > sim->now ? vcpu->irq_next_ns - sim->now : 0;
}

static uint64_t guest_monotonic_ns(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_guest *guest = vcpu->guest;

	return wl_clock_read(&guest->clock, sim->now) - guest->stub.clock_offset_ns;
}

static void run_op(wl_sim *sim, wl_vcpu *vcpu, wl_girq *girq, op o)
{
	uint64_t function = girq->kind == GIRQ_TICK ? TICK_SCHED_TIMER : HRTIMER_WAKEUP;

	switch (o) {
	case OP_IRQ_ENTRY:
		for (size_t i = 0; i < G_N_ELEMENTS(devices); i++)
			if (devices[i].irq == girq->irq)
				wl_guest_emit(sim, vcpu, "irq_handler_entry", "irq=%d name=\"%s\"",
					      girq->irq, devices[i].name);
		break;
	case OP_IRQ_EXIT:
		wl_guest_emit(sim, vcpu, "irq_handler_exit", "irq=%d ret=%d", girq->irq, IRQ_HANDLED);
		break;
	case OP_TIMER_ENTRY:
	case OP_TIMER_EXIT:
		wl_guest_emit(sim, vcpu, o == OP_TIMER_ENTRY ? "x86_irq_vectors_local_timer_entry" :
			      "x86_irq_vectors_local_timer_exit", "vector=%d", LOCAL_TIMER_VECTOR);
		break;
	case OP_HRTIMER_ENTRY:
		wl_guest_emit(sim, vcpu, "timer_hrtimer_expire_entry",
			      "hrtimer=0x%" G_GINT64_MODIFIER "x now=%" G_GUINT64_FORMAT
			      " function=0x%" G_GINT64_MODIFIER "x",
			      girq->hrtimer, guest_monotonic_ns(sim, vcpu), function);
		break;
	case OP_WAKE:
		wl_guest_wake(sim, vcpu, girq->thread);
		break;
	case OP_HRTIMER_EXIT:
		wl_guest_emit(sim, vcpu, "timer_hrtimer_expire_exit",
			      "hrtimer=0x%" G_GINT64_MODIFIER "x", girq->hrtimer);
		break;
	case OP_RESCHED_ENTRY:
	case OP_RESCHED_EXIT:
		wl_guest_emit(sim, vcpu, o == OP_RESCHED_ENTRY ? "x86_irq_vectors_reschedule_entry" :
			      "x86_irq_vectors_reschedule_exit", "vector=%d", RESCHEDULE_VECTOR);
		break;
	case OP_SOFTIRQ_ENTRY:
	case OP_SOFTIRQ_EXIT:
		wl_guest_emit(sim, vcpu, o == OP_SOFTIRQ_ENTRY ? "irq_softirq_entry" :
			      "irq_softirq_exit", "vec=%d", girq->softirq);
		break;
	case OP_END:
		g_assert_not_reached();
	}
}

static void handler_done(wl_sim *sim, wl_vcpu *vcpu)
{
	g_free(vcpu->irq);
	vcpu->irq = NULL;
	if (!g_queue_is_empty(&vcpu->irqs))
		vcpu->irq_next_ns = sim->now + wl_rng_range(&sim->rng, 300, 1500);
	else if (!vcpu->current && g_queue_is_empty(&vcpu->runq))
		/* back in the idle loop, which halts again shortly */
		vcpu->burst_end_ns = sim->now + wl_guest_burst_ns(sim, NULL);
}

void wl_girq_step(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_girq *girq = vcpu->irq;

	if (!girq) {
		girq = vcpu->irq = g_queue_pop_head(&vcpu->irqs);
		girq->step = 0;
		if (girq->kind == GIRQ_TICK && wl_rng_chance(&sim->rng, 300))
			girq->softirq = wl_rng_chance(&sim->rng, 500) ? SOFTIRQ_TIMER : SOFTIRQ_RCU;
	}
	run_op(sim, vcpu, girq, next_op(girq));
	girq->step++;

	op next = next_op(girq);

	if (next == OP_END)
		handler_done(sim, vcpu);
	else
		vcpu->irq_next_ns = sim->now + gap_ns(sim, next);
}

void wl_girq_tick(wl_sim *sim, wl_vcpu *vcpu)
{
	uint64_t period = vcpu->tick_period_ns;

	/* jittered by +-2 % */
	vcpu->tick_ns += period - period / 50 + wl_rng_range(&sim->rng, 0, period / 25);
	/* An idle vCPU stops its tick (NO_HZ); one tick at a time. */
	if (!vcpu->current || has_kind(vcpu, GIRQ_TICK))
		return;

	wl_girq *girq = new_girq(GIRQ_TICK);

	girq->hrtimer = UINT64_C(0xffff88807fc1e8a0) + (uint64_t)vcpu->id * 0x40000;
	raise_irq(sim, vcpu, girq, EXIT_PREEMPTION_TIMER);
}

void wl_girq_thread_timer(wl_sim *sim, wl_guest *guest, wl_guest_thread *thread)
{
	wl_vcpu *vcpu = g_ptr_array_index(guest->vcpus, thread->vcpu);
	wl_girq *girq = new_girq(GIRQ_THREAD_TIMER);

	thread->wake_ns = NEVER;
	thread->state = GT_WAKE_PENDING;
	girq->thread = thread;
	/* the hrtimer_sleeper on the thread's stack */
	girq->hrtimer = UINT64_C(0xffffc90000400e58) + (uint64_t)thread->tid * 0x4000;
	raise_irq(sim, vcpu, girq, EXIT_PREEMPTION_TIMER);
}

void wl_girq_wake_ipi(wl_sim *sim, wl_vcpu *emitter, wl_vcpu *target)
{
	if (target == emitter || has_kind(target, GIRQ_RESCHED))
		return;
	raise_irq(sim, target, new_girq(GIRQ_RESCHED), 0);
}

void wl_girq_free(gpointer girq)
{
	g_free(girq);
}
