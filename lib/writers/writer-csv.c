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

/*
 * A row is built in memory and written with one call: per-character stdio
 * calls each take the stream's lock. Longer rows go out in pieces.
 */
struct csv_row {
	FILE *out;
	size_t len;
	char buf[512];
};

static void row_flush(struct csv_row *row)
{
	fwrite(row->buf, 1, row->len, row->out);
	row->len = 0;
}

static void row_put(struct csv_row *row, const char *s, size_t n)
{
	if (n > sizeof(row->buf) - row->len) {
		row_flush(row);
		if (n > sizeof(row->buf)) {
			fwrite(s, 1, n, row->out);
			return;
		}
	}
	memcpy(row->buf + row->len, s, n);
	row->len += n;
}

static void row_putc(struct csv_row *row, char c)
{
	if (row->len == sizeof(row->buf))
		row_flush(row);
	row->buf[row->len++] = c;
}

static void row_end(struct csv_row *row)
{
	row_putc(row, '\n');
	row_flush(row);
}

static void csv_write_text(struct csv_row *row, const char *s)
{
	if (!s)
		s = "";
	if (!csv_needs_quotes(s)) {
		row_put(row, s, strlen(s));
		return;
	}
	row_putc(row, '"');
	for (; *s; s++) {
		if (*s == '"')
			row_putc(row, '"');
		row_putc(row, *s);
	}
	row_putc(row, '"');
}

/*
 * Decimal, as "%" PRIu64 writes it, without the printf machinery: rows are
 * mostly numbers and there is one per interval.
 */
static void csv_write_uint(struct csv_row *row, uint64_t value, bool negative)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char buf[24];
	char *p = buf + sizeof(buf);

	/* Two digits per division: nanosecond times have some twenty. */
	while (value >= 100) {
		const char *pair = &pairs[(value % 100) * 2];

		value /= 100;
		*--p = pair[1];
		*--p = pair[0];
	}
	if (value >= 10) {
		*--p = pairs[value * 2 + 1];
		*--p = pairs[value * 2];
	} else {
		*--p = (char) ('0' + value);
	}
	if (negative)
		*--p = '-';
	row_put(row, p, (size_t) (buf + sizeof(buf) - p));
}

/* As "%" PRId64 writes it. */
static void csv_write_int(struct csv_row *row, int64_t value)
{
	csv_write_uint(row, value < 0 ? -(uint64_t) value : (uint64_t) value, value < 0);
}

/* -1 is "not applicable": an empty cell. */
static void csv_write_optional_int(struct csv_row *row, int64_t value)
{
	if (value != -1)
		csv_write_int(row, value);
}

static void csv_thread_interval(struct vm_writer *w, const struct vm_thread_interval *iv)
{
	struct csv_row row = { .out = w->out };

	csv_write_text(&row, iv->machine);
	row_putc(&row, ',');
	csv_write_int(&row, iv->tid);
	row_putc(&row, ',');
	csv_write_text(&row, iv->comm);
	row_putc(&row, ',');
	csv_write_text(&row, iv->state);
	row_putc(&row, ',');
	csv_write_int(&row, iv->begin_ns);
	row_putc(&row, ',');
	csv_write_int(&row, iv->end_ns);
	row_putc(&row, ',');
	csv_write_optional_int(&row, iv->vcpu);
	row_putc(&row, ',');
	csv_write_optional_int(&row, iv->reason);
	row_end(&row);
}

static void csv_vcpu_interval(struct vm_writer *w, const struct vm_vcpu_interval *iv)
{
	struct csv_row row = { .out = w->out };

	csv_write_text(&row, iv->machine);
	row_putc(&row, ',');
	csv_write_int(&row, iv->vcpu);
	row_putc(&row, ',');
	csv_write_text(&row, iv->mode);
	row_putc(&row, ',');
	csv_write_int(&row, iv->begin_ns);
	row_putc(&row, ',');
	csv_write_int(&row, iv->end_ns);
	row_putc(&row, ',');
	csv_write_optional_int(&row, iv->host_tid);
	row_putc(&row, ',');
	csv_write_optional_int(&row, iv->pcpu);
	row_putc(&row, ',');
	csv_write_optional_int(&row, iv->reason);
	row_end(&row);
}

/* The exit's name, else its number (SPEC), empty when there is no reason. */
static void csv_write_exit_name(struct csv_row *row, const struct vm_exit_stat *st)
{
	const char *name = vm_exit_reason_name(st->isa, st->reason);

	if (name)
		csv_write_text(row, name);
	else
		csv_write_optional_int(row, st->reason);
}

static void csv_exit_stat(struct vm_writer *w, const struct vm_exit_stat *st)
{
	struct csv_row row = { .out = w->out };

	csv_write_text(&row, st->machine);
	row_putc(&row, ',');
	csv_write_int(&row, st->vcpu);
	row_putc(&row, ',');
	csv_write_optional_int(&row, st->reason);
	row_putc(&row, ',');
	csv_write_exit_name(&row, st);
	row_putc(&row, ',');
	csv_write_uint(&row, st->count, false);
	row_putc(&row, ',');
	csv_write_int(&row, st->total_ns);
	row_putc(&row, ',');
	csv_write_int(&row, st->min_ns);
	row_putc(&row, ',');
	csv_write_int(&row, st->max_ns);
	row_putc(&row, ',');
	csv_write_int(&row, vm_exit_stat_mean_ns(st));
	row_end(&row);
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
