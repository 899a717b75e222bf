/* CSV format (RFC 4180 quoting, LF line ends): one row per record. */

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "writers/out-buffer.h"
#include "writers/utf8-clean.h"
#include "writers/writer-private.h"

static const char *const csv_headers[] = {
	[VM_WRITER_THREADS] = ("machine,tid,comm,state,begin_ns,end_ns,vcpu,reason,"
		"container,vtid"),
	[VM_WRITER_VCPUS] = "machine,vcpu,mode,begin_ns,end_ns,host_tid,pcpu,reason",
	[VM_WRITER_EXITS] = "machine,vcpu,reason,name,count,total_ns,min_ns,max_ns,mean_ns",
	[VM_WRITER_STEAL] = ("machine,vcpu,tid,comm,begin_ns,end_ns,pcpu,culprit_kind,"
		"culprit_machine,culprit_vcpu,culprit_tid,culprit_comm"),
	[VM_WRITER_CONTAINERS] = ("machine,container,ns_inum,threads,running_ns,"
		"hypervisor_ns,preempted_ns,vcpu_blocked_ns,runnable_ns,blocked_ns,"
		"unknown_ns"),
};

/* Quoting is needed for separators, quotes and line breaks; edge spaces are
 * quoted too because many CSV readers trim unquoted ones. */
static bool csv_needs_quotes(const char *s)
{
	const char *p = s;

	if (*s == ' ') {
		return true;
	}
	for (; *p; p++) {
		if (*p == ',' || *p == '"' || *p == '\r' || *p == '\n') {
			return true;
		}
	}
	return p > s && p[-1] == ' ';
}

/*
 * Rows are formatted straight into a large buffer (out-buffer.h): per-row or
 * per-character stdio calls each take the stream's lock, and there are
 * hundreds of thousands of rows.
 */
/*
 * The digits of a time but its last eight, as last written: times of
 * nearby rows share them (they change every 0.1 s), so most times only
 * need their last eight digits converted.
 */
struct time_prefix {
	uint64_t high;    /* time / 10^8; 0: nothing cached (no digits) */
	size_t len;
	char text[16];
};

struct csv_writer {
	struct vm_writer base;
	struct vm_out_buffer buf;
	struct time_prefix prefix;
};

static struct csv_writer *csv_writer_of(struct vm_writer *w)
{
	return (struct csv_writer *) w;
}

static struct vm_out_buffer *csv_buffer(struct vm_writer *w)
{
	return &csv_writer_of(w)->buf;
}

/* Longest text csv_put_plain() copies: thread and machine names are short. */
#define CSV_PLAIN_MAX 64

/*
 * Whether some byte of `w` is below ',' + 1, or not ASCII. The bytes that
 * need quotes ('\n', '\r', '"' and ',') all are below, so a word without
 * any needs none; a word with one (a space, '(', ...) is looked at again
 * byte by byte, and so is one with a byte of a multi-byte (or broken)
 * UTF-8 sequence. The test is exact for any byte values: a borrow only
 * comes from a lower byte that is itself below the bound.
 */
static bool csv_word_suspect(uint64_t w)
{
	const uint64_t ones = UINT64_C(0x0101010101010101);

	return (((w - ones * (',' + 1)) & ~w) | w) & (ones * 0x80);
}

/* As csv_word_suspect(), for up to three bytes. */
static bool csv_bytes_suspect(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char) s[i] <= ',' || (unsigned char) s[i] >= 0x80) {
			return true;
		}
	}
	return false;
}

/*
 * Copies `s` (n bytes, 4 <= n <= CSV_PLAIN_MAX) to `dest` a word at a time,
 * the last word overlapping the one before (no byte loop for the tail).
 * False when some word is suspect: the copy is then to be discarded.
 */
static bool csv_copy_words(char *dest, const char *s, size_t n)
{
	uint32_t head, tail;
	uint64_t w;
	bool suspect = false;
	size_t i;

	if (n < 8) {
		memcpy(&head, s, 4);
		memcpy(&tail, s + n - 4, 4);
		memcpy(dest, &head, 4);
		memcpy(dest + n - 4, &tail, 4);
		return !csv_word_suspect(head | (uint64_t) tail << 32);
	}
	for (i = 0; i + 8 < n; i += 8) {
		memcpy(&w, s + i, 8);
		suspect |= csv_word_suspect(w);
		memcpy(dest + i, &w, 8);
	}
	memcpy(&w, s + n - 8, 8);
	suspect |= csv_word_suspect(w);
	memcpy(dest + n - 8, &w, 8);
	return !suspect;
}

