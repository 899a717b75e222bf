#ifndef VM_WRITERS_UTF8_CLEAN_H
#define VM_WRITERS_UTF8_CLEAN_H

/*
 * Well-formed UTF-8 for the writers: comms and machine names come from
 * traces and may hold any bytes. Every format writes each byte that is not
 * part of a well-formed sequence (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF) as U+FFFD, the same way.
 */

#include <stdbool.h>
#include <stddef.h>

/*
 * Length of the well-formed multi-byte sequence at `s` (its first byte is
 * 0x80 or above), 0 if there is none. Stops at a NUL.
 */
size_t vm_utf8_sequence_length(const unsigned char *s);

/* Whether `s` is well-formed UTF-8 as a whole. */
bool vm_utf8_is_clean(const char *s);

/* A copy of `s` with each byte outside a well-formed sequence replaced by
 * U+FFFD; g_free() it. */
char *vm_utf8_clean(const char *s);

#endif /* VM_WRITERS_UTF8_CLEAN_H */
