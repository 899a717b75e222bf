/* What an output path names, and whether it may be replaced: see output-target.h. */

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writers/output-target.h"

static bool in_our_groups(gid_t gid)
{
	gid_t groups[256];
	int count;
	int i;

	if (gid == getegid()) {
		return true;
	}
	count = getgroups(G_N_ELEMENTS(groups), groups);
	for (i = 0; i < count; i++) {
		if (groups[i] == gid) {
			return true;
		}
	}
	return false;
}

/*
 * Whether we may write the existing file `path`: the kernel's answer
 * (ACLs included), except for root, whom the kernel lets write anything.
 */
static bool writable(const char *path, const struct stat *st)
{
	if (geteuid() != 0) {
		return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
	}
	if (st->st_uid == geteuid()) {
		return st->st_mode & S_IWUSR;
	}
	if (in_our_groups(st->st_gid)) {
		return st->st_mode & S_IWGRP;
	}
	return st->st_mode & S_IWOTH;
}

/* The sticky-directory rule of rename(2) and fs.protected_regular. */
static bool sticky_protected(const char *path, const struct stat *st, char **dir)
{
	struct stat dir_st;

	*dir = g_path_get_dirname(path);
	if (stat(*dir, &dir_st) != 0 || !(dir_st.st_mode & S_ISVTX)) {
		return false;
	}
	return st->st_uid != geteuid() && st->st_uid != dir_st.st_uid;
}

static bool dangling_link(const char *path, char **error)
{
	struct stat st;
	char *target;

	if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) {
		return false;
	}
	target = g_file_read_link(path, NULL);
	*error = g_strdup_printf("it is a symbolic link to \"%s\", which does not "
		"exist: give the file name itself, or make the link point to an "
		"existing file", target ? target : "?");
	g_free(target);
	return true;
}

/* Checks an existing regular file; `resolved`: its path, links followed. */
static bool check_existing(const char *resolved, const struct stat *st, char **error)
{
	char *dir = NULL;
	bool ok = true;

	if (!writable(resolved, st)) {
		*error = g_strdup_printf("\"%s\" exists and is not writable by us (mode "
			"%04o, owner uid %lld): it is not replaced; give another file name "
			"or make it writable", resolved, (unsigned int) (st->st_mode & 07777),
			(long long) st->st_uid);
		ok = false;
	} else if (sticky_protected(resolved, st, &dir)) {
		*error = g_strdup_printf("\"%s\" belongs to another user (uid %lld) in "
			"the sticky directory \"%s\": only its owner may replace it; give "
			"a file name of your own", resolved, (long long) st->st_uid, dir);
		ok = false;
	}
	g_free(dir);
	return ok;
}

bool vm_output_target_check(const char *path, struct vm_output_target *t,
		char **error)
{
	struct stat st;
	char *resolved;

	*t = (struct vm_output_target) { .mode = -1, .uid = -1, .gid = -1 };
	if (stat(path, &st) != 0) {
		if (errno == ENOENT && dangling_link(path, error)) {
			return false;
		}
		/* A new file (or a path the temporary file will say is wrong). */
		t->replace = g_strdup(path);
		return true;
	}
	if (!S_ISREG(st.st_mode)) {
		return true;
	}
	/* A rename would replace a link itself: replace its target. */
	resolved = realpath(path, NULL);
	t->replace = g_strdup(resolved ? resolved : path);
	free(resolved);
	if (!check_existing(t->replace, &st, error)) {
		g_clear_pointer(&t->replace, g_free);
		return false;
	}
	t->mode = (int) (st.st_mode & 07777);
	t->uid = st.st_uid;
	t->gid = st.st_gid;
	return true;
}