/*
 * Writes `s` as is when it surely needs no quotes; false, the row
 * unchanged, otherwise (csv_write_text() then looks closer). Three text
 * fields per row: strlen() and word-wide tests cost less than a test per
 * byte, and the bytes are copied as they are tested.
 */
static bool csv_put_plain(struct vm_out_buffer *row, const char *s)
{
	size_t n = strlen(s);
	char *dest;

	if (n == 0) {
		return true;
	}
	if (n > CSV_PLAIN_MAX || s[0] == ' ' || s[n - 1] == ' ') {
		return false;
	}
	/* Bytes past the text may be written: they are not part of the row yet. */
	dest = vm_out_buffer_reserve(row, CSV_PLAIN_MAX);
	if (n < 4) {
		if (csv_bytes_suspect(s, n)) {
			return false;
		}
		memcpy(dest, s, n);
	} else if (!csv_copy_words(dest, s, n)) {
		return false;
	}
	row->len += n;
	return true;
}

static void csv_write_quoted(struct vm_out_buffer *row, const char *s)
{
	if (!csv_needs_quotes(s)) {
		vm_out_buffer_put(row, s, strlen(s));
		return;
	}
	vm_out_buffer_putc(row, '"');
	for (; *s; s++) {
		if (*s == '"') {
			vm_out_buffer_putc(row, '"');
		}
		vm_out_buffer_putc(row, *s);
	}
	vm_out_buffer_putc(row, '"');
}

/*
 * A text field; bytes that are not well-formed UTF-8 (a comm holds any
 * bytes) become U+FFFD, as in the other formats (utf8-clean.h).
 */
static void csv_write_text(struct vm_out_buffer *row, const char *s)
{
	char *clean;

	if (!s) {
		s = "";
	}
	if (csv_put_plain(row, s)) {
		return;
	}
	if (vm_utf8_is_clean(s)) {
		csv_write_quoted(row, s);
		return;
	}
	clean = vm_utf8_clean(s);
	csv_write_quoted(row, clean);
	g_free(clean);
}

/* "-" and the 20 digits of UINT64_MAX, rounded up. */
#define DIGITS_MAX 24

static const uint32_t powers_of_ten[] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
};

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/*
 * The 8 digits of `value` (< 10^8), leading zeros included, ending at `end`.
 *
 * All eight at once in one 64-bit word (SWAR): each step divides every lane
 * by a power of ten with a multiply and a shift, so the steps do not wait on
 * one another's divisions as a digit loop does. Lanes are laid out so that
 * the first digit lands in the lowest byte: the store is little-endian.
 */
static char *digits8(char *end, uint32_t value)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
	/* Two 32-bit lanes: the first four digits, then the last four. */
	uint64_t lanes4 = (value / 10000) | ((uint64_t) (value % 10000) << 32);
	/* lane / 100 for lane < 10000: 10486 / 2^20 is just above 1/100. */
	uint64_t hundreds = ((lanes4 * 10486) >> 20) & UINT64_C(0x0000007F0000007F);
	/* Four 16-bit lanes, each two digits. */
	uint64_t lanes2 = hundreds | ((lanes4 - hundreds * 100) << 16);
	/* lane / 10 for lane < 100: 103 / 2^10 is just above 1/10. */
	uint64_t tens = ((lanes2 * 103) >> 10) & UINT64_C(0x000F000F000F000F);
	/* Eight bytes, each a digit. */
	uint64_t digits = tens | ((lanes2 - tens * 10) << 8);

	digits += UINT64_C(0x3030303030303030);
	end -= 8;
	memcpy(end, &digits, 8);
#else
	for (int i = 0; i < 4; i++) {
		uint32_t pair = value % 100;

		value /= 100;
		end -= 2;
		memcpy(end, &digit_pairs[pair * 2], 2);
	}
