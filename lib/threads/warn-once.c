#include <glib.h>

#include "threads/warn-once.h"

struct vm_threads_warn_once {
	/* "kind\nmachine" strings already reported */
	GHashTable *seen;
};

struct vm_threads_warn_once *vm_threads_warn_once_create(void)
{
	struct vm_threads_warn_once *w = g_new0(struct vm_threads_warn_once, 1);

	w->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return w;
}

void vm_threads_warn_once_destroy(struct vm_threads_warn_once *seen)
{
	if (!seen)
		return;
	g_hash_table_destroy(seen->seen);
	g_free(seen);
}

bool vm_threads_warn_once_first(struct vm_threads_warn_once *seen,
		const char *kind, const char *machine)
{
	char *key = g_strdup_printf("%s\n%s", kind, machine ? machine : "");

	/* g_hash_table_add() takes the key and tells whether it was new. */
	return g_hash_table_add(seen->seen, key);
}
