/* JSON lines format: one object a line with the CSV's keys, written at
 * once, then for intervals the members that double-based readers need.
 * Not-applicable values (-1) are null. */

#include <glib.h>
#include <inttypes.h>

#include "writers/json-output.h"
#include "writers/writer-private.h"

static void json_key(FILE *out, const char *key)
{
	fprintf(out, ",\"%s\":", key);
}

static void json_int_member(FILE *out, const char *key, int64_t value)
{
	json_key(out, key);
	fprintf(out, "%" PRId64, value);
}

static void json_optional_int_member(FILE *out, const char *key, int64_t value)
{
	json_key(out, key);
	vm_json_write_optional_int(out, value);
}

static void json_string_member(FILE *out, const char *key, const char *value)
{
	json_key(out, key);
	vm_json_write_string(out, value);
}

/* A string member, null when the CSV cell is empty (NULL). */
static void json_optional_string_member(FILE *out, const char *key, const char *value)
{
	json_key(out, key);
	if (value) {
		vm_json_write_string(out, value);
	} else {
		fputs("null", out);
	}
}

/*
 * After an interval's CSV keys: JavaScript and jq 1.6 read every number as
 * a double, which holds integers exactly only up to 2^53; a ns timestamp
 * since the epoch (~1.7e18) is rounded to 256 ns steps, so end - begin can
 * be off by hundreds of ns. `dur_ns` is the exact duration (small enough
 * for a double), `begin_ns_str` / `end_ns_str` the exact times as strings
 * (BigInt, tonumber-free comparisons). The integers stay for readers that
 * keep them exact.
 */
static void json_exact_time_members(FILE *out, int64_t begin_ns, int64_t end_ns)
{
	/*
	 * Intervals never end before they begin; in unsigned arithmetic the
	 * difference is exact even for spans beyond 2^63 ns (fuzzed input).
	 */
	json_key(out, "dur_ns");
	fprintf(out, "%" PRIu64, end_ns >= begin_ns ?
		(uint64_t) end_ns - (uint64_t) begin_ns : 0);
	json_key(out, "begin_ns_str");
	fprintf(out, "\"%" PRId64 "\"", begin_ns);
	json_key(out, "end_ns_str");
	fprintf(out, "\"%" PRId64 "\"", end_ns);
}

/* Every object starts with the machine, so the other members can all be
 * written with a leading comma. */
static void json_begin_object(FILE *out, const char *machine)
{
	fputs("{\"machine\":", out);
	vm_json_write_string(out, machine);
}

static void json_thread_interval(struct vm_writer *w, const struct vm_thread_interval *iv)
{
	json_begin_object(w->out, iv->machine);
	json_int_member(w->out, "tid", iv->tid);
	json_string_member(w->out, "comm", iv->comm);
	json_string_member(w->out, "state", iv->state);
	json_int_member(w->out, "begin_ns", iv->begin_ns);
	json_int_member(w->out, "end_ns", iv->end_ns);
	json_optional_int_member(w->out, "vcpu", iv->vcpu);
	json_optional_int_member(w->out, "reason", iv->reason);
	json_optional_string_member(w->out, "container", iv->container);
	json_optional_int_member(w->out, "vtid", iv->container ? iv->vtid : -1);
	json_exact_time_members(w->out, iv->begin_ns, iv->end_ns);
	fputs("}\n", w->out);
}

static void json_vcpu_interval(struct vm_writer *w, const struct vm_vcpu_interval *iv)
{
	json_begin_object(w->out, iv->machine);
	json_int_member(w->out, "vcpu", iv->vcpu);
	json_string_member(w->out, "mode", iv->mode);
	json_int_member(w->out, "begin_ns", iv->begin_ns);
	json_int_member(w->out, "end_ns", iv->end_ns);
	json_optional_int_member(w->out, "host_tid", iv->host_tid);
	json_optional_int_member(w->out, "pcpu", iv->pcpu);
	json_optional_int_member(w->out, "reason", iv->reason);
	json_exact_time_members(w->out, iv->begin_ns, iv->end_ns);
	fputs("}\n", w->out);
}

