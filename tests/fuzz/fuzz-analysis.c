/*
 * libFuzzer target: the whole analysis of lib/ driven by arbitrary input.
 *
 * The input bytes are read as a sequence of plain events (lib/event.h) of
 * four machines: any kind (located losses included), times that go back or jump to the extremes,
 * fields huge, negative or missing, unknown tids and CPUs, strings of any
 * bytes. They go, like in the plugin, through the vCPU tracker with the KVM
 * model (filter.vm.state), whose mode changes become vm:vcpu_state events
 * for the guest-thread analysis (sink.vm.threads), whose records go to the
 * four writers; the same events feed the sync matching and solve (vmsync
 * keys from the fields) and the alignment from stock KVM events.
 *
 * Nothing is checked but that nothing crashes, leaks or trips a sanitizer:
 * the invariants are the unit tests' business.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "model/registry.h"
#include "sync/sync.h"
#include "sync/vcpu-align.h"
#include "threads/threads.h"
#include "vcpu/mode.h"
#include "vcpu/tracker.h"
#include "writers/writer.h"

#define MACHINES 4u
#define MAX_EVENTS 4096

static const char *const machine_names[MACHINES] = { "host", "guest1", "guest2", "" };
static const char *const words[] = {
	"CPU 0/KVM", "qemu-system-x86", "swapper/0", "", "guest1", "guest2", "host",
	"guest", "hypervisor", "preempted", "blocked", "unknown", "bogus",
};

/* Reads the input as a stream of small integers. */
struct reader {
	const uint8_t *data;
	size_t size;
	size_t at;
};

/*
 * An event and the strings it points to: kept until the end of the run,
 * since the tracker gives events back (as cookies) long after they came.
 */
struct fuzz_event {
	struct vm_event ev;
	char text[3][32];
	unsigned int texts;
};

static uint8_t byte(struct reader *r)
{
	return r->at < r->size ? r->data[r->at++] : 0;
}

static uint64_t bytes(struct reader *r, unsigned int count)
{
	uint64_t value = 0;

	for (unsigned int i = 0; i < count; i++)
		value = value << 8 | byte(r);
	return value;
}

/* Mostly small values, sometimes the extremes and odd ones. */
static int64_t integer(struct reader *r)
{
	switch (byte(r) % 10) {
	case 0:
		return VM_FIELD_MISSING;
	case 1:
		return INT64_MAX;
	case 2:
		return -1;
	case 3:
		return -(int64_t) bytes(r, 2);
	case 4:
		return (int64_t) bytes(r, 8);
	default:
		return (int64_t) (byte(r) % 8);
	}
}

static const char *string(struct reader *r, struct fuzz_event *owner)
{
	uint8_t choice = byte(r);
	char *out;
	unsigned int length;

	if (choice % 4)
		return words[choice % (sizeof(words) / sizeof(words[0]))];
	if (choice % 16 == 4 || owner->texts == 3)
		return NULL;
	out = owner->text[owner->texts++];
	length = byte(r) % 31;
	for (unsigned int i = 0; i < length; i++)
		out[i] = (char) byte(r);
	out[length] = '\0';
	return out;
}

/* A time step that is mostly forward, sometimes back, sometimes a jump. */
static int64_t next_time(struct reader *r, int64_t now)
{
	uint8_t kind = byte(r);

	switch (kind % 16) {
	case 0:
		return now > INT64_MIN + 70000 ? now - (int64_t) bytes(r, 2) : now;
	case 1:
		return (int64_t) bytes(r, 8);
	case 2:
		return INT64_MAX - (int64_t) byte(r);
	case 3:
		return INT64_MIN + (int64_t) byte(r);
	default:
		return now < INT64_MAX - 70000 ? now + (int64_t) bytes(r, 2) : now;
	}
}

