#ifndef VM_WRITERS_TEXT_TABLE_H
#define VM_WRITERS_TEXT_TABLE_H

/* A table printed with aligned columns; its first row is the header. */

#include <glib.h>
#include <stdio.h>

struct vm_text_table;

/* One character per column: 'l' aligns it left, 'r' right (numbers). */
struct vm_text_table *vm_text_table_new(const char *alignments);
void vm_text_table_free(struct vm_text_table *t);

void vm_text_table_begin_row(struct vm_text_table *t);
/* Appends a cell to the current row; the text is copied, made valid UTF-8
 * and stripped of control characters so that it cannot break the layout. */
void vm_text_table_add(struct vm_text_table *t, const char *text);
void vm_text_table_addf(struct vm_text_table *t, const char *format, ...)
	G_GNUC_PRINTF(2, 3);

/* Header, a rule under it, then the rows; each line indented by two. */
void vm_text_table_print(const struct vm_text_table *t, FILE *out);

#endif /* VM_WRITERS_TEXT_TABLE_H */