#endif
	return end;
}

/* How many digits `value` (< 10^8) has, 1 for 0. */
static unsigned int digit_count(uint32_t value)
{
	unsigned int n = 1;

	while (n < 8 && value >= powers_of_ten[n]) {
		n++;
	}
	return n;
}

/* The digits of `value` (< 10^8) without leading zeros, ending at `end`. */
static void digits_short(char *end, uint32_t value)
{
	while (value >= 100) {
		uint32_t pair = value % 100;

		value /= 100;
		end -= 2;
		memcpy(end, &digit_pairs[pair * 2], 2);
	}
	if (value >= 10) {
		memcpy(end - 2, &digit_pairs[value * 2], 2);
	} else {
		end[-1] = (char) ('0' + value);
	}
}

/*
 * Decimal, as "%" PRIu64 writes it, without the printf machinery: rows are
 * mostly numbers and there is one per interval. Nanosecond times have some
 * twenty digits: they are cut in chunks of eight, each converted with 32-bit
 * arithmetic. The digits go straight to `p`, at their place once the length
 * is known: no copy, and no bytes past the number are touched. Returns the
 * end of the number; it takes at most DIGITS_MAX bytes.
 */
static char *csv_format_uint(char *p, uint64_t value, bool negative)
{
	const uint32_t chunk = 100000000;
	uint32_t lead, middle = 0, low = 0;
	unsigned int chunks = 0;

	if (value >= chunk) {
		uint64_t high = value / chunk;

		low = (uint32_t) (value - high * chunk);
		chunks = 1;
		if (high >= chunk) {
			uint64_t top = high / chunk;

			middle = (uint32_t) (high - top * chunk);
			high = top;
			chunks = 2;
		}
		value = high;
	}
	/* Below 10^8: UINT64_MAX / 10^16 is 1844. */
	lead = (uint32_t) value;
	if (negative) {
		*p++ = '-';
	}
	p += digit_count(lead);
	digits_short(p, lead);
	if (chunks == 2) {
		p += 8;
		digits8(p, middle);
	}
	if (chunks >= 1) {
		p += 8;
		digits8(p, low);
	}
	return p;
}

/* As "%" PRId64 writes it. */
static char *csv_format_int(char *p, int64_t value)
{
	return csv_format_uint(p, value < 0 ? -(uint64_t) value : (uint64_t) value, value < 0);
}

/* -1 is "not applicable": an empty cell. */
static char *csv_format_optional_int(char *p, int64_t value)
{
	return value != -1 ? csv_format_int(p, value) : p;
}

/*
 * Room for the numbers of a row and their separators, reserved once per
 * row: the formatters then write without a bound check each, and the row's
 * length is updated once (csv_commit()).
 */
#define CSV_NUMBERS_MAX (8 * (DIGITS_MAX + 1))

/* The bytes written at `p` since the last reserve become part of the row. */
static void csv_commit(struct vm_out_buffer *row, const char *p)
{
	row->len = (size_t) (p - row->data);
}

static void csv_write_uint(struct vm_out_buffer *row, uint64_t value, bool negative)
{
	csv_commit(row, csv_format_uint(vm_out_buffer_reserve(row, DIGITS_MAX), value,
		negative));
}

static void csv_write_int(struct vm_out_buffer *row, int64_t value)
{
	csv_commit(row, csv_format_int(vm_out_buffer_reserve(row, DIGITS_MAX), value));
}

static void csv_write_optional_int(struct vm_out_buffer *row, int64_t value)
{
	if (value != -1) {
		csv_write_int(row, value);
	}
}

/* Renders `high` (>= 1, < 2^64 / 10^8) into the cache. */
static void time_prefix_set(struct time_prefix *prefix, uint64_t high)
{
	const uint32_t chunk = 100000000;
	uint32_t lead = (uint32_t) high;
	char *p = prefix->text;

	if (high >= chunk) {
		lead = (uint32_t) (high / chunk);
		p += digit_count(lead);
		digits_short(p, lead);
		p += 8;
		digits8(p, (uint32_t) (high - (uint64_t) lead * chunk));
	} else {
		p += digit_count(lead);
		digits_short(p, lead);
	}
	prefix->high = high;
	prefix->len = (size_t) (p - prefix->text);
}

