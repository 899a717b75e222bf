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

struct vm_output_file {
	FILE *stream;
	char *path;        /* the file to replace; NULL: written directly */
	char *temp_path;   /* the records until commit; NULL once renamed */
};

static char *error_of(int errnum)
{
	return g_strdup(g_strerror(errnum));
}

/*
 * The file a rename must replace: through a symbolic link, its target (a
 * rename would replace the link). NULL when `path` exists and is no
 * regular file: it is then written directly. `*mode` is the existing
 * file's mode, which the new one keeps as fopen("w") would, or -1.
 */
static char *file_to_replace(const char *path, int *mode)
{
	struct stat st;
	char *resolved, *copy;

	*mode = -1;
	if (stat(path, &st) != 0)
		return g_strdup(path);
	if (!S_ISREG(st.st_mode))
		return NULL;
	*mode = (int) (st.st_mode & 07777);
	resolved = realpath(path, NULL);
	if (!resolved)
		return g_strdup(path);
	/* realpath() allocates with malloc(): hand a g_malloc() copy on. */
	copy = g_strdup(resolved);
	free(resolved);
	return copy;
}

static bool open_temp(struct vm_output_file *f, int mode, char **error)
{
	int fd;

	f->temp_path = g_strconcat(f->path, ".XXXXXX", NULL);
	/* 0666 through the umask: the mode fopen() would give a new file. */
	fd = g_mkstemp_full(f->temp_path, O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0) {
		*error = error_of(errno);
		g_clear_pointer(&f->temp_path, g_free);
		return false;
	}
	/* Best effort: a file of another owner may refuse its mode. */
	if (mode >= 0)
		(void) fchmod(fd, (mode_t) mode);
	f->stream = fdopen(fd, "w");
	if (!f->stream) {
		*error = error_of(errno);
		close(fd);
		g_unlink(f->temp_path);
		g_clear_pointer(&f->temp_path, g_free);
		return false;
	}
	return true;
}

static bool open_direct(struct vm_output_file *f, const char *path, char **error)
{
	f->stream = fopen(path, "w");
	if (!f->stream) {
		*error = error_of(errno);
		return false;
	}
	return true;
}

struct vm_output_file *vm_output_file_open(const char *path, char **error)
{
	struct vm_output_file *f = g_new0(struct vm_output_file, 1);
	int mode;
	bool ok;

	if (!path) {
		f->stream = stdout;
		return f;
	}
	f->path = file_to_replace(path, &mode);
	ok = f->path ? open_temp(f, mode, error) : open_direct(f, path, error);
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

	if (f->stream == stdout)
		status = fflush(stdout);
	else
		status = fclose(f->stream);
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
	if (!close_stream(f, error))
		return false;
	if (!f->temp_path)
		return true;
	if (g_rename(f->temp_path, f->path) != 0) {
		*error = error_of(errno);
		return false;
	}
	g_clear_pointer(&f->temp_path, g_free);
	return true;
}

void vm_output_file_close(struct vm_output_file *f)
{
	char *ignored = NULL;

	if (!f)
		return;
	if (f->stream)
		(void) close_stream(f, &ignored);
	g_free(ignored);
	/* Not committed: the previous file stays as it was. */
	if (f->temp_path)
		g_unlink(f->temp_path);
	g_free(f->temp_path);
	g_free(f->path);
	g_free(f);
}
