#include "containers.h"

/* Namespaces made after boot get inode numbers just above the initial
 * ones; any distinct numbers of a machine will do. */
#define FIRST_NS_INUM 4026532200u

/* lttng-modules writes sched_process_fork with the child's id in each
 * namespace level (ctf_sequence vtids, the machine's first, the innermost
 * last) and the namespaces' inodes: declared as the ported container
 * stubs declare it (stub-traces/README.md). */
const char *const wl_containers_fork_def[] = {
	"sched_process_fork parent_comm:string parent_tid:s32 parent_pid:s32 "
	"parent_ns_inum:u32 child_comm:string child_tid:s32 child_pid:s32 vtids:s32[] "
	"child_ns_inum:u32",
	NULL,
};

static wl_pidns *new_ns(wl_guest *guest, wl_pidns *parent)
{
	wl_pidns *ns = g_new0(wl_pidns, 1);

	ns->level = parent ? parent->level + 1 : 1;
	ns->parent = parent;
	ns->inum = FIRST_NS_INUM + 3 * guest->pidns->len;
	ns->next_vpid = 1;
	g_ptr_array_add(guest->pidns, ns);
	return ns;
}

/* THREAD enters NS: an id in NS and in each of its ancestors. */
static void join(wl_guest_thread *thread, wl_pidns *ns)
{
	thread->ns = ns;
	thread->vtids[0] = thread->tid;
	for (wl_pidns *n = ns; n; n = n->parent)
		thread->vtids[n->level] = n->next_vpid++;
}

/* The j-th thread of a container: the inits of its levels first, the others
 * in its innermost level and, every third one, in its outermost. */
static void place_in_container(wl_guest *guest, wl_pidns **chain, int depth, int j,
			       wl_guest_thread *thread)
{
	if (j < depth) {
		wl_pidns *ns = new_ns(guest, j ? chain[j - 1] : NULL);

		chain[j] = ns;
		join(thread, ns);
		ns->init = thread;
		thread->ppid = j ? chain[j - 1]->init->pid : 1;
		/* init's comm names the container: "ctrC" then "ctrC.L" */
		if (j == 0)
			g_snprintf(thread->comm, sizeof(thread->comm), "ctr%u",
				   guest->pidns->len);
		else
			g_snprintf(thread->comm, sizeof(thread->comm), "%s.%d",
				   chain[0]->init->comm, j + 1);
		return;
	}
	wl_pidns *ns = (j - depth) % 3 == 2 ? chain[0] : chain[depth - 1];

	join(thread, ns);
	thread->ppid = ns->init->pid;
}

void wl_containers_setup(wl_sim *sim, wl_guest *guest)
{
	int n = sim->opt.containers, depth = sim->opt.container_depth;
	wl_pidns *chains[MAX_CONTAINERS][MAX_NS_DEPTH];
	int placed[MAX_CONTAINERS] = { 0 };

	guest->pidns = g_ptr_array_new_with_free_func(g_free);
	if (n <= 0)
		return;
	g_assert(n <= MAX_CONTAINERS);
	/* round-robin: containers 0..n-1, then one thread in none */
	for (guint k = 0; k < guest->threads->len; k++) {
		int c = (int)(k % (guint)(n + 1));

		if (c == n)
			continue;
		place_in_container(guest, chains[c], depth, placed[c]++,
				   g_ptr_array_index(guest->threads, k));
	}
}

void wl_containers_fork(const wl_guest_thread *parent, wl_guest_thread *child)
{
	child->vtids[0] = child->tid;
	if (parent->ns)
		join(child, parent->ns);
}

uint32_t wl_containers_inum(const wl_guest_thread *thread)
{
	return thread && thread->ns ? thread->ns->inum : INIT_PID_NS_INUM;
}

int wl_containers_vtid(const wl_guest_thread *thread, int level)
{
	return level ? thread->vtids[level] : thread->tid;
}

const wl_pidns *wl_containers_ns_at(const wl_guest_thread *thread, int level)
{
	const wl_pidns *ns = thread->ns;

	while (ns && ns->level > level)
		ns = ns->parent;
	return ns;
}

int wl_containers_vppid(const wl_guest *guest, const wl_guest_thread *thread, int level)
{
	if (level == 0)
		return thread->ppid;
	/* The parent's id at LEVEL when it is in that namespace; an init's
	 * parent is outside it: 0, as the kernel says. */
	for (guint i = 0; i < guest->threads->len; i++) {
		const wl_guest_thread *t = g_ptr_array_index(guest->threads, i);

		if (t->pid != thread->ppid)
			continue;
		if (t->ns && t->ns->level >= level &&
		    wl_containers_ns_at(t, level) == wl_containers_ns_at(thread, level))
			return t->vtids[level];
		return 0;
	}
	return 0;
}

void wl_containers_vtids(const wl_guest_thread *thread, char *buf, size_t size)
{
	int levels = thread->ns ? thread->ns->level : 0;
	size_t used = (size_t)g_snprintf(buf, size, "%d", thread->tid);

	for (int l = 1; l <= levels && used < size; l++)
		used += (size_t)g_snprintf(buf + used, size - used, ",%d", thread->vtids[l]);
}

static void container_name(const wl_pidns *ns, char *buf, size_t size)
{
	if (ns->init_shown)
		g_strlcpy(buf, ns->init->comm, size);
	else
		g_snprintf(buf, size, "%u", ns->inum);
}

void wl_containers_body(wl_sim *sim, FILE *file)
{
	for (guint g = 0; g < sim->guests->len; g++) {
		const wl_guest *guest = g_ptr_array_index(sim->guests, g);

		for (guint i = 0; i < guest->threads->len; i++) {
			const wl_guest_thread *t = g_ptr_array_index(guest->threads, i);
			char name[COMM_SIZE];

			if (!t->ns) {
				fprintf(file, "%s,%d,,,,0,%d\n", guest->name, t->tid, t->ns_shown);
				continue;
			}
			container_name(t->ns, name, sizeof(name));
			fprintf(file, "%s,%d,%s,%u,%d,%d,%d\n", guest->name, t->tid, name,
				t->ns->inum, t->vtids[t->ns->level], t->ns->level, t->ns_shown);
		}
	}
}
