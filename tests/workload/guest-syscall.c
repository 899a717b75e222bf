#include "guest-syscall.h"

#include "emit.h"

const char *const wl_syscall_event_defs[] = {
	"syscall_entry_read fd:u32 count:u64",
	"syscall_exit_read ret:s64 buf:u64",
	"syscall_entry_write fd:u32 buf:u64 count:u64",
	"syscall_exit_write ret:s64",
	"syscall_entry_futex uaddr:u64 op:s32 val:u32 utime:u64 uaddr2:u64 val3:u32",
	"syscall_exit_futex ret:s64 uaddr:u64 uaddr2:u64",
	"syscall_entry_poll ufds:u64 nfds:u32 timeout_msecs:s32",
	"syscall_exit_poll ret:s64 ufds:u64",
	NULL,
};

/* Indexes of wl_guest_thread.syscall. */
enum { SYS_READ, SYS_WRITE, SYS_FUTEX, SYS_POLL };

enum { FUTEX_WAIT_PRIVATE = 128 };

/* A user-space address of the thread's. */
static uint64_t user_address(const wl_guest_thread *thread, uint64_t offset)
{
	return UINT64_C(0x7f3a00000000) + (uint64_t)thread->tid * 0x100000 + offset;
}

/* Log-uniform between 2 us and 4 ms of CPU time. */
static uint64_t until_next_syscall(wl_sim *sim)
{
	uint64_t base = UINT64_C(2000) << wl_rng_range(&sim->rng, 0, 10);

	return base + wl_rng_range(&sim->rng, 0, base);
}

static void emit_entry(wl_sim *sim, wl_vcpu *vcpu, wl_guest_thread *thread, int which)
{
	uint64_t buf = user_address(thread, 0x2000);
	unsigned fd = (unsigned)wl_rng_range(&sim->rng, 3, 12);

	switch (which) {
	case SYS_READ:
		wl_guest_emit(sim, vcpu, "syscall_entry_read", "fd=%u count=%u", fd, 4096u);
		break;
	case SYS_WRITE:
		wl_guest_emit(sim, vcpu, "syscall_entry_write",
			      "fd=%u buf=%" G_GUINT64_FORMAT " count=%u", fd, buf,
			      (unsigned)wl_rng_range(&sim->rng, 1, 4096));
		break;
	case SYS_FUTEX:
		wl_guest_emit(sim, vcpu, "syscall_entry_futex",
			      "uaddr=%" G_GUINT64_FORMAT " op=%d val=%u utime=0 uaddr2=0 val3=0",
			      user_address(thread, 0x40), FUTEX_WAIT_PRIVATE, 0u);
		break;
	case SYS_POLL:
		wl_guest_emit(sim, vcpu, "syscall_entry_poll",
			      "ufds=%" G_GUINT64_FORMAT " nfds=%u timeout_msecs=%d",
			      user_address(thread, 0x800), (unsigned)wl_rng_range(&sim->rng, 1, 8), -1);
		break;
	}
	thread->syscall = which;
}

static void emit_exit(wl_sim *sim, wl_vcpu *vcpu, wl_guest_thread *thread)
{
	switch (thread->syscall) {
	case SYS_READ:
		wl_guest_emit(sim, vcpu, "syscall_exit_read", "ret=%u buf=%" G_GUINT64_FORMAT,
			      (unsigned)wl_rng_range(&sim->rng, 0, 4096), user_address(thread, 0x2000));
		break;
	case SYS_WRITE:
		wl_guest_emit(sim, vcpu, "syscall_exit_write", "ret=%u",
			      (unsigned)wl_rng_range(&sim->rng, 1, 4096));
		break;
	case SYS_FUTEX:
		wl_guest_emit(sim, vcpu, "syscall_exit_futex",
			      "ret=0 uaddr=%" G_GUINT64_FORMAT " uaddr2=0", user_address(thread, 0x40));
		break;
	case SYS_POLL:
		wl_guest_emit(sim, vcpu, "syscall_exit_poll", "ret=1 ufds=%" G_GUINT64_FORMAT,
			      user_address(thread, 0x800));
		break;
	}
	thread->syscall = -1;
}

void wl_syscall_switched_in(wl_sim *sim, wl_vcpu *vcpu, wl_guest_thread *thread)
{
	/* back from the schedule() of a blocking syscall: it returns soon */
	if (thread->syscall >= 0)
		vcpu->syscall_ns = sim->now + wl_rng_range(&sim->rng, 300, 2000);
	else
		vcpu->syscall_ns = sim->now + until_next_syscall(sim);
}

void wl_syscall_step(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_guest_thread *thread = vcpu->current;

	if (thread->syscall >= 0) {
		emit_exit(sim, vcpu, thread);
		vcpu->syscall_ns = sim->now + until_next_syscall(sim);
	} else {
		emit_entry(sim, vcpu, thread, wl_rng_chance(&sim->rng, 600) ? SYS_READ : SYS_WRITE);
		vcpu->syscall_ns = sim->now + wl_rng_range(&sim->rng, 500, 15000);
	}
}

void wl_syscall_block(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_guest_thread *thread = vcpu->current;
	static const int blocking[] = { SYS_FUTEX, SYS_POLL, SYS_READ };

	if (thread->syscall < 0)
		emit_entry(sim, vcpu, thread,
			   blocking[wl_rng_range(&sim->rng, 0, G_N_ELEMENTS(blocking) - 1)]);
}