/* A time in ns, as csv_format_int() would write it, in DIGITS_MAX bytes. */
static char *csv_format_time(struct time_prefix *prefix, char *p, int64_t ns)
{
	const uint32_t chunk = 100000000;
	uint64_t high;

	if (ns < (int64_t) chunk) {
		return csv_format_int(p, ns);
	}
	high = (uint64_t) ns / chunk;
	if (high != prefix->high) {
		time_prefix_set(prefix, high);
	}
	/* Prefix and digits fit in DIGITS_MAX; the copy is of fixed size. */
	memcpy(p, prefix->text, sizeof(prefix->text));
	p += prefix->len + 8;
	digits8(p, (uint32_t) ((uint64_t) ns - high * chunk));
	return p;
}

static void csv_thread_interval(struct vm_writer *w, const struct vm_thread_interval *iv)
{
	struct csv_writer *cw = csv_writer_of(w);
	struct vm_out_buffer *row = &cw->buf;
	char *p;

	csv_write_text(row, iv->machine);
	p = vm_out_buffer_reserve(row, CSV_NUMBERS_MAX);
	*p++ = ',';
	p = csv_format_int(p, iv->tid);
	*p++ = ',';
	csv_commit(row, p);
	csv_write_text(row, iv->comm);
	vm_out_buffer_putc(row, ',');
	csv_write_text(row, iv->state);
	p = vm_out_buffer_reserve(row, CSV_NUMBERS_MAX);
	*p++ = ',';
	p = csv_format_time(&cw->prefix, p, iv->begin_ns);
	*p++ = ',';
	p = csv_format_time(&cw->prefix, p, iv->end_ns);
	*p++ = ',';
	p = csv_format_optional_int(p, iv->vcpu);
	*p++ = ',';
	p = csv_format_optional_int(p, iv->reason);
	*p++ = ',';
	csv_commit(row, p);
	/* Most threads are in no container: two empty cells. */
	if (!iv->container) {
		vm_out_buffer_putc(row, ',');
		vm_out_buffer_putc(row, '\n');
		return;
	}
	csv_write_text(row, iv->container);
	vm_out_buffer_putc(row, ',');
	csv_write_optional_int(row, iv->vtid);
	vm_out_buffer_putc(row, '\n');
}

static void csv_vcpu_interval(struct vm_writer *w, const struct vm_vcpu_interval *iv)
{
	struct csv_writer *cw = csv_writer_of(w);
	struct vm_out_buffer *row = &cw->buf;
	char *p;

	csv_write_text(row, iv->machine);
	p = vm_out_buffer_reserve(row, CSV_NUMBERS_MAX);
	*p++ = ',';
	p = csv_format_int(p, iv->vcpu);
	*p++ = ',';
	csv_commit(row, p);
	csv_write_text(row, iv->mode);
	p = vm_out_buffer_reserve(row, CSV_NUMBERS_MAX);
	*p++ = ',';
	p = csv_format_time(&cw->prefix, p, iv->begin_ns);
	*p++ = ',';
	p = csv_format_time(&cw->prefix, p, iv->end_ns);
	*p++ = ',';
	p = csv_format_optional_int(p, iv->host_tid);
	*p++ = ',';
	p = csv_format_optional_int(p, iv->pcpu);
	*p++ = ',';
	p = csv_format_optional_int(p, iv->reason);
	*p++ = '\n';
	csv_commit(row, p);
}

/* The exit's name, else its number (SPEC), empty when there is no reason. */
static void csv_write_exit_name(struct vm_out_buffer *row, const struct vm_exit_stat *st)
{
	const char *name = vm_exit_reason_name(st->isa, st->reason);

	if (name) {
		csv_write_text(row, name);
	} else {
		csv_write_optional_int(row, st->reason);
	}
}

