#ifndef VM_WRITERS_WRITER_H
#define VM_WRITERS_WRITER_H

/*
 * Writers of sink.vm.threads: they turn interval and statistics records into
 * one of the output formats of SPEC (text, csv, json, chrome). Streaming:
 * memory does not grow with the number of intervals, except for the per
 * thread / per vCPU summaries the text format needs.
 *
 * No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "containers/totals.h"

enum vm_writer_format {
	VM_WRITER_TEXT,
	VM_WRITER_CSV,
	VM_WRITER_JSON,
	VM_WRITER_CHROME,
};

enum vm_writer_what {
	VM_WRITER_THREADS,
	VM_WRITER_VCPUS,
	VM_WRITER_EXITS,
	VM_WRITER_STEAL,
	VM_WRITER_CONTAINERS,
};

/*
 * Parse "text"/"csv"/"json"/"chrome" and
 * "threads"/"vcpus"/"exits"/"steal"/"containers".
 */
bool vm_writer_format_from_string(const char *s, enum vm_writer_format *out);
bool vm_writer_what_from_string(const char *s, enum vm_writer_what *out);

/* One interval of a guest thread (what=threads). */
struct vm_thread_interval {
	const char *machine;
	int64_t tid;
	const char *comm;       /* as known at begin; "" when unknown */
	const char *state;      /* running, hypervisor, preempted, vcpu-blocked, runnable,
	                         * blocked, unknown */
	int64_t begin_ns;
	int64_t end_ns;
	int64_t vcpu;           /* -1: empty in CSV */
	int64_t reason;         /* -1: empty in CSV */
	int isa;                /* of `reason`: 1 = VMX (or 0, unknown), 2 = SVM */
	/*
	 * The thread's container (SPEC, Containers): its name, NULL when the
	 * thread is in none; `vtid` its id there, -1 when unknown. `vtid` is
	 * read only with a container, so a zeroed record is "no container".
	 */
	const char *container;
	int64_t vtid;
};

/* One interval of a vCPU mode (what=vcpus). */
struct vm_vcpu_interval {
	const char *machine;
	int64_t vcpu;
	const char *mode;       /* guest, hypervisor, preempted, blocked */
	int64_t begin_ns;
	int64_t end_ns;
	int64_t host_tid;       /* -1 unknown */
	int64_t pcpu;           /* -1: empty */
	int64_t reason;         /* -1: empty */
	int isa;                /* of `reason`: 1 = VMX (or 0, unknown), 2 = SVM */
};

/* Exit statistics of one (VM, vCPU, reason) (what=exits). */
struct vm_exit_stat {
	const char *machine;
	int64_t vcpu;
	int64_t reason;
	int isa;                /* 1 = VMX (or unknown), 2 = SVM */
	uint64_t count;
	int64_t total_ns;
	int64_t min_ns;
	int64_t max_ns;
};

/*
 * Part of a preempted interval of a guest vCPU during which one host thread
 * (the culprit) ran on the host CPU the vCPU waited for (what=steal).
 */
struct vm_steal_interval {
	const char *machine;    /* the victim's machine (the VM) */
	int64_t vcpu;
	int64_t tid;            /* the guest thread on the vCPU; 0 idle, -1: empty */
	const char *comm;       /* "" when not known */
	int64_t begin_ns;
	int64_t end_ns;
	int64_t pcpu;           /* the waiting host CPU, -1: empty */
	const char *culprit_kind; /* vcpu, vmm, host, idle, unknown */
	const char *culprit_machine; /* vcpu, vmm: the VM; else NULL (empty) */
	int64_t culprit_vcpu;   /* vcpu: its number; else -1 (empty) */
	int64_t culprit_tid;    /* host thread; -1 (empty) for idle and unknown */
	const char *culprit_comm; /* NULL (empty) for idle and unknown */
};

/*
 * What the tracer lost on one machine (SPEC, Lost events), for the text
 * summary: counts from the discarded-events / -packets messages, and the
 * time affected, which is the sum of the durations of the located gaps
 * (each from its stream's last event before the loss to the discarded
 * range's end) over every stream of the machine: CPU time not recorded.
 */
struct vm_machine_losses {
	const char *machine;
	uint64_t events;          /* discarded events that messages counted */
	bool events_uncounted;    /* some discarded-events message had no count */
	uint64_t packets;         /* discarded packets that messages counted */
	bool packets_uncounted;   /* some discarded-packets message had no count */
	uint64_t gaps;            /* located gaps (one per message) */
	int64_t affected_ns;      /* sum of the gaps' durations */
};

struct vm_writer;

/*
 * `out` stays owned by the caller. Every format writes only the records of
 * `what` and ignores the others: the text format prints the table of
 * `what` alone (threads, the per-vCPU mode totals or the top exit reasons).
 */
struct vm_writer *vm_writer_create(enum vm_writer_format format,
		enum vm_writer_what what, FILE *out);

/*
 * The text format's whole summary: it takes every kind of record and
 * prints the threads table, then the per-vCPU mode totals, then the top
 * exit reasons (sink.vm.threads' output when no `what` is given).
 */
struct vm_writer *vm_writer_create_summary(FILE *out);

/*
 * The input had no host: the threads are each machine's own view, not
 * guest threads (the text format titles its table so). Before finish.
 */
void vm_writer_set_no_host(struct vm_writer *w, bool no_host);

/*
 * Whether records of `kind` are still written: the caller may skip
 * computing those that are not.
 */
bool vm_writer_wants(const struct vm_writer *w, enum vm_writer_what kind);

void vm_writer_thread_interval(struct vm_writer *w, const struct vm_thread_interval *iv);
void vm_writer_vcpu_interval(struct vm_writer *w, const struct vm_vcpu_interval *iv);
void vm_writer_exit_stat(struct vm_writer *w, const struct vm_exit_stat *st);
void vm_writer_steal_interval(struct vm_writer *w, const struct vm_steal_interval *iv);
/* One row of what=containers (containers/totals.h), before finish. */
void vm_writer_container_total(struct vm_writer *w, const struct vm_container_total *row);

/*
 * The losses of one machine, before finish. Only the text format shows
 * them (a table after the others, and an `unknown` column in the threads
 * table); the other formats have only the `unknown` intervals.
 */
void vm_writer_machine_losses(struct vm_writer *w, const struct vm_machine_losses *losses);

/* Writes what is pending (text table, closing brackets); false on I/O error. */
bool vm_writer_finish(struct vm_writer *w);
void vm_writer_destroy(struct vm_writer *w);

/* Exit reason name: VMX_EXIT_REASONS for isa 1 (or unknown), SVM_EXIT_REASONS
 * for isa 2; NULL when the table has no name (print the number then). */
const char *vm_exit_reason_name(int isa, int64_t reason);

#endif /* VM_WRITERS_WRITER_H */