static void read_event(struct reader *r, struct fuzz_event *owner, int64_t *now)
{
	struct vm_event *ev = &owner->ev;

	memset(owner, 0, sizeof(*owner));
	/* Every kind, and one past the last. */
	ev->kind = (enum vm_event_kind) (byte(r) % (VM_EVENT_LOSS + 2));
	*now = next_time(r, *now);
	ev->ts = *now;
	ev->machine = byte(r) % (MACHINES + 1);   /* one index never named */
	ev->cpu = integer(r);
	switch (ev->kind) {
	case VM_EVENT_SCHED_SWITCH:
		ev->u.sched_switch.prev_comm = string(r, owner);
		ev->u.sched_switch.prev_tid = integer(r);
		ev->u.sched_switch.prev_state = integer(r);
		ev->u.sched_switch.next_comm = string(r, owner);
		ev->u.sched_switch.next_tid = integer(r);
		break;
	case VM_EVENT_SCHED_WAKEUP:
		ev->u.wakeup.comm = string(r, owner);
		ev->u.wakeup.tid = integer(r);
		ev->u.wakeup.target_cpu = integer(r);
		break;
	case VM_EVENT_PROCESS_FORK:
		ev->u.fork.parent_comm = string(r, owner);
		ev->u.fork.parent_tid = integer(r);
		ev->u.fork.parent_pid = integer(r);
		ev->u.fork.child_comm = string(r, owner);
		ev->u.fork.child_tid = integer(r);
		ev->u.fork.child_pid = integer(r);
		break;
	case VM_EVENT_PROCESS_EXIT:
	case VM_EVENT_PROCESS_FREE:
		ev->u.exit.comm = string(r, owner);
		ev->u.exit.tid = integer(r);
		break;
	case VM_EVENT_STATEDUMP_PROCESS:
		ev->u.statedump.tid = integer(r);
		ev->u.statedump.pid = integer(r);
		ev->u.statedump.ppid = integer(r);
		ev->u.statedump.name = string(r, owner);
		break;
	case VM_EVENT_KVM_ENTRY:
		ev->u.kvm_entry.vcpu_id = integer(r);
		break;
	case VM_EVENT_KVM_EXIT:
		ev->u.kvm_exit.exit_reason = integer(r);
		ev->u.kvm_exit.isa = integer(r);
		ev->u.kvm_exit.vcpu_id = integer(r);
		break;
	case VM_EVENT_VMSYNC_GH_GUEST:
	case VM_EVENT_VMSYNC_HG_GUEST:
	case VM_EVENT_VMSYNC_GH_HOST:
	case VM_EVENT_VMSYNC_HG_HOST:
		ev->u.vmsync.cnt = integer(r);
		ev->u.vmsync.vm_uid = integer(r);
		break;
	case VM_EVENT_VCPU_STATE:
		ev->u.vcpu_state.vm = string(r, owner);
		ev->u.vcpu_state.vcpu = integer(r);
		ev->u.vcpu_state.mode = string(r, owner);
		ev->u.vcpu_state.host_tid = integer(r);
		ev->u.vcpu_state.pcpu = integer(r);
		ev->u.vcpu_state.exit_reason = integer(r);
		break;
	case VM_EVENT_LOSS:
		/* A gap as the locator makes it, or any fields at all. */
		if (byte(r) % 2) {
			ev->u.loss.end = ev->ts < INT64_MAX - 70000 ?
				ev->ts + (int64_t) bytes(r, 2) : ev->ts;
			ev->u.loss.count = byte(r) % 3 ? (int64_t) bytes(r, 2) : -1;
			ev->u.loss.packets = byte(r) % 2;
		} else {
			ev->u.loss.end = integer(r);
			ev->u.loss.count = integer(r);
			ev->u.loss.packets = (int) (int8_t) byte(r);
		}
		break;
	default:
		break;
	}
}

struct run {
	struct vm_threads *threads;
	struct vm_writer *writers[5];
	struct vm_sync *sync;
	struct vm_vcpu_align *align;
	/* Per host CPU, the open guest-mode interval (like the plugin keeps). */
	int64_t entry_at[8];
	int64_t entry_vcpu[8];
};

