/* Common part of the writers: option parsing and dispatch to a format. */

#include <glib.h>
#include <string.h>

#include "writers/writer-private.h"

struct name_value {
	const char *name;
	int value;
};

static const struct name_value format_names[] = {
	{ "text", VM_WRITER_TEXT },
	{ "csv", VM_WRITER_CSV },
	{ "json", VM_WRITER_JSON },
	{ "chrome", VM_WRITER_CHROME },
};

static const struct name_value what_names[] = {
	{ "threads", VM_WRITER_THREADS },
	{ "vcpus", VM_WRITER_VCPUS },
	{ "exits", VM_WRITER_EXITS },
	{ "steal", VM_WRITER_STEAL },
	{ "containers", VM_WRITER_CONTAINERS },
};

static bool lookup_name(const struct name_value *table, size_t n,
		const char *s, int *out)
{
	if (!s) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(table[i].name, s) == 0) {
			*out = table[i].value;
			return true;
		}
	}
	return false;
}

bool vm_writer_format_from_string(const char *s, enum vm_writer_format *out)
{
	int value;

	if (!lookup_name(format_names, G_N_ELEMENTS(format_names), s, &value)) {
		return false;
	}
	*out = (enum vm_writer_format) value;
	return true;
}

bool vm_writer_what_from_string(const char *s, enum vm_writer_what *out)
{
	int value;

	if (!lookup_name(what_names, G_N_ELEMENTS(what_names), s, &value)) {
		return false;
	}
	*out = (enum vm_writer_what) value;
	return true;
}

void vm_writer_init_base(struct vm_writer *w, const struct vm_writer_ops *ops,
		enum vm_writer_what what, FILE *out)
{
	w->ops = ops;
	w->what = what;
	w->every_kind = false;
	w->no_host = false;
	w->out = out;
	w->finished = false;
}

struct vm_writer *vm_writer_create(enum vm_writer_format format,
		enum vm_writer_what what, FILE *out)
{
	/* The formats index their tables with `what`. */
	if ((unsigned) what > VM_WRITER_CONTAINERS || !out) {
		return NULL;
	}
	switch (format) {
	case VM_WRITER_TEXT:
		return vm_writer_text_new(what, out);
	case VM_WRITER_CSV:
		return vm_writer_csv_new(what, out);
	case VM_WRITER_JSON:
		return vm_writer_json_new(what, out);
	case VM_WRITER_CHROME:
		return vm_writer_chrome_new(what, out);
	}
	return NULL;
}

struct vm_writer *vm_writer_create_summary(FILE *out)
{
	return out ? vm_writer_text_summary_new(out) : NULL;
}

void vm_writer_set_no_host(struct vm_writer *w, bool no_host)
{
	w->no_host = no_host;
}

bool vm_writer_wants(const struct vm_writer *w, enum vm_writer_what kind)
{
	if (w->finished) {
		return false;
	}
	return w->every_kind || w->what == kind || (kind == VM_WRITER_STEAL &&
		w->steal_with_threads && w->what == VM_WRITER_THREADS);
}

void vm_writer_thread_interval(struct vm_writer *w, const struct vm_thread_interval *iv)
{
	if (vm_writer_wants(w, VM_WRITER_THREADS)) {
		w->ops->thread_interval(w, iv);
	}
}

void vm_writer_vcpu_interval(struct vm_writer *w, const struct vm_vcpu_interval *iv)
{
	if (vm_writer_wants(w, VM_WRITER_VCPUS)) {
		w->ops->vcpu_interval(w, iv);
	}
}

void vm_writer_exit_stat(struct vm_writer *w, const struct vm_exit_stat *st)
{
	if (vm_writer_wants(w, VM_WRITER_EXITS)) {
		w->ops->exit_stat(w, st);
	}
}

void vm_writer_steal_interval(struct vm_writer *w, const struct vm_steal_interval *iv)
{
	if (vm_writer_wants(w, VM_WRITER_STEAL)) {
		w->ops->steal_interval(w, iv);
	}
}

void vm_writer_container_total(struct vm_writer *w, const struct vm_container_total *row)
{
	if (vm_writer_wants(w, VM_WRITER_CONTAINERS)) {
		w->ops->container_total(w, row);
	}
}

void vm_writer_machine_losses(struct vm_writer *w, const struct vm_machine_losses *losses)
{
	if (!w->finished && w->ops->machine_losses) {
		w->ops->machine_losses(w, losses);
	}
}

bool vm_writer_finish(struct vm_writer *w)
{
	if (!w->finished) {
		w->ops->finish(w);
		w->finished = true;
	}
	/* stdio buffers: a full disk only shows at the flush. */
	if (fflush(w->out) != 0) {
		return false;
	}
	return !ferror(w->out);
}

void vm_writer_destroy(struct vm_writer *w)
{
	if (w) {
		w->ops->destroy(w);
	}
}

int64_t vm_exit_stat_mean_ns(const struct vm_exit_stat *st)
{
	if (st->count == 0) {
		return 0;
	}
	return st->total_ns / (int64_t) st->count;
}
