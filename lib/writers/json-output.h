#ifndef VM_WRITERS_JSON_OUTPUT_H
#define VM_WRITERS_JSON_OUTPUT_H

/* Pieces of JSON (RFC 8259) shared by the json and chrome formats. */

#include <stdint.h>
#include <stdio.h>

/* A quoted string; control characters escaped, each byte that is not part
 * of well-formed UTF-8 replaced by U+FFFD so that the output stays valid. */
void vm_json_write_string(FILE *out, const char *s);

/* The number, or null for -1 (the records' "not applicable"). */
void vm_json_write_optional_int(FILE *out, int64_t value);

#endif /* VM_WRITERS_JSON_OUTPUT_H */