static void csv_exit_stat(struct vm_writer *w, const struct vm_exit_stat *st)
{
	struct vm_out_buffer *row = csv_buffer(w);

	csv_write_text(row, st->machine);
	vm_out_buffer_putc(row, ',');
	csv_write_int(row, st->vcpu);
	vm_out_buffer_putc(row, ',');
	csv_write_optional_int(row, st->reason);
	vm_out_buffer_putc(row, ',');
	csv_write_exit_name(row, st);
	vm_out_buffer_putc(row, ',');
	csv_write_uint(row, st->count, false);
	vm_out_buffer_putc(row, ',');
	csv_write_int(row, st->total_ns);
	vm_out_buffer_putc(row, ',');
	csv_write_int(row, st->min_ns);
	vm_out_buffer_putc(row, ',');
	csv_write_int(row, st->max_ns);
	vm_out_buffer_putc(row, ',');
	csv_write_int(row, vm_exit_stat_mean_ns(st));
	vm_out_buffer_putc(row, '\n');
}

/* Far fewer rows than thread intervals: plain writes will do. */
static void csv_steal_interval(struct vm_writer *w, const struct vm_steal_interval *iv)
{
	struct csv_writer *cw = csv_writer_of(w);
	struct vm_out_buffer *row = &cw->buf;
	char *p;

	csv_write_text(row, iv->machine);
	vm_out_buffer_putc(row, ',');
	csv_write_int(row, iv->vcpu);
	vm_out_buffer_putc(row, ',');
	csv_write_optional_int(row, iv->tid);
	vm_out_buffer_putc(row, ',');
	csv_write_text(row, iv->comm);
	p = vm_out_buffer_reserve(row, CSV_NUMBERS_MAX);
	*p++ = ',';
	p = csv_format_time(&cw->prefix, p, iv->begin_ns);
	*p++ = ',';
	p = csv_format_time(&cw->prefix, p, iv->end_ns);
	*p++ = ',';
	p = csv_format_optional_int(p, iv->pcpu);
	*p++ = ',';
	csv_commit(row, p);
	csv_write_text(row, iv->culprit_kind);
	vm_out_buffer_putc(row, ',');
	csv_write_text(row, iv->culprit_machine);
	vm_out_buffer_putc(row, ',');
	csv_write_optional_int(row, iv->culprit_vcpu);
	vm_out_buffer_putc(row, ',');
	csv_write_optional_int(row, iv->culprit_tid);
	vm_out_buffer_putc(row, ',');
	csv_write_text(row, iv->culprit_comm);
	vm_out_buffer_putc(row, '\n');
}

static void csv_container_total(struct vm_writer *w, const struct vm_container_total *row)
{
	struct vm_out_buffer *buf = csv_buffer(w);

	csv_write_text(buf, row->machine);
	vm_out_buffer_putc(buf, ',');
	csv_write_text(buf, row->container);
	vm_out_buffer_putc(buf, ',');
	csv_write_int(buf, row->ns_inum);
	vm_out_buffer_putc(buf, ',');
	csv_write_int(buf, row->threads);
	for (int i = 0; i < VM_CONTAINER_STATES; i++) {
		vm_out_buffer_putc(buf, ',');
		csv_write_int(buf, row->ns[i]);
	}
	vm_out_buffer_putc(buf, '\n');
}

/* Rows still in the buffer go to the stream, which the caller flushes. */
static void csv_finish(struct vm_writer *w)
{
	vm_out_buffer_flush(csv_buffer(w));
}

/* Without a finish (an error upstream), the rows so far still go out. */
static void csv_destroy(struct vm_writer *w)
{
	vm_out_buffer_clear(csv_buffer(w));
	g_free(w);
}

static const struct vm_writer_ops csv_ops = {
	.thread_interval = csv_thread_interval,
	.vcpu_interval = csv_vcpu_interval,
	.exit_stat = csv_exit_stat,
	.steal_interval = csv_steal_interval,
	.container_total = csv_container_total,
	.finish = csv_finish,
	.destroy = csv_destroy,
};

struct vm_writer *vm_writer_csv_new(enum vm_writer_what what, FILE *out)
{
	struct csv_writer *cw = g_new0(struct csv_writer, 1);

	vm_writer_init_base(&cw->base, &csv_ops, what, out);
	vm_out_buffer_init(&cw->buf, out);
	fprintf(out, "%s\n", csv_headers[what]);
	return &cw->base;
}
