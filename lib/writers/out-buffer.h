#ifndef VM_WRITERS_OUT_BUFFER_H
#define VM_WRITERS_OUT_BUFFER_H

/*
 * A large buffer in front of a stdio stream for writers that emit many
 * small records: records are formatted straight into it and reach stdio in
 * blocks of VM_OUT_BUFFER_SIZE bytes. A call to stdio per record (or per
 * field) takes the stream's lock and copies the bytes once more, and
 * blocks larger than the stream's own buffer go to write(2) directly, in
 * fewer and larger system calls.
 *
 * What the buffer holds reaches the stream only at vm_out_buffer_flush():
 * flush before writing to the stream by other means, and before fflush().
 */

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define VM_OUT_BUFFER_SIZE ((size_t) 256 * 1024)

struct vm_out_buffer {
	FILE *out;
	size_t len;
	char *data;  /* VM_OUT_BUFFER_SIZE bytes */
};

void vm_out_buffer_init(struct vm_out_buffer *b, FILE *out);

/* Hands what is buffered to the stream (errors show in ferror()). */
void vm_out_buffer_flush(struct vm_out_buffer *b);

/* Flushes, then frees the buffer. */
void vm_out_buffer_clear(struct vm_out_buffer *b);

/* Makes room for `n` bytes (n <= VM_OUT_BUFFER_SIZE) at b->data + b->len. */
static inline char *vm_out_buffer_reserve(struct vm_out_buffer *b, size_t n)
{
	if (n > VM_OUT_BUFFER_SIZE - b->len) {
		vm_out_buffer_flush(b);
	}
	return b->data + b->len;
}

/* The slow path of vm_out_buffer_put(): flushes, maybe writes directly. */
void vm_out_buffer_put_long(struct vm_out_buffer *b, const char *s, size_t n);

static inline void vm_out_buffer_put(struct vm_out_buffer *b, const char *s, size_t n)
{
	if (n > VM_OUT_BUFFER_SIZE - b->len) {
		vm_out_buffer_put_long(b, s, n);
		return;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

static inline void vm_out_buffer_putc(struct vm_out_buffer *b, char c)
{
	*vm_out_buffer_reserve(b, 1) = c;
	b->len++;
}

#endif /* VM_WRITERS_OUT_BUFFER_H */
