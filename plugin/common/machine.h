#ifndef VM_COMMON_MACHINE_H
#define VM_COMMON_MACHINE_H

/*
 * The machines of a component's input and their names (SPEC, Machines):
 * one registry, used by the three components, so that they cannot disagree
 * on what a machine is or how it is called.
 *
 * Identity, from a trace's environment and its clock:
 * - `vm_machine` (written by filter.vm.correlate on every trace of its
 *   output, and copied by filter.vm.state on its own): the traces that carry
 *   the same value are one machine, whatever their clocks. That is how a
 *   copy of correlate's output, written by sink.ctf.fs (whose clocks have
 *   no UUID), is recognised when read again.
 * - else (`hostname`, clock class UUID): the kernel and user space traces of
 *   one boot share a clock UUID and are therefore one machine. A trace
 *   without `hostname` counts as hostname `unknown`.
 * - else (no UUID, or no clock class): the trace is a machine of its own,
 *   since nothing tells that two such clocks are one.
 *
 * Names: `vm_machine` when given, else the hostname, then `#2`, `#3`, ...
 * for hostnames that repeat. Given names are taken first. Machines are named
 * by machine_table_assign_names(): filter.vm.correlate calls it once every
 * machine is known (its sync pass reads the whole input first), which sorts
 * them by (hostname, clock UUID) whatever the order of the input;
 * filter.vm.state and sink.vm.threads call it as machines show up, so
 * there the order is that of first sight. The two only differ for
 * machines that share a hostname and did not go through correlate.
 *
 * Indexes are dense, from 0, in order of first sight: they are the
 * `machine` of the plain events of lib/.
 */

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

#include "util/warn-once.h"

/* Env `vm_role` written by filter.vm.correlate. */
enum machine_role {
	MACHINE_ROLE_UNKNOWN,   /* no `vm_role`, or `unknown` */
	MACHINE_ROLE_HOST,
	MACHINE_ROLE_GUEST,
};

struct machine {
	/* Position in the table (order of first sight); stable. */
	unsigned int index;

	/* Environment `hostname` of its first trace, "unknown" without one. */
	char *hostname;

	/* Environment `vm_machine` of its traces, or NULL. */
	char *given_name;

	/*
	 * What orders machines of one hostname: the clock class UUID as text,
	 * or "~" (after every UUID) for a machine identified otherwise.
	 */
	char *clock_key;

	/* Whether any of its streams has a default clock class. */
	bool has_clock;

	/* `vm_role` of the first of its traces that has one. */
	enum machine_role role;

	/*
	 * Some trace of it carries `vm_sync_quality`: it comes out of
	 * filter.vm.correlate, its times already in that run's time base.
	 */
	bool from_correlate;

	/* Some trace of it says `vm_sync_method` "reference": that run's time base. */
	bool was_reference;

	/*
	 * Environment `vm_host_pid` (signed integer) of the first of its
	 * traces that has one: the host process (QEMU) that runs this guest,
	 * as filter.vm.correlate found it; -1 without one.
	 */
	int64_t host_pid;

	/* Unique name; NULL until machine_table_assign_names(). */
	char *name;

	/* Warning kinds already logged for this machine. */
	struct vm_warn_once *warned;
};

struct machine_table;

struct machine_table *machine_table_create(void);
void machine_table_destroy(struct machine_table *table);

/*
 * The machine a stream belongs to, registered on first sight; `is_new`
 * (may be NULL) tells whether it was just registered. Never NULL.
 */
struct machine *machine_table_machine_of_stream(struct machine_table *table,
		const bt_stream *stream, bool *is_new);

/* The machine of an upstream clock class already met, or NULL. */
struct machine *machine_table_machine_of_clock_class(
		const struct machine_table *table, const bt_clock_class *clock_class);

/* The machine of an upstream trace already met, or NULL. */
struct machine *machine_table_machine_of_trace(const struct machine_table *table,
		const bt_trace *trace);

/*
 * A trace, and a clock class, of `machine` already met (any of them when
 * it has several), or NULL: for output that must be part of that machine.
 */
const bt_trace *machine_table_trace_of(const struct machine_table *table,
		const struct machine *machine);
const bt_clock_class *machine_table_clock_class_of(
		const struct machine_table *table, const struct machine *machine);
unsigned int machine_table_count(const struct machine_table *table);
struct machine *machine_table_at(const struct machine_table *table, unsigned int index);

/*
 * Names every machine that has no name yet. The first call sorts the
 * machines it names by (hostname, clock key, index); a machine met after
 * that call is named after every machine already named, so that no name
 * ever changes.
 */
void machine_table_assign_names(struct machine_table *table);

/* Its name, or its hostname before it is named. */
const char *machine_display_name(const struct machine *machine);

/* The machine named `name`, or NULL. */
struct machine *machine_table_find_by_name(const struct machine_table *table,
		const char *name);

/*
 * The machine a parameter names: its name, else `base-N` for `base#N`
 * (babeltrace2 takes no `#` in a map key; see util/machine-name.h), or NULL.
 */
struct machine *machine_table_find_by_param(const struct machine_table *table,
		const char *spelling);

/* How a parameter names `machine`: `base-N` for `base#N` (g_free it). */
char *machine_param_name(const struct machine_table *table,
		const struct machine *machine);

/*
 * Re-keys `*params`, a map whose keys name machines as a parameter spells
 * them (keys and values g_free()d), by the machines' own names, which the rest of a
 * component compares as they are. False when a key names no machine
 * (`*machine` NULL) or names one that another key named already
 * (`*machine` is it); `*bad_key` is then a copy of that key (g_free it)
 * and the caller fails with its own error.
 */
bool machine_table_rekey_params(const struct machine_table *table, GHashTable **params,
		char **bad_key, const struct machine **machine);

/* "`a`, `b`, `c`": every machine name, sorted, for messages (g_free it). */
char *machine_table_names_text(const struct machine_table *table);

/* True the first time it is called for this machine and kind. */
bool machine_warn_once(struct machine *machine, unsigned int kind);

#endif /* VM_COMMON_MACHINE_H */
