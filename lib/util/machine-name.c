/*
 * Machine names in parameters: see machine-name.h.
 */

#include <string.h>
#include <glib.h>

#include "util/machine-name.h"

/*
 * Where the `#N` suffix of a `base#N` name starts (N from 2, no leading
 * zero), NULL when `name` has none.
 */
static const char *suffix_of(const char *name)
{
	const char *hash = strrchr(name, '#');
	const char *digit;

	if (!hash || hash == name || hash[1] < '1' || hash[1] > '9') {
		return NULL;
	}

	for (digit = hash + 1; *digit; digit++) {
		if (!g_ascii_isdigit(*digit)) {
			return NULL;
		}
	}

	/* `#1` is never given: the first machine keeps the bare hostname. */
	return strcmp(hash, "#1") == 0 ? NULL : hash;
}

bool vm_machine_name_is_alias(const char *spelling, const char *name)
{
	const char *hash = suffix_of(name);
	size_t base_len;

	if (!hash || strlen(spelling) != strlen(name)) {
		return false;
	}

	base_len = (size_t) (hash - name);
	return strncmp(spelling, name, base_len) == 0 &&
		spelling[base_len] == '-' &&
		strcmp(spelling + base_len + 1, hash + 1) == 0;
}

int vm_machine_name_match(const char *spelling, const char *const *names,
		unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count; i++) {
		if (strcmp(names[i], spelling) == 0) {
			return (int) i;
		}
	}

	for (i = 0; i < count; i++) {
		if (vm_machine_name_is_alias(spelling, names[i])) {
			return (int) i;
		}
	}

	return -1;
}

char *vm_machine_name_for_param(const char *name, const char *const *names,
		unsigned int count)
{
	const char *hash = suffix_of(name);
	char *alias;
	unsigned int i;

	if (!hash) {
		return g_strdup(name);
	}

	alias = g_strdup(name);
	alias[hash - name] = '-';
	for (i = 0; i < count; i++) {
		if (strcmp(names[i], alias) == 0) {
			g_free(alias);
			return g_strdup(name);
		}
	}

	return alias;
}
