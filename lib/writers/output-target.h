#ifndef VM_WRITERS_OUTPUT_TARGET_H
#define VM_WRITERS_OUTPUT_TARGET_H

/*
 * What an output `path` names, and whether it may be replaced: checked
 * before the run, so that a run does not complete only for its results to
 * be refused at the end.
 *
 * - A symbolic link: its target is replaced; a link to nothing is an error
 *   (its target would be created wherever the link points).
 * - An existing regular file must be writable by us. Root writes anything,
 *   so for root the check reads the mode bits as they apply to its uid and
 *   groups: a read-only file, or another user's file that only its owner
 *   may write, is not replaced.
 * - In a sticky directory (/tmp), a file that neither we nor the
 *   directory's owner own cannot be replaced (rename(2) refuses it, and
 *   Linux's fs.protected_regular refuses to open it for writing): an error
 *   for root too, which the kernel would let through.
 * - Anything else that exists (a device, a FIFO) is written directly.
 *
 * No babeltrace2 types here.
 */

#include <stdbool.h>
#include <sys/types.h>

struct vm_output_target {
	/* The regular file a rename replaces; NULL: write `path` directly. */
	char *replace;
	/* The existing file's mode, owner and group; -1 for a new file. */
	int mode;
	long long uid;
	long long gid;
};

/*
 * Fills `t` for `path`; false, with `*error` set (g_free() it), when
 * `path` must not be written.
 */
bool vm_output_target_check(const char *path, struct vm_output_target *t,
		char **error);

#endif /* VM_WRITERS_OUTPUT_TARGET_H */
