#ifndef VM_WRITERS_WRITER_PRIVATE_H
#define VM_WRITERS_WRITER_PRIVATE_H

/*
 * What every output format implements. writer.c does the common part
 * (parsing, filtering on `what`, I/O error check) and calls these.
 */

#include "writers/writer.h"

struct vm_writer_ops {
	/* The text summary takes every record kind; the streamed formats only
	 * those of their `what`, so writer.c filters before calling them. */
	bool accepts_every_kind;
	void (*thread_interval)(struct vm_writer *w, const struct vm_thread_interval *iv);
	void (*vcpu_interval)(struct vm_writer *w, const struct vm_vcpu_interval *iv);
	void (*exit_stat)(struct vm_writer *w, const struct vm_exit_stat *st);
	/* Writes what is still pending (summary tables, closing brackets). */
	void (*finish)(struct vm_writer *w);
	/* Frees the format's whole struct (which embeds struct vm_writer). */
	void (*destroy)(struct vm_writer *w);
};

/* Embedded as the first member of each format's own struct. */
struct vm_writer {
	const struct vm_writer_ops *ops;
	enum vm_writer_what what;
	FILE *out;
	bool finished;
};

void vm_writer_init_base(struct vm_writer *w, const struct vm_writer_ops *ops,
		enum vm_writer_what what, FILE *out);

/* Constructors of the formats; each writes its header, if any, at once. */
struct vm_writer *vm_writer_text_new(enum vm_writer_what what, FILE *out);
struct vm_writer *vm_writer_csv_new(enum vm_writer_what what, FILE *out);
struct vm_writer *vm_writer_json_new(enum vm_writer_what what, FILE *out);
struct vm_writer *vm_writer_chrome_new(enum vm_writer_what what, FILE *out);

/* Mean of an exit statistic; 0 for an empty one rather than a division by 0. */
int64_t vm_exit_stat_mean_ns(const struct vm_exit_stat *st);

#endif /* VM_WRITERS_WRITER_PRIVATE_H */
