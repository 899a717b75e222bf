/*
 * What was warned about already: see warn-once.h.
 */

#include <glib.h>
#include <stdint.h>

#include "util/warn-once.h"

struct vm_warn_once {
	/* "kind\nmachine" strings already reported */
	GHashTable *names;
	/*
	 * (kind << 32 | machine) already reported, as gint64 keys: a lookup
	 * needs no allocation, some callers ask once per event.
	 */
	GHashTable *ids;
};

struct vm_warn_once *vm_warn_once_create(void)
{
	struct vm_warn_once *seen = g_new0(struct vm_warn_once, 1);

	seen->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	seen->ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	return seen;
}

void vm_warn_once_destroy(struct vm_warn_once *seen)
{
	if (!seen) {
		return;
	}
	g_hash_table_destroy(seen->names);
	g_hash_table_destroy(seen->ids);
	g_free(seen);
}

bool vm_warn_once_first(struct vm_warn_once *seen, const char *kind,
		const char *machine)
{
	char *key = g_strdup_printf("%s\n%s", kind, machine ? machine : "");

	/* g_hash_table_add() takes the key and tells whether it was new. */
	return g_hash_table_add(seen->names, key);
}

static gint64 id_key(unsigned int kind, unsigned int machine)
{
	return (gint64) ((uint64_t) kind << 32 | machine);
}

bool vm_warn_once_given_id(const struct vm_warn_once *seen, unsigned int kind,
		unsigned int machine)
{
	gint64 key = id_key(kind, machine);

	return g_hash_table_contains(seen->ids, &key);
}

bool vm_warn_once_first_id(struct vm_warn_once *seen, unsigned int kind,
		unsigned int machine)
{
	gint64 key = id_key(kind, machine);

	if (g_hash_table_contains(seen->ids, &key)) {
		return false;
	}
	g_hash_table_add(seen->ids, g_memdup2(&key, sizeof(key)));
	return true;
}
