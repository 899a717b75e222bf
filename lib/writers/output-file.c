/* The output file, replaced only by a complete output: see output-file.h. */

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writers/output-file.h"
#include "writers/output-target.h"
#include "writers/temp-cleanup.h"

struct vm_output_file {
	FILE *stream;
	char *path;        /* the file to replace; NULL: written directly */
	char *temp_path;   /* the records until commit; NULL once renamed */
	int cleanup_slot;  /* temp_path's registration for signals, or -1 */
};

static char *error_of(int errnum)
{
	return g_strdup(g_strerror(errnum));
}

/*
 * The replaced file's mode, owner and group, as fopen("w") would keep them.
 * Best effort: only root may give a file to another user; anyone may give
 * it a group of theirs.
 */
static void keep_attributes(int fd, const struct vm_output_target *t)
{
	if (t->mode >= 0) {
		(void) fchmod(fd, (mode_t) t->mode);
	}
	if (t->uid < 0 || (t->uid == (long long) geteuid() &&
			t->gid == (long long) getegid())) {
		return;
	}
	if (fchown(fd, (uid_t) t->uid, (gid_t) t->gid) != 0) {
		(void) fchown(fd, (uid_t) -1, (gid_t) t->gid);
	}
	/* chown() clears set-user/group-ID bits: the mode once more. */
	if (t->mode >= 0) {
		(void) fchmod(fd, (mode_t) t->mode);
	}
}

/* The temporary file is no longer ours to remove (renamed, or kept). */
static void forget_temp(struct vm_output_file *f)
{
	vm_temp_cleanup_remove(f->cleanup_slot);
	f->cleanup_slot = -1;
	g_clear_pointer(&f->temp_path, g_free);
}

static bool open_temp(struct vm_output_file *f, const struct vm_output_target *t,
		char **error)
{
	int fd;

	f->temp_path = g_strconcat(f->path, ".XXXXXX", NULL);
	/* 0666 through the umask: the mode fopen() would give a new file. */
	fd = g_mkstemp_full(f->temp_path, O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0) {
		*error = g_strdup_printf("cannot create its temporary file next to it "
			"(%s): give a file name in an existing, writable directory",
			g_strerror(errno));
		g_clear_pointer(&f->temp_path, g_free);
		return false;
	}
	/* A run killed by a signal removes it too. */
	f->cleanup_slot = vm_temp_cleanup_add(f->temp_path);
	keep_attributes(fd, t);
	f->stream = fdopen(fd, "w");
	if (!f->stream) {
		*error = error_of(errno);
		close(fd);
		g_unlink(f->temp_path);
		forget_temp(f);
		return false;
	}
	return true;
}

static bool open_direct(struct vm_output_file *f, const char *path, char **error)
{
	f->stream = fopen(path, "w");
	if (!f->stream) {
		*error = g_strdup_printf("cannot open it for writing (%s)",
			g_strerror(errno));
		return false;
	}
	return true;
}

struct vm_output_file *vm_output_file_open(const char *path, char **error)
{
	struct vm_output_file *f = g_new0(struct vm_output_file, 1);
	struct vm_output_target target;
	bool ok;

	f->cleanup_slot = -1;
	if (!path) {
		f->stream = stdout;
		return f;
	}
	if (!vm_output_target_check(path, &target, error)) {
		g_free(f);
		return NULL;
	}
	f->path = target.replace;
	ok = f->path ? open_temp(f, &target, error) : open_direct(f, path, error);
	if (!ok) {
		g_free(f->path);
		g_free(f);
		return NULL;
	}
	return f;
}

FILE *vm_output_file_stream(struct vm_output_file *f)
{
	return f->stream;
}

/* Closes the stream; false with `*error` set when its last bytes fail. */
static bool close_stream(struct vm_output_file *f, char **error)
{
	int status;

	if (f->stream == stdout) {
		status = fflush(stdout);
	} else {
		status = fclose(f->stream);
	}
	f->stream = NULL;
	if (status != 0) {
		*error = error_of(errno);
		return false;
	}
	return true;
}

bool vm_output_file_commit(struct vm_output_file *f, char **error)
{
	if (!f->stream) {
		*error = g_strdup("the output is already closed");
		return false;
	}
	if (!close_stream(f, error)) {
		return false;
	}
	if (!f->temp_path) {
		return true;
	}
	if (g_rename(f->temp_path, f->path) != 0) {
		/* The output is complete: keep it where it is, and say where. */
		*error = g_strdup_printf("%s; the complete output is kept in \"%s\"",
			g_strerror(errno), f->temp_path);
		forget_temp(f);
		return false;
	}
	forget_temp(f);
	return true;
}

void vm_output_file_close(struct vm_output_file *f)
{
	char *ignored = NULL;

	if (!f) {
		return;
	}
	if (f->stream) {
		(void) close_stream(f, &ignored);
	}
	g_free(ignored);
	/* Not committed: the previous file stays as it was. */
	if (f->temp_path) {
		g_unlink(f->temp_path);
	}
	forget_temp(f);
	g_free(f->path);
	g_free(f);
}
