/* CSV format (RFC 4180 quoting, LF line ends): one row per record, written
 * at once. */

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "writers/writer-private.h"

static const char *const csv_headers[] = {
	[VM_WRITER_THREADS] = "machine,tid,comm,state,begin_ns,end_ns,vcpu,reason",
	[VM_WRITER_VCPUS] = "machine,vcpu,mode,begin_ns,end_ns,host_tid,pcpu,reason",
	[VM_WRITER_EXITS] = "machine,vcpu,reason,name,count,total_ns,min_ns,max_ns,mean_ns",
};

/* Quoting is needed for separators, quotes and line breaks; edge spaces are
 * quoted too because many CSV readers trim unquoted ones. */
static bool csv_needs_quotes(const char *s)
{
	const char *p = s;

	if (*s == ' ')
		return true;
	for (; *p; p++) {
		if (*p == ',' || *p == '"' || *p == '\r' || *p == '\n')
			return true;
	}
	return p > s && p[-1] == ' ';
}

static void csv_write_text(FILE *out, const char *s)
{
	if (!s)
		s = "";
	if (!csv_needs_quotes(s)) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/*
 * Decimal, as "%" PRId64 writes it, without the printf machinery: rows are
 * mostly numbers and there is one per interval.
 */
static void csv_write_int(FILE *out, int64_t value)
{
	char buf[24];
	char *p = buf + sizeof(buf);
	uint64_t magnitude = value < 0 ? -(uint64_t) value : (uint64_t) value;

	do {
		*--p = (char) ('0' + magnitude % 10);
		magnitude /= 10;
	} while (magnitude);
	if (value < 0)
		*--p = '-';
	fwrite(p, 1, (size_t) (buf + sizeof(buf) - p), out);
}

/* -1 is "not applicable": an empty cell. */
static void csv_write_optional_int(FILE *out, int64_t value)
{
	if (value != -1)
		csv_write_int(out, value);
}

static void csv_thread_interval(struct vm_writer *w, const struct vm_thread_interval *iv)
{
	csv_write_text(w->out, iv->machine);
	fputc(',', w->out);
	csv_write_int(w->out, iv->tid);
	fputc(',', w->out);
	csv_write_text(w->out, iv->comm);
	fputc(',', w->out);
	csv_write_text(w->out, iv->state);
	fputc(',', w->out);
	csv_write_int(w->out, iv->begin_ns);
	fputc(',', w->out);
	csv_write_int(w->out, iv->end_ns);
	fputc(',', w->out);
	csv_write_optional_int(w->out, iv->vcpu);
	fputc(',', w->out);
	csv_write_optional_int(w->out, iv->reason);
	fputc('\n', w->out);
}

static void csv_vcpu_interval(struct vm_writer *w, const struct vm_vcpu_interval *iv)
{
	csv_write_text(w->out, iv->machine);
	fputc(',', w->out);
	csv_write_int(w->out, iv->vcpu);
	fputc(',', w->out);
	csv_write_text(w->out, iv->mode);
	fputc(',', w->out);
	csv_write_int(w->out, iv->begin_ns);
	fputc(',', w->out);
	csv_write_int(w->out, iv->end_ns);
	fputc(',', w->out);
	csv_write_optional_int(w->out, iv->host_tid);
	fputc(',', w->out);
	csv_write_optional_int(w->out, iv->pcpu);
	fputc(',', w->out);
	csv_write_optional_int(w->out, iv->reason);
	fputc('\n', w->out);
}

/* The exit's name, else its number (SPEC), empty when there is no reason. */
static void csv_write_exit_name(FILE *out, const struct vm_exit_stat *st)
{
	const char *name = vm_exit_reason_name(st->isa, st->reason);

	if (name)
		csv_write_text(out, name);
	else
		csv_write_optional_int(out, st->reason);
}

static void csv_exit_stat(struct vm_writer *w, const struct vm_exit_stat *st)
{
	csv_write_text(w->out, st->machine);
	fprintf(w->out, ",%" PRId64 ",", st->vcpu);
	csv_write_optional_int(w->out, st->reason);
	fputc(',', w->out);
	csv_write_exit_name(w->out, st);
	fprintf(w->out, ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
		st->count, st->total_ns, st->min_ns, st->max_ns,
		vm_exit_stat_mean_ns(st));
}

/* Rows are written as they come: nothing is pending at the end. */
static void csv_finish(struct vm_writer *w)
{
	(void) w;
}

static void csv_destroy(struct vm_writer *w)
{
	g_free(w);
}

static const struct vm_writer_ops csv_ops = {
	.accepts_every_kind = false,
	.thread_interval = csv_thread_interval,
	.vcpu_interval = csv_vcpu_interval,
	.exit_stat = csv_exit_stat,
	.finish = csv_finish,
	.destroy = csv_destroy,
};

struct vm_writer *vm_writer_csv_new(enum vm_writer_what what, FILE *out)
{
	struct vm_writer *w = g_new0(struct vm_writer, 1);

	vm_writer_init_base(w, &csv_ops, what, out);
	fprintf(out, "%s\n", csv_headers[what]);
	return w;
}
