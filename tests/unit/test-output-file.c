/*
 * The output file of sink.vm.threads (lib/writers/output-file.h): what is
 * checked when it is opened, what a failed rename keeps, and the temporary
 * file removed when SIGTERM or SIGINT kills the process. The cases about
 * other users' files need root (to chown a file to `nobody`) and are
 * skipped otherwise.
 */

#include <check.h>
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "writers/output-file.h"

static char *dir;

static void make_dir(void)
{
	dir = g_dir_make_tmp("vm-output-file-XXXXXX", NULL);
	ck_assert_ptr_nonnull(dir);
}

static void remove_tree(const char *path)
{
	char *quoted = g_shell_quote(path);
	char *command = g_strdup_printf("rm -rf %s", quoted);

	ck_assert_int_eq(system(command), 0);
	g_free(command);
	g_free(quoted);
}

static void drop_dir(void)
{
	remove_tree(dir);
	g_free(dir);
}

static void write_file(const char *path, const char *text)
{
	ck_assert(g_file_set_contents(path, text, -1, NULL));
}

static char *read_file(const char *path)
{
	char *text = NULL;

	ck_assert_msg(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
	return text;
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The names in `path`, sorted, joined by spaces. */
static char *listing(const char *path)
{
	GDir *d = g_dir_open(path, 0, NULL);
	GPtrArray *names = g_ptr_array_new();
	const char *name;
	char *text;

	while ((name = g_dir_read_name(d)))
		g_ptr_array_add(names, (char *) name);
	g_ptr_array_sort(names, compare_names);
	g_ptr_array_add(names, NULL);
	text = g_strjoinv(" ", (char **) names->pdata);
	g_ptr_array_free(names, TRUE);
	g_dir_close(d);
	return text;
}

static void assert_listing(const char *path, const char *expected)
{
	char *got = listing(path);

	ck_assert_str_eq(got, expected);
	g_free(got);
}

/* The one temporary file of `name` in `dir`, or NULL. */
static char *temp_of(const char *name)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	char *prefix = g_strconcat(name, ".", NULL);
	const char *entry;
	char *found = NULL;

	while ((entry = g_dir_read_name(d))) {
		if (g_str_has_prefix(entry, prefix))
			found = g_build_filename(dir, entry, NULL);
	}
	g_dir_close(d);
	g_free(prefix);
	return found;
}

START_TEST(failed_rename_keeps_the_output)
{
	char *path, *temp, *blocker, *error = NULL, *text;
	struct vm_output_file *f;

	make_dir();
	path = g_build_filename(dir, "out.csv", NULL);
	f = vm_output_file_open(path, &error);
	ck_assert_ptr_nonnull(f);
	fputs("the results\n", vm_output_file_stream(f));
	/* The name becomes a non-empty directory: rename(2) fails, root or not. */
	ck_assert_int_eq(g_mkdir(path, 0755), 0);
	blocker = g_build_filename(path, "x", NULL);
	write_file(blocker, "");
	temp = temp_of("out.csv");
	ck_assert_ptr_nonnull(temp);
	ck_assert(!vm_output_file_commit(f, &error));
	ck_assert_msg(strstr(error, temp), "the error does not name %s: %s", temp, error);
	vm_output_file_close(f);
	text = read_file(temp);
	ck_assert_str_eq(text, "the results\n");
	g_free(text);
	g_free(error);
	g_free(temp);
	g_free(blocker);
	g_free(path);
	drop_dir();
}
END_TEST

START_TEST(dangling_link_is_an_error)
{
	char *path, *error = NULL;

	make_dir();
	path = g_build_filename(dir, "link.csv", NULL);
	ck_assert_int_eq(symlink("nowhere/out.csv", path), 0);
	ck_assert_ptr_null(vm_output_file_open(path, &error));
	ck_assert_msg(strstr(error, "nowhere/out.csv") && strstr(error, "does not exist"),
		"%s", error);
	assert_listing(dir, "link.csv");
	g_free(error);
	g_free(path);
	drop_dir();
}
END_TEST

/* A file of `nobody` at `path`; false when this test cannot make one. */
static bool nobodys_file(const char *path, mode_t mode, struct passwd **who)
{
	*who = getpwnam("nobody");
	if (geteuid() != 0 || !*who)
		return false;
	write_file(path, "nobody's\n");
	ck_assert_int_eq(chown(path, (*who)->pw_uid, (*who)->pw_gid), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
	return true;
}

START_TEST(read_only_file_of_another_user_is_kept)
{
	char *path, *error = NULL, *text;
	struct passwd *nobody;
	struct stat st;

	make_dir();
	path = g_build_filename(dir, "theirs.csv", NULL);
	if (!nobodys_file(path, 0444, &nobody)) {
		fprintf(stderr, "skipped: needs root and user nobody\n");
		drop_dir();
		return;
	}
	ck_assert_ptr_null(vm_output_file_open(path, &error));
	ck_assert_msg(strstr(error, "not writable"), "%s", error);
	text = read_file(path);
	ck_assert_str_eq(text, "nobody's\n");
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_uid, nobody->pw_uid);
	assert_listing(dir, "theirs.csv");
	g_free(text);
	g_free(error);
	g_free(path);
	drop_dir();
}
END_TEST

START_TEST(file_of_another_user_in_a_sticky_directory_is_kept)
{
	char *sticky, *path, *error = NULL;
	struct passwd *nobody;

	make_dir();
	sticky = g_build_filename(dir, "tmp", NULL);
	ck_assert_int_eq(g_mkdir(sticky, 0755), 0);
	ck_assert_int_eq(chmod(sticky, 01777), 0);
	path = g_build_filename(sticky, "theirs.csv", NULL);
	if (!nobodys_file(path, 0666, &nobody)) {
		fprintf(stderr, "skipped: needs root and user nobody\n");
		drop_dir();
		return;
	}
	ck_assert_ptr_null(vm_output_file_open(path, &error));
	ck_assert_msg(strstr(error, "sticky") && strstr(error, sticky), "%s", error);
	assert_listing(sticky, "theirs.csv");
	g_free(error);
	g_free(path);
	g_free(sticky);
	drop_dir();
}
END_TEST

START_TEST(writable_file_of_another_user_keeps_its_owner)
{
	char *path, *error = NULL, *text;
	struct passwd *nobody;
	struct vm_output_file *f;
	struct stat st;

	make_dir();
	path = g_build_filename(dir, "shared.csv", NULL);
	if (!nobodys_file(path, 0666, &nobody)) {
		fprintf(stderr, "skipped: needs root and user nobody\n");
		drop_dir();
		return;
	}
	f = vm_output_file_open(path, &error);
	ck_assert_msg(f != NULL, "%s", error);
	fputs("new\n", vm_output_file_stream(f));
	ck_assert(vm_output_file_commit(f, &error));
	vm_output_file_close(f);
	text = read_file(path);
	ck_assert_str_eq(text, "new\n");
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_uid, nobody->pw_uid);
	ck_assert_int_eq(st.st_gid, nobody->pw_gid);
	ck_assert_int_eq(st.st_mode & 07777, 0666);
	g_free(text);
	g_free(path);
	drop_dir();
}
END_TEST

