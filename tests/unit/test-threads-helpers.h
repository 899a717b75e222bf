#ifndef VM_TEST_THREADS_HELPERS_H
#define VM_TEST_THREADS_HELPERS_H

/*
 * Builds plain events by hand and records what lib/threads reports as
 * comparable text lines, in the CSV column order of SPEC.
 */

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "threads/threads.h"

/* Stub traces put t = 0 at this clock offset (1600000000 s). */
#define T0 INT64_C(1600000000000000000)

struct recorder {
	struct vm_threads *threads;
	GPtrArray *thread_rows; /* "machine,tid,comm,state,begin,end,vcpu,reason" */
	GPtrArray *vcpu_rows;   /* "machine,vcpu,mode,begin,end,host_tid,pcpu,reason" */
	GPtrArray *exit_rows;   /* "machine,vcpu,reason,isa,count,total,min,max" */
	GPtrArray *warnings;    /* "kind:machine" */
	GPtrArray *loss_rows;   /* "machine,events,uncounted,packets,uncounted,gaps,ns" */
	/* "machine,vcpu,tid,comm,begin,end,pcpu,kind,cmachine,cvcpu,ctid,ccomm" */
	GPtrArray *steal_rows;
};

void recorder_init(struct recorder *r);
/* The same, with the steal analysis on (steal_rows). */
void recorder_init_steal(struct recorder *r);
void recorder_clear(struct recorder *r);

/* Times below are relative to T0; rows print them relative to T0 too. */
void feed_switch(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		const char *prev_comm, int64_t prev_tid, int64_t prev_state,
		const char *next_comm, int64_t next_tid);
void feed_wakeup(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		const char *comm, int64_t tid);
void feed_fork(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		int64_t parent_tid, const char *child_comm, int64_t child_tid);
void feed_exit(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		enum vm_event_kind kind, const char *comm, int64_t tid);
void feed_statedump(struct recorder *r, unsigned int machine, int64_t t,
		int64_t tid, const char *name);
/* A statedump line of thread `tid` of process `pid`. */
void feed_statedump_pid(struct recorder *r, unsigned int machine, int64_t t,
		int64_t tid, int64_t pid, const char *name);
void feed_migrate(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		int64_t tid, int64_t dest_cpu);
void feed_kvm_entry(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		int64_t vcpu);
void feed_kvm_exit(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		int64_t reason, int64_t isa);
void feed_vcpu_state(struct recorder *r, unsigned int machine, int64_t t,
		const char *vm, int64_t vcpu, const char *mode, int64_t host_tid,
		int64_t pcpu, int64_t reason);
void feed_other(struct recorder *r, unsigned int machine, int64_t t);
/* A located gap [t, end] of the stream of `cpu` (count -1: unknown). */
void feed_loss(struct recorder *r, unsigned int machine, int64_t t, int64_t end,
		int64_t cpu, int64_t count, int packets);

/* Asserts that `rows` holds exactly `expected` (NULL-terminated), in any order. */
void assert_rows(GPtrArray *rows, const char *const *expected);

/* The rows of one thread (prefix "machine,tid,"), in report order. */
GPtrArray *rows_of(GPtrArray *rows, const char *prefix);

#endif /* VM_TEST_THREADS_HELPERS_H */
