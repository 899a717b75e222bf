#ifndef VM_WRITERS_WRITER_PRIVATE_H
#define VM_WRITERS_WRITER_PRIVATE_H

/*
 * What every output format implements. writer.c does the common part
 * (parsing, filtering on `what`, I/O error check) and calls these.
 */

#include "writers/writer.h"

/* writer.c passes on only the records the writer wants (vm_writer_wants()). */
struct vm_writer_ops {
	void (*thread_interval)(struct vm_writer *w, const struct vm_thread_interval *iv);
	void (*vcpu_interval)(struct vm_writer *w, const struct vm_vcpu_interval *iv);
	void (*exit_stat)(struct vm_writer *w, const struct vm_exit_stat *st);
	void (*steal_interval)(struct vm_writer *w, const struct vm_steal_interval *iv);
	void (*container_total)(struct vm_writer *w, const struct vm_container_total *row);
	/* NULL: the format does not show losses. */
	void (*machine_losses)(struct vm_writer *w, const struct vm_machine_losses *losses);
	/* Writes what is still pending (summary tables, closing brackets). */
	void (*finish)(struct vm_writer *w);
	/* Frees the format's whole struct (which embeds struct vm_writer). */
	void (*destroy)(struct vm_writer *w);
};

/* Embedded as the first member of each format's own struct. */
struct vm_writer {
	const struct vm_writer_ops *ops;
	enum vm_writer_what what;
	bool every_kind;   /* the text summary: every kind, whatever `what` */
	/*
	 * Steal rows wanted with `what` threads too: chrome names the culprits
	 * of each preempted slice (SPEC, Who took the time).
	 */
	bool steal_with_threads;
	bool no_host;      /* see vm_writer_set_no_host() */
	FILE *out;
	bool finished;
};

void vm_writer_init_base(struct vm_writer *w, const struct vm_writer_ops *ops,
		enum vm_writer_what what, FILE *out);

/* Constructors of the formats; each writes its header, if any, at once. */
struct vm_writer *vm_writer_text_new(enum vm_writer_what what, FILE *out);
struct vm_writer *vm_writer_text_summary_new(FILE *out);
struct vm_writer *vm_writer_csv_new(enum vm_writer_what what, FILE *out);
struct vm_writer *vm_writer_json_new(enum vm_writer_what what, FILE *out);
struct vm_writer *vm_writer_chrome_new(enum vm_writer_what what, FILE *out);

/* Mean of an exit statistic; 0 for an empty one rather than a division by 0. */
int64_t vm_exit_stat_mean_ns(const struct vm_exit_stat *st);

#endif /* VM_WRITERS_WRITER_PRIVATE_H */
