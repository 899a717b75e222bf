/*
 * containers-replay: feeds lib/containers with the events of one machine,
 * read from standard input, and answers questions; for the integration
 * test of the container stubs (test_containers_stubs.py), which reads the
 * stubs with stubfile.py.
 *
 * Input lines:
 *   EVENT TS CPU NAME [FIELD=VALUE ...]   (a sequence: VALUE is a,b,c)
 *   ASK TID
 * An ASK prints "TID NAME NS_INUM VTID" (VTID -1: unknown), or "TID -" when
 * the thread is in no container.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "containers/containers.h"

struct kind_name {
	const char *name;
	enum vm_event_kind kind;
};

static const struct kind_name kinds[] = {
	{ "sched_switch", VM_EVENT_SCHED_SWITCH },
	{ "sched_process_fork", VM_EVENT_PROCESS_FORK },
	{ "lttng_statedump_process_state", VM_EVENT_STATEDUMP_PROCESS },
	{ "lttng_statedump_process_pid_ns", VM_EVENT_STATEDUMP_PID_NS },
};

static int64_t number(GHashTable *fields, const char *name)
{
	const char *text = g_hash_table_lookup(fields, name);

	return text ? g_ascii_strtoll(text, NULL, 10) : VM_FIELD_MISSING;
}

static const char *string(GHashTable *fields, const char *name)
{
	const char *text = g_hash_table_lookup(fields, name);

	return text ? text : "";
}

/* The last element and length - 1 of a sequence `a,b,c`. */
static void sequence(GHashTable *fields, const char *name, int64_t *level, int64_t *last)
{
	const char *text = g_hash_table_lookup(fields, name);
	char **parts;
	guint n;

	*level = *last = VM_FIELD_MISSING;
	if (!text || !text[0])
		return;
	parts = g_strsplit(text, ",", -1);
	n = g_strv_length(parts);
	*level = n - 1;
	*last = g_ascii_strtoll(parts[n - 1], NULL, 10);
	g_strfreev(parts);
}

static void fill(struct vm_event *ev, GHashTable *f)
{
	switch (ev->kind) {
	case VM_EVENT_SCHED_SWITCH:
		ev->u.sched_switch.prev_comm = string(f, "prev_comm");
		ev->u.sched_switch.prev_tid = number(f, "prev_tid");
		ev->u.sched_switch.prev_state = number(f, "prev_state");
		ev->u.sched_switch.next_comm = string(f, "next_comm");
		ev->u.sched_switch.next_tid = number(f, "next_tid");
		break;
	case VM_EVENT_PROCESS_FORK:
		ev->u.fork.parent_comm = string(f, "parent_comm");
		ev->u.fork.parent_tid = number(f, "parent_tid");
		ev->u.fork.parent_pid = number(f, "parent_pid");
		ev->u.fork.child_comm = string(f, "child_comm");
		ev->u.fork.child_tid = number(f, "child_tid");
		ev->u.fork.child_pid = number(f, "child_pid");
		ev->u.fork.child_ns_inum = number(f, "child_ns_inum");
		sequence(f, "vtids", &ev->u.fork.child_ns_level, &ev->u.fork.child_vtid);
		break;
	case VM_EVENT_STATEDUMP_PROCESS:
		ev->u.statedump.tid = number(f, "tid");
		ev->u.statedump.pid = number(f, "pid");
		ev->u.statedump.ppid = number(f, "ppid");
		ev->u.statedump.name = string(f, "name");
		ev->u.statedump.vtid = number(f, "vtid");
		ev->u.statedump.vpid = number(f, "vpid");
		ev->u.statedump.ns_level = number(f, "ns_level");
		ev->u.statedump.ns_inum = number(f, "ns_inum");
		break;
	case VM_EVENT_STATEDUMP_PID_NS:
		ev->u.pid_ns.tid = number(f, "tid");
		ev->u.pid_ns.vtid = number(f, "vtid");
		ev->u.pid_ns.vpid = number(f, "vpid");
		ev->u.pid_ns.vppid = number(f, "vppid");
		ev->u.pid_ns.ns_level = number(f, "ns_level");
		ev->u.pid_ns.ns_inum = number(f, "ns_inum");
		break;
	default:
		break;
	}
}

static void event_line(struct vm_containers *c, char **words)
{
	struct vm_event ev;
	GHashTable *fields = g_hash_table_new(g_str_hash, g_str_equal);

	memset(&ev, 0, sizeof(ev));
	ev.ts = g_ascii_strtoll(words[1], NULL, 10);
	ev.cpu = g_ascii_strtoll(words[2], NULL, 10);
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
		if (strcmp(kinds[i].name, words[3]) == 0)
			ev.kind = kinds[i].kind;
	}
	for (size_t i = 4; words[i]; i++) {
		char *equal = strchr(words[i], '=');

		if (!equal)
			continue;
		*equal = '\0';
		g_hash_table_insert(fields, words[i], equal + 1);
	}
	ev.pid_ns = number(fields, "pid_ns") == VM_FIELD_MISSING ? 0 :
		number(fields, "pid_ns");
	fill(&ev, fields);
	vm_containers_feed(c, &ev);
	g_hash_table_destroy(fields);
}

int main(void)
{
	struct vm_containers *c = vm_containers_create();
	char line[4096];

	vm_containers_add_machine(c, 0, "machine");
	while (fgets(line, sizeof(line), stdin)) {
		char **words = g_strsplit_set(g_strstrip(line), " ", -1);

		if (words[0] && strcmp(words[0], "EVENT") == 0 && g_strv_length(words) >= 4) {
			event_line(c, words);
		} else if (words[0] && strcmp(words[0], "ASK") == 0 && words[1]) {
			struct vm_container_ref ref;
			int64_t tid = g_ascii_strtoll(words[1], NULL, 10);

			if (vm_containers_lookup(c, 0, tid, &ref))
				printf("%" PRId64 " %s %" PRId64 " %" PRId64 "\n", tid, ref.name,
					ref.ns_inum, ref.vtid);
			else
				printf("%" PRId64 " -\n", tid);
			fflush(stdout);
		}
		g_strfreev(words);
	}
	vm_containers_destroy(c);
	return 0;
}
