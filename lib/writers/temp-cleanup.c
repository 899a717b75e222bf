/* Temporary files removed on SIGTERM / SIGINT: see temp-cleanup.h. */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "writers/temp-cleanup.h"

#define SLOTS 8

static const int signals[] = { SIGTERM, SIGINT };
#define SIGNAL_COUNT (sizeof(signals) / sizeof(signals[0]))

/* A path is written whole before its slot is marked used. */
static char paths[SLOTS][PATH_MAX];
static volatile sig_atomic_t used[SLOTS];
static unsigned int registered;
static struct sigaction previous[SIGNAL_COUNT];

static int signal_index(int sig)
{
	unsigned int i;

	for (i = 0; i < SIGNAL_COUNT; i++) {
		if (signals[i] == sig) {
			return (int) i;
		}
	}
	return -1;
}

static void remove_all(void)
{
	unsigned int i;

	for (i = 0; i < SLOTS; i++) {
		if (used[i]) {
			(void) unlink(paths[i]);
		}
	}
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
	int index = signal_index(sig);
	const struct sigaction *old;
	int saved_errno = errno;

	if (index < 0) {
		return;
	}
	old = &previous[index];
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, info, context);
	} else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
	} else if (old->sa_handler == SIG_DFL) {
		/* The process dies: nothing else would remove them. */
		remove_all();
		(void) sigaction(sig, old, NULL);
		/* Blocked until this handler returns, then the default action. */
		(void) raise(sig);
	}
	errno = saved_errno;
}

static bool install(void)
{
	struct sigaction action;
	unsigned int i;

	memset(&action, 0, sizeof(action));
	action.sa_sigaction = on_signal;
	action.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&action.sa_mask);
	for (i = 0; i < SIGNAL_COUNT; i++) {
		if (sigaction(signals[i], &action, &previous[i]) != 0) {
			while (i-- > 0) {
				(void) sigaction(signals[i], &previous[i], NULL);
			}
			return false;
		}
	}
	return true;
}

static void uninstall(void)
{
	unsigned int i;

	for (i = 0; i < SIGNAL_COUNT; i++) {
		(void) sigaction(signals[i], &previous[i], NULL);
	}
}

int vm_temp_cleanup_add(const char *path)
{
	size_t length = strlen(path);
	int slot;

	if (length >= PATH_MAX) {
		return -1;
	}
	for (slot = 0; slot < SLOTS && used[slot]; slot++) {
		;
	}
	if (slot == SLOTS) {
		return -1;
	}
	if (registered == 0 && !install()) {
		return -1;
	}
	memcpy(paths[slot], path, length + 1);
	used[slot] = 1;
	registered++;
	return slot;
}

void vm_temp_cleanup_remove(int slot)
{
	if (slot < 0 || slot >= SLOTS || !used[slot]) {
		return;
	}
	used[slot] = 0;
	if (--registered == 0) {
		uninstall();
	}
}