static void on_thread(const struct vm_thread_interval *iv, void *data)
{
	struct run *run = data;

	for (unsigned int i = 0; i < 5; i++)
		vm_writer_thread_interval(run->writers[i], iv);
}

static void on_vcpu(const struct vm_vcpu_interval *iv, void *data)
{
	struct run *run = data;

	for (unsigned int i = 0; i < 5; i++)
		vm_writer_vcpu_interval(run->writers[i], iv);
}

static void on_exit_stat(const struct vm_exit_stat *stat, void *data)
{
	struct run *run = data;

	for (unsigned int i = 0; i < 5; i++)
		vm_writer_exit_stat(run->writers[i], stat);
}

static void on_threads_warning(const char *kind, const char *machine,
		const char *message, void *data)
{
	(void) kind, (void) machine, (void) message, (void) data;
}

static void on_release(void *user, void *cookie)
{
	struct run *run = user;

	vm_threads_feed(run->threads, cookie);
}

static void on_change(void *user, const struct vm_vcpu_change *change)
{
	struct run *run = user;
	struct vm_event ev = { .kind = VM_EVENT_VCPU_STATE, .ts = change->ts,
		.machine = change->host, .cpu = VM_FIELD_MISSING };

	ev.u.vcpu_state.vm = change->vm < MACHINES ? machine_names[change->vm] : "";
	ev.u.vcpu_state.vcpu = (int64_t) change->vcpu;
	ev.u.vcpu_state.mode = vm_vcpu_mode_name(change->mode);
	ev.u.vcpu_state.host_tid = change->host_tid;
	ev.u.vcpu_state.pcpu = change->pcpu;
	ev.u.vcpu_state.exit_reason = change->exit_reason;
	vm_threads_feed(run->threads, &ev);
}

static void on_tracker_warning(void *user, enum vm_vcpu_warning kind,
		unsigned int machine, const char *message)
{
	(void) user, (void) kind, (void) machine, (void) message;
}

static const char *on_machine_name(void *user, unsigned int machine)
{
	(void) user;
	return machine < MACHINES ? machine_names[machine] : NULL;
}

/* The sync side sees every event too: vmsync keys, guest-mode intervals. */
static void feed_sync(struct run *run, const struct vm_event *ev)
{
	struct vm_sync_key key = { (uint64_t) ev->u.vmsync.vm_uid,
		(uint64_t) ev->u.vmsync.cnt, 0 };
	unsigned int machine = ev->machine % MACHINES;
	size_t cpu = (size_t) ((uint64_t) ev->cpu % 8);

	switch (ev->kind) {
	case VM_EVENT_VMSYNC_GH_GUEST:
	case VM_EVENT_VMSYNC_HG_HOST:
		vm_sync_add_event(run->sync, 0, &key, VM_SYNC_SEND, machine, ev->ts);
		break;
	case VM_EVENT_VMSYNC_GH_HOST:
	case VM_EVENT_VMSYNC_HG_GUEST:
		vm_sync_add_event(run->sync, 0, &key, VM_SYNC_RECEIVE, machine, ev->ts);
		break;
	case VM_EVENT_KVM_ENTRY:
		run->entry_at[cpu] = ev->ts;
		run->entry_vcpu[cpu] = ev->u.kvm_entry.vcpu_id;
		break;
	case VM_EVENT_KVM_EXIT:
		vm_vcpu_align_add_guest_mode(run->align, machine, ev->cpu, -1,
			(uint64_t) run->entry_vcpu[cpu], run->entry_at[cpu], ev->ts);
		break;
	default:
		vm_vcpu_align_add_guest_event(run->align, machine, (uint64_t) ev->cpu, ev->ts);
		break;
	}
}