static volatile sig_atomic_t handled;

static void on_signal(int sig)
{
	handled = sig;
}

/*
 * In a child: opens out.csv in `dir`, writes, then gets `sig`; returns the
 * child's wait status. With `own_handler`, the child handles `sig` itself
 * first (as babeltrace2's CLI does SIGINT) and then exits 0 after closing.
 */
static int child_signalled(int sig, bool own_handler)
{
	pid_t pid;
	int status;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *path = g_build_filename(dir, "out.csv", NULL);
		char *error = NULL;
		struct vm_output_file *f;
		struct sigaction before, after;

		/*
		 * check's own handlers (inherited from its runner) would kill the
		 * whole test: a process of its own, with the default action.
		 */
		setpgid(0, 0);
		signal(sig, own_handler ? on_signal : SIG_DFL);
		sigaction(sig, NULL, &before);
		f = vm_output_file_open(path, &error);
		if (!f)
			_exit(10);
		fputs("partial\n", vm_output_file_stream(f));
		fflush(vm_output_file_stream(f));
		raise(sig);
		if (!own_handler)
			_exit(11);  /* the signal should have killed it */
		/* Its handler ran, and the file is still there for it. */
		if (handled != sig || !temp_of("out.csv"))
			_exit(12);
		vm_output_file_close(f);
		/* The previous action is back once no file is pending. */
		sigaction(sig, NULL, &after);
		_exit(after.sa_handler == before.sa_handler ? 0 : 13);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

static void check_killed_by(int sig)
{
	int status;

	make_dir();
	status = child_signalled(sig, false);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sig,
		"status %d: not killed by signal %d", status, sig);
	assert_listing(dir, "");
	drop_dir();
}

START_TEST(sigterm_removes_the_temporary_file)
{
	check_killed_by(SIGTERM);
}
END_TEST

START_TEST(sigint_removes_the_temporary_file)
{
	check_killed_by(SIGINT);
}
END_TEST

START_TEST(a_handled_signal_is_left_to_the_program)
{
	int status;

	make_dir();
	status = child_signalled(SIGTERM, true);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	assert_listing(dir, "");
	drop_dir();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("output-file");
	TCase *tc = tcase_create("output-file");
	SRunner *runner;
	int failed;

	tcase_add_test(tc, failed_rename_keeps_the_output);
	tcase_add_test(tc, dangling_link_is_an_error);
	tcase_add_test(tc, read_only_file_of_another_user_is_kept);
	tcase_add_test(tc, file_of_another_user_in_a_sticky_directory_is_kept);
	tcase_add_test(tc, writable_file_of_another_user_keeps_its_owner);
	tcase_add_test(tc, sigterm_removes_the_temporary_file);
	tcase_add_test(tc, sigint_removes_the_temporary_file);
	tcase_add_test(tc, a_handled_signal_is_left_to_the_program);
	suite_add_tcase(s, tc);
	runner = srunner_create(s);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? 1 : 0;
}
