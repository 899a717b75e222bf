#ifndef VM_TESTS_FIELD_DUMP_H
#define VM_TESTS_FIELD_DUMP_H

/*
 * One-line text of a field or a field class, for comparing two graphs'
 * outputs field by field: every name, class type and value, and each
 * string as its length's worth of bytes, with a mark when its value shows
 * more (what a sink reading the value, not the length, would print).
 */

#include <babeltrace2/babeltrace.h>
#include <glib.h>

/* Appends `field` (NULL: "-") to `out`. */
void field_dump(GString *out, const bt_field *field);

/* Appends `fc` (NULL: "-") to `out`. */
void field_class_dump(GString *out, const bt_field_class *fc);

#endif /* VM_TESTS_FIELD_DUMP_H */