static void finish_sync(struct run *run)
{
	struct vm_sync_result results[MACHINES];
	struct vm_vcpu_fit fits[MACHINES];

	vm_vcpu_align_solve(run->align, MACHINES, fits);
	for (unsigned int g = 1; g < MACHINES; g++)
		vm_vcpu_align_feed(run->align, g, &fits[g], run->sync, 0, g);
	vm_sync_solve(run->sync, 0, results);
	vm_sync_solve(run->sync, MACHINES, results);   /* out of range */
}

static void open_writers(struct run *run, FILE *sink)
{
	run->writers[0] = vm_writer_create(VM_WRITER_CSV, VM_WRITER_THREADS, sink);
	run->writers[1] = vm_writer_create(VM_WRITER_JSON, VM_WRITER_VCPUS, sink);
	run->writers[2] = vm_writer_create(VM_WRITER_CHROME, VM_WRITER_THREADS, sink);
	run->writers[3] = vm_writer_create(VM_WRITER_TEXT, VM_WRITER_EXITS, sink);
	run->writers[4] = vm_writer_create_summary(sink);
}

static void close_writers(struct run *run)
{
	for (unsigned int i = 0; i < 5; i++) {
		vm_writer_finish(run->writers[i]);
		vm_writer_destroy(run->writers[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { .data = data, .size = size };
	static const struct vm_vcpu_callbacks tracker_callbacks = {
		.release = on_release, .mode_change = on_change,
		.warning = on_tracker_warning, .machine_name = on_machine_name,
	};
	struct run run = { 0 };
	struct vm_threads_callbacks threads_callbacks = {
		.thread_interval = on_thread, .vcpu_interval = on_vcpu,
		.exit_stat = on_exit_stat, .warning = on_threads_warning, .data = &run,
	};
	struct vm_vcpu_limits limits = { byte(&r) * INT64_C(1000), 1 + byte(&r), 1000, 1000 };
	struct fuzz_event *events = calloc(MAX_EVENTS, sizeof(*events));
	struct vm_model *model = vm_model_create(vm_model_registry_find("kvm"));
	struct vm_vcpu_tracker *tracker;
	FILE *sink = fopen("/dev/null", "w");
	int64_t now = 1600000000000000000;
	unsigned int count = 0;

	if (!sink || !events || !model) {
		if (sink)
			fclose(sink);
		free(events);
		vm_model_destroy(model);
		return 0;
	}
	open_writers(&run, sink);
	run.threads = vm_threads_create(&threads_callbacks);
	run.sync = vm_sync_create(MACHINES);
	run.align = vm_vcpu_align_create();
	tracker = vm_vcpu_tracker_create(model, byte(&r) % 2 ? &limits : NULL,
		&tracker_callbacks, &run);
	for (unsigned int m = 0; m < MACHINES; m++) {
		vm_threads_add_machine(run.threads, m, machine_names[m],
			(enum vm_threads_role) (byte(&r) % 3));
		vm_vcpu_tracker_add_machine(tracker, m);
	}
	if (byte(&r) % 2)
		model->cls->set_vm_pid(model->data, 1 + byte(&r) % MACHINES, integer(&r));
	/*
	 * Events are kept until the end: the tracker holds cookies (and the
	 * strings their events point to live in the input and the reader).
	 */
	while (r.at < r.size && count < MAX_EVENTS) {
		struct vm_event *ev = &events[count].ev;

		read_event(&r, &events[count++], &now);
		feed_sync(&run, ev);
		vm_vcpu_tracker_push(tracker, byte(&r) % 8 ? ev : NULL, ev);
	}
	vm_vcpu_tracker_flush(tracker);
	vm_threads_finish(run.threads);
	vm_vcpu_tracker_destroy(tracker, NULL);
	finish_sync(&run);
	close_writers(&run);
	vm_threads_destroy(run.threads);
	vm_vcpu_align_destroy(run.align);
	vm_sync_destroy(run.sync);
	vm_model_destroy(model);
	fclose(sink);
	free(events);
	return 0;
}
