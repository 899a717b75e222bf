/*
 * The host rule: see host-rule.h.
 */

#include <inttypes.h>
#include <string.h>
#include <glib.h>

#include "model/host-rule.h"

/* Whether candidate `a` beats `b` for "the most" (ties: smaller name). */
static bool beats(const struct vm_host_candidate *machines, unsigned int a,
		unsigned int b)
{
	if (machines[a].evidence != machines[b].evidence) {
		return machines[a].evidence > machines[b].evidence;
	}
	if (machines[a].name && machines[b].name) {
		return strcmp(machines[a].name, machines[b].name) < 0;
	}
	return a < b;
}

struct vm_host_choice vm_host_rule_choose(const struct vm_host_candidate *machines,
		unsigned int count, int64_t named)
{
	struct vm_host_choice choice = { VM_MODEL_UNKNOWN, VM_HOST_REASON_NONE, 0 };
	int64_t most = VM_MODEL_UNKNOWN;
	unsigned int i;

	for (i = 0; i < count; i++) {
		if (machines[i].evidence == 0) {
			continue;
		}
		choice.with_evidence++;
		if (most == VM_MODEL_UNKNOWN || beats(machines, i, (unsigned int) most)) {
			most = i;
		}
	}
	if (named >= 0 && (uint64_t) named < count) {
		choice.host = named;
		choice.reason = VM_HOST_REASON_NAMED;
	} else if (most != VM_MODEL_UNKNOWN) {
		choice.host = most;
		choice.reason = choice.with_evidence > 1 ?
			VM_HOST_REASON_MOST : VM_HOST_REASON_ONLY;
	}
	return choice;
}

static void append_name(GString *text, const struct vm_host_candidate *machines,
		unsigned int i)
{
	if (machines[i].name) {
		g_string_append_printf(text, "`%s`", machines[i].name);
	} else {
		g_string_append_printf(text, "machine %u", i);
	}
}

/* "`host` (120), `guest` (3)": the machines with host events. */
static void append_evidence(GString *text, const struct vm_host_candidate *machines,
		unsigned int count)
{
	bool first = true;
	unsigned int i;

	for (i = 0; i < count; i++) {
		if (machines[i].evidence == 0) {
			continue;
		}
		g_string_append(text, first ? "" : ", ");
		append_name(text, machines, i);
		g_string_append_printf(text, " (%" PRIu64 ")", machines[i].evidence);
		first = false;
	}
}

char *vm_host_rule_warning(const struct vm_host_choice *choice,
		const struct vm_host_candidate *machines, unsigned int count)
{
	GString *text;
	bool named_has_none;

	if (choice->host == VM_MODEL_UNKNOWN) {
		return NULL;
	}
	named_has_none = choice->reason == VM_HOST_REASON_NAMED &&
		machines[choice->host].evidence == 0 && choice->with_evidence > 0;
	if (choice->with_evidence < 2 && !named_has_none) {
		return NULL;
	}
	text = g_string_new(NULL);
	g_string_append_printf(text, "%u machine%s ha%s hypervisor (kvm entry) "
		"events: ", choice->with_evidence,
		choice->with_evidence > 1 ? "s" : "",
		choice->with_evidence > 1 ? "ve" : "s");
	append_evidence(text, machines, count);
	g_string_append(text, "; the host is ");
	append_name(text, machines, (unsigned int) choice->host);
	if (choice->reason == VM_HOST_REASON_NAMED) {
		g_string_append(text, ", as parameter `host` says; the other machines "
			"are guests.");
	} else {
		g_string_append(text, ", the one with the most; the others are "
			"guests (nested virtualization or stray events): pass parameter "
			"`host` to choose another.");
	}
	return g_string_free(text, FALSE);
}
