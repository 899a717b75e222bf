#ifndef VM_COMMON_MACHINE_NAMES_H
#define VM_COMMON_MACHINE_NAMES_H

/*
 * The machines of a component's input and their names (SPEC, Machines), as
 * filter.vm.state and sink.vm.threads see them: the trace env `vm_machine`
 * when filter.vm.correlate wrote it, else one machine per (env `hostname`,
 * clock class UUID), named after the hostname with `#2`, `#3`, ... for later
 * machines of the same hostname, in order of first sight. A trace without
 * `hostname` counts as hostname `unknown`. Indexes are dense, from 0, in
 * order of first sight: they are the `machine` of the plain events.
 *
 * Why common/machine.h exists too: filter.vm.correlate sees every machine
 * before it names any (its sync pass reads the whole input first), so it
 * names them in sorted order (hostname, then clock UUID) whatever the order
 * of the input, and it also looks machines up by clock class. The components
 * downstream name machines as they show up, and normally just read the
 * `vm_machine` that correlate wrote; first-sight naming only matters for
 * inputs that did not go through correlate.
 */

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>

/* Env `vm_role` written by filter.vm.correlate. */
enum machine_role {
	MACHINE_ROLE_UNKNOWN,   /* no `vm_role`, or `unknown` */
	MACHINE_ROLE_HOST,
	MACHINE_ROLE_GUEST,
};

struct machine_name_info {
	unsigned int index;      /* dense, from 0, in order of first sight */
	const char *name;        /* owned by the machine_names */
	enum machine_role role;  /* from the first trace of the machine */
};

struct machine_names;

struct machine_names *machine_names_create(void);
void machine_names_destroy(struct machine_names *names);

/*
 * The machine of the trace that holds `stream`. `is_new` tells whether this
 * machine was seen for the first time (its name is then to be announced).
 */
struct machine_name_info machine_names_of_stream(struct machine_names *names,
		const bt_stream *stream, bool *is_new);

unsigned int machine_names_count(const struct machine_names *names);

/* The name of machine `index`, "" when there is no such machine. */
const char *machine_names_name(const struct machine_names *names,
		unsigned int index);

/* The `vm_role` of machine `index`, MACHINE_ROLE_UNKNOWN when none. */
enum machine_role machine_names_role(const struct machine_names *names,
		unsigned int index);

/* The index of the machine named `name`; false when there is none. */
bool machine_names_find(const struct machine_names *names, const char *name,
		unsigned int *index);

/* "`host`, `guest`" in index order, "(none)" if empty (g_free() it). */
char *machine_names_list(const struct machine_names *names);

#endif /* VM_COMMON_MACHINE_NAMES_H */
