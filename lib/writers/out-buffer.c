/* Output buffer in front of a stdio stream: see out-buffer.h. */

#include <glib.h>

#include "writers/out-buffer.h"

void vm_out_buffer_init(struct vm_out_buffer *b, FILE *out)
{
	b->out = out;
	b->len = 0;
	b->data = g_malloc(VM_OUT_BUFFER_SIZE);
}

void vm_out_buffer_flush(struct vm_out_buffer *b)
{
	if (b->len) {
		fwrite(b->data, 1, b->len, b->out);
	}
	b->len = 0;
}

void vm_out_buffer_clear(struct vm_out_buffer *b)
{
	if (!b->data) {
		return;
	}
	vm_out_buffer_flush(b);
	g_free(b->data);
	b->data = NULL;
}

void vm_out_buffer_put_long(struct vm_out_buffer *b, const char *s, size_t n)
{
	vm_out_buffer_flush(b);
	if (n > VM_OUT_BUFFER_SIZE) {
		/* Larger than the buffer: no point in copying it. */
		fwrite(s, 1, n, b->out);
		return;
	}
	memcpy(b->data, s, n);
	b->len = n;
}