/* As in CSV: the exit's name, else its number, here as a string so that
 * the member always has one type; null when there is no reason. */
static void json_exit_name_member(FILE *out, const struct vm_exit_stat *st)
{
	const char *name = vm_exit_reason_name(st->isa, st->reason);
	char number[24];

	if (name) {
		json_string_member(out, "name", name);
	} else if (st->reason == -1) {
		json_optional_int_member(out, "name", -1);
	} else {
		g_snprintf(number, sizeof(number), "%" PRId64, st->reason);
		json_string_member(out, "name", number);
	}
}

static void json_exit_stat(struct vm_writer *w, const struct vm_exit_stat *st)
{
	json_begin_object(w->out, st->machine);
	json_int_member(w->out, "vcpu", st->vcpu);
	json_optional_int_member(w->out, "reason", st->reason);
	json_exit_name_member(w->out, st);
	json_key(w->out, "count");
	fprintf(w->out, "%" PRIu64, st->count);
	json_int_member(w->out, "total_ns", st->total_ns);
	json_int_member(w->out, "min_ns", st->min_ns);
	json_int_member(w->out, "max_ns", st->max_ns);
	json_int_member(w->out, "mean_ns", vm_exit_stat_mean_ns(st));
	fputs("}\n", w->out);
}

static void json_steal_interval(struct vm_writer *w, const struct vm_steal_interval *iv)
{
	json_begin_object(w->out, iv->machine);
	json_int_member(w->out, "vcpu", iv->vcpu);
	json_optional_int_member(w->out, "tid", iv->tid);
	json_string_member(w->out, "comm", iv->comm ? iv->comm : "");
	json_int_member(w->out, "begin_ns", iv->begin_ns);
	json_int_member(w->out, "end_ns", iv->end_ns);
	json_optional_int_member(w->out, "pcpu", iv->pcpu);
	json_string_member(w->out, "culprit_kind", iv->culprit_kind);
	json_optional_string_member(w->out, "culprit_machine", iv->culprit_machine);
	json_optional_int_member(w->out, "culprit_vcpu", iv->culprit_vcpu);
	json_optional_int_member(w->out, "culprit_tid", iv->culprit_tid);
	json_optional_string_member(w->out, "culprit_comm", iv->culprit_comm);
	json_exact_time_members(w->out, iv->begin_ns, iv->end_ns);
	fputs("}\n", w->out);
}

static void json_container_total(struct vm_writer *w, const struct vm_container_total *row)
{
	static const char *const keys[VM_CONTAINER_STATES] = {
		"running_ns", "hypervisor_ns", "preempted_ns", "vcpu_blocked_ns",
		"runnable_ns", "blocked_ns", "unknown_ns",
	};

	json_begin_object(w->out, row->machine);
	json_string_member(w->out, "container", row->container);
	json_int_member(w->out, "ns_inum", row->ns_inum);
	json_int_member(w->out, "threads", row->threads);
	for (int i = 0; i < VM_CONTAINER_STATES; i++) {
		json_int_member(w->out, keys[i], row->ns[i]);
	}
	fputs("}\n", w->out);
}

/* Lines are written as they come: nothing is pending at the end. */
static void json_finish(struct vm_writer *w)
{
	(void) w;
}

static void json_destroy(struct vm_writer *w)
{
	g_free(w);
}

static const struct vm_writer_ops json_ops = {
	.thread_interval = json_thread_interval,
	.vcpu_interval = json_vcpu_interval,
	.exit_stat = json_exit_stat,
	.steal_interval = json_steal_interval,
	.container_total = json_container_total,
	.finish = json_finish,
	.destroy = json_destroy,
};

struct vm_writer *vm_writer_json_new(enum vm_writer_what what, FILE *out)
{
	struct vm_writer *w = g_new0(struct vm_writer, 1);

	vm_writer_init_base(w, &json_ops, what, out);
	return w;
}
