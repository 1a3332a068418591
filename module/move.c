// SPDX-License-Identifier: GPL-2.0
/*
 * numacore: moving a task to the node that holds its memory.
 *
 * CPU follows memory or memory follows CPU: when the memory a task works
 * on is on one other node (that node holds NUMACORE_MOVE_RATIO times the
 * faults of the task's own node, and at least NUMACORE_MOVE_MIN_PAGES),
 * moving the task is one migration where following it would be one per
 * page.  The task is then moved there, from its own context, and its
 * faults leave the pages in place meanwhile.  Memory follows the CPU
 * instead when the task may not run there (its CPU mask), and while the
 * task backs off after failed or undone moves (from the third in a row:
 * until then a swap partner may still learn that it wants to trade; from
 * the second when every task on the target node is there for good, since
 * one look while tasks are still moving in and out can be wrong; from
 * the first when those tasks are the task's own siblings, working on
 * their own memory there).
 *
 * A move never queues the task behind others: it goes to an idle CPU of
 * the target node, while that node has fewer tasks than CPUs (the load
 * balancer tolerates the small imbalance this may leave between nodes;
 * a move it undoes makes the task back off).  Otherwise it is swapped
 * with a task running on the target node that wants the source node
 * (AutoNUMA's exchange rule: both gain), or that is not on its own
 * target and loses nothing by the swap (so that three or more processes
 * placed in a cycle, each on the next one's node, sort themselves out).
 * A task on its target is never swapped away, so each swap leaves one
 * more task on its target and swaps cannot cycle; two tasks that both
 * want one node never trade places.
 *
 * One exception makes split processes whole: two processes whose memory
 * is on one node, each with a thread there and one elsewhere, have every
 * task on that node on its target, and no swap above can join them.  The
 * task then trades places with a thread of another process when both
 * join more of their own running siblings than they leave ("regrouped").
 * The number of sibling pairs sharing a node grows with each such swap,
 * so these cannot cycle either; the process left elsewhere then finds
 * its target taken and its memory follows it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/sched/task.h>
#include <linux/topology.h>

#include "numacore.h"
#include "numacore_trace.h"

/* Faults (pages) on the target node before a task follows its memory. */
#define NUMACORE_MOVE_MIN_PAGES		32
/* The target node holds this many times the faults of the task's node. */
#define NUMACORE_MOVE_RATIO		2
/* Back-off after a failed or undone move: doubles from min up to max. */
#define NUMACORE_PLACE_BACKOFF_MIN_MS	500
#define NUMACORE_PLACE_BACKOFF_MAX_MS	16000
/* After a move, the task stays this long before the next one. */
#define NUMACORE_PLACE_INTERVAL_MS	1000

/* Does @node hold the memory @nt works on, rather than @cur? */
static bool numacore_node_dominates(struct numacore_task *nt, int node,
				    int cur)
{
	unsigned long f = numacore_class_faults(nt, node);

	return f >= NUMACORE_MOVE_MIN_PAGES &&
	       f >= NUMACORE_MOVE_RATIO * numacore_class_faults(nt, cur);
}

/*
 * Has @nt seen enough of its memory (NUMACORE_MOVE_MIN_FAULTS hinting
 * faults, NUMACORE_MOVE_MIN_PAGES pages) to tell where it is?
 */
static bool numacore_knows_memory(struct numacore_task *nt)
{
	unsigned long sum = 0;
	int node;

	if (READ_ONCE(nt->nr_faults) < NUMACORE_MOVE_MIN_FAULTS)
		return false;
	for (node = 0; node < nr_node_ids; node++)
		sum += numacore_class_faults(nt, node);
	return sum >= NUMACORE_MOVE_MIN_PAGES;
}

/**
 * numacore_task_follows_memory() - will @p move to @node, its memory?
 * @p: current, faulting on a page of @node; page table lock held
 * @nt: its state
 * @node: the page's node, not @p's
 *
 * A task that may run on @node and has not yet taken
 * NUMACORE_MOVE_MIN_FAULTS faults (NUMACORE_MOVE_MIN_PAGES pages) leaves
 * its pages in place too: a page migrated now would count for the task's
 * node and hide where its memory is.
 *
 * Return: true if the page should stay where it is, because @p is to move
 * to it (numacore_place_task()) or may still do so.
 */
bool numacore_task_follows_memory(struct task_struct *p,
				  struct numacore_task *nt, int node)
{
	if (numacore_is_moron() || !READ_ONCE(numacore_feat_task_follows))
		return false;
	if (numacore_place_gave_up(nt))
		return false;
	if (!cpumask_intersects(cpumask_of_node(node), p->cpus_ptr)) {
		numacore_stat_add(NUMACORE_STAT_PLACE_AFFINITY, 1);
		return false;
	}
	if (!numacore_knows_memory(nt))
		return true;
	return node == numacore_target_node(nt) &&
	       numacore_node_dominates(nt, node, task_node(p));
}

/* Back off; @hopeless: no wait can help, let the memory follow now. */
static void numacore_place_backoff(struct numacore_task *nt, bool hopeless)
{
	unsigned int ms = nt->place_backoff_ms * 2;

	if (hopeless)
		ms = max_t(unsigned int, ms, NUMACORE_PLACE_PATIENCE_MS);
	nt->place_backoff_ms = clamp_t(unsigned int, ms,
				       NUMACORE_PLACE_BACKOFF_MIN_MS,
				       NUMACORE_PLACE_BACKOFF_MAX_MS);
	WRITE_ONCE(nt->place_next,
		   jiffies + msecs_to_jiffies(nt->place_backoff_ms));
}

/* A move the balancer took back: back off before trying again. */
static void numacore_check_undone(struct numacore_task *nt, int node)
{
	if (nt->placed_node == NUMA_NO_NODE || nt->placed_node == node)
		return;
	nt->placed_node = NUMA_NO_NODE;
	numacore_stat_add(NUMACORE_STAT_MOVES_UNDONE, 1);
	numacore_place_backoff(nt, false);
}

/**
 * struct numacore_node_load - a node's load as the balancer counts it
 * @nr_running: tasks queued on its online CPUs
 * @nr_cpus: its online CPUs
 * @idle_cpu: one of them with nothing queued that the task may use, or -1
 */
struct numacore_node_load {
	unsigned int nr_running;
	unsigned int nr_cpus;
	int idle_cpu;
};

static void numacore_node_load(int node, const struct cpumask *allowed,
			       struct numacore_node_load *load)
{
	unsigned int nr;
	int cpu;

	load->nr_running = 0;
	load->nr_cpus = 0;
	load->idle_cpu = -1;
	for_each_cpu_and(cpu, cpumask_of_node(node), cpu_online_mask) {
		nr = numa_policy_cpu_nr_running(cpu);
		load->nr_running += nr;
		load->nr_cpus++;
		if (!nr && load->idle_cpu < 0 && cpumask_test_cpu(cpu, allowed))
			load->idle_cpu = cpu;
	}
}

/*
 * Move @p to an idle CPU of @dst that it may use, when @dst has fewer
 * tasks than CPUs: the task adds no queueing there.
 *
 * Return: 0 if moved, -ENOSPC without spare capacity, or migrate_task_to()'s
 * error.
 */
static int numacore_move_to_spare(struct task_struct *p, int dst)
{
	struct numacore_node_load d;

	numacore_node_load(dst, p->cpus_ptr, &d);
	if (d.idle_cpu < 0 || d.nr_running >= d.nr_cpus)
		return -ENOSPC;
	return migrate_task_to(p, d.idle_cpu);
}

/*
 * May @tnt, a task that took too few faults to know its own memory, go
 * from @dst to @src by its process's evidence?  When its process's
 * memory is on @src (by NUMACORE_MOVE_RATIO), or when its process's node
 * is known, is not @dst, and the process has no more faults on @dst than
 * on @src (it loses nothing); never with more of the task's own faults on
 * @dst than on @src.  A thread that shares its process's buffer with a
 * faster sibling may see few faults of its own.
 */
static bool numacore_group_accepts(struct numacore_task *tnt, int src,
				   int dst)
{
	unsigned long fs = READ_ONCE(*numacore_group_faults(tnt, src));
	unsigned long fd = READ_ONCE(*numacore_group_faults(tnt, dst));
	int gnode = READ_ONCE(tnt->group_node);

	if (numacore_node_faults(tnt, dst) > numacore_node_faults(tnt, src))
		return false;
	if (gnode == src)
		return fs >= NUMACORE_MOVE_MIN_PAGES &&
		       fs >= NUMACORE_MOVE_RATIO * fd;
	return gnode != NUMA_NO_NODE && gnode != dst && fd <= fs;
}

/*
 * May @t, running on @dst, take @p's place on @src (at @src_cpu)?  When
 * @src is its target, or when @dst is not its target and it has no more
 * of its memory on @dst than on @src: then the swap costs it nothing.  A
 * task that has not seen enough of its memory goes by its process's.
 * A task that runs on its target never qualifies, so each swap leaves one
 * more task on its target for good and swaps cannot cycle.
 */
static bool numacore_swap_partner(struct task_struct *t, int src, int dst,
				  int src_cpu)
{
	struct numacore_task *tnt;
	int target;
	bool ok;

	if (!cpumask_test_cpu(src_cpu, t->cpus_ptr))
		return false;
	rcu_read_lock();
	tnt = numacore_task(t);
	if (!tnt) {
		rcu_read_unlock();
		return false;
	}
	target = numacore_target_node(tnt);
	if (!numacore_knows_memory(tnt))
		ok = numacore_group_accepts(tnt, src, dst);
	else if (target == src)
		ok = numacore_node_dominates(tnt, src, dst);
	else
		ok = target != dst &&
		     numacore_class_faults(tnt, dst) <=
		     numacore_class_faults(tnt, src);
	rcu_read_unlock();
	return ok;
}

/*
 * Is @t, running on @dst, there for good: @dst is its target and holds
 * its memory?  Such a task will never trade places.
 */
static bool numacore_anchored(struct task_struct *t, int dst)
{
	struct numacore_task *tnt;
	bool anchored;

	rcu_read_lock();
	tnt = numacore_task(t);
	anchored = tnt && numacore_target_node(tnt) == dst &&
		   numacore_class_faults(tnt, dst) >= NUMACORE_MOVE_MIN_PAGES;
	rcu_read_unlock();
	return anchored;
}

/*
 * Does every CPU of @node that @p may use run a thread of @p's process
 * that is there for good?  Then @p can neither move nor swap there: its
 * siblings work on their own memory on @node, and any of them would
 * only trade its place for @p's problem.
 */
static bool numacore_node_held_by_siblings(struct task_struct *p, int node)
{
	struct task_struct *t;
	bool held = false;
	int cpu;

	for_each_cpu_and(cpu, cpumask_of_node(node), p->cpus_ptr) {
		t = numa_policy_cpu_curr_get(cpu);
		if (!t)
			return false;
		held = t != p && t->mm == p->mm && numacore_anchored(t, node);
		put_task_struct(t);
		if (!held)
			return false;
	}
	return held;
}

/*
 * Threads of @t's process, other than @t, running on @node.  Sleeping
 * threads (a process's idle main thread) do not count: only where the
 * working threads run decides whether it is split.  A running thread
 * counts even before it knows its memory: a sibling on the memory's node
 * may take every hinting fault on their shared buffer first.
 */
static unsigned int numacore_siblings_on(struct task_struct *t, int node)
{
	unsigned int nr = 0;
	struct task_struct *s;
	int cpu;

	for_each_cpu_and(cpu, cpumask_of_node(node), cpu_online_mask) {
		s = numa_policy_cpu_curr_get(cpu);
		if (!s)
			continue;
		if (s != t && s->mm == t->mm)
			nr++;
		put_task_struct(s);
	}
	return nr;
}

/**
 * numacore_process_leans_to() - does @p's process run more on @node?
 * @p: a task running on @node
 * @node: its node
 * @other: another node
 *
 * Any context.
 *
 * Return: true if @p's process runs more threads (@p included) on @node
 * than on @other.
 */
bool numacore_process_leans_to(struct task_struct *p, int node, int other)
{
	return numacore_siblings_on(p, node) + 1 >
	       numacore_siblings_on(p, other);
}

/* Does @t, moving from @from to @to, join more running siblings than it leaves? */
static bool numacore_rejoins(struct task_struct *t, int from, int to)
{
	return numacore_siblings_on(t, to) > numacore_siblings_on(t, from);
}

/*
 * May @t (on @dst) take the place of @p (on @src, at @src_cpu) although
 * @t may be on its target: it belongs to another process and rejoins its
 * siblings by it.
 */
static bool numacore_regroup_partner(struct task_struct *p,
				     struct task_struct *t, int src, int dst,
				     int src_cpu)
{
	return t->mm != p->mm && cpumask_test_cpu(src_cpu, t->cpus_ptr) &&
	       numacore_rejoins(t, dst, src);
}

/* Swap @p with a task on @dst so that both processes are less split. */
static bool numacore_regroup(struct task_struct *p, int src, int dst)
{
	int cpu, src_cpu = task_cpu(p);
	struct task_struct *t;
	bool done = false;

	if (!numacore_rejoins(p, src, dst))
		return false;
	for_each_cpu_and(cpu, cpumask_of_node(dst), p->cpus_ptr) {
		t = numa_policy_cpu_curr_get(cpu);
		if (!t)
			continue;
		done = numacore_regroup_partner(p, t, src, dst, src_cpu) &&
		       !migrate_swap(p, t, cpu, src_cpu);
		put_task_struct(t);
		if (done)
			break;
	}
	return done;
}

/*
 * Swap @p with a task running on @dst that wants @src, or else with one
 * that regroups both processes (numacore_regroup()).
 *
 * Return: NUMACORE_PLACE_SWAPPED or NUMACORE_PLACE_REGROUPED if swapped;
 * -EBUSY if every CPU of @dst that @p may use runs an anchored task
 * (waiting is pointless), -ESRCH if some might still trade or free their
 * CPU later (or the swap raced with them moving), -ENOSPC if no task runs
 * there.
 */
static int numacore_swap(struct task_struct *p, int src, int dst)
{
	int cpu, src_cpu = task_cpu(p);
	bool seen = false, all_anchored = true;
	struct task_struct *t;

	for_each_cpu_and(cpu, cpumask_of_node(dst), p->cpus_ptr) {
		t = numa_policy_cpu_curr_get(cpu);
		if (!t) {
			/* Idle, or not a fair task: may be free soon. */
			all_anchored = false;
			continue;
		}
		seen = true;
		if (t != p && numacore_swap_partner(t, src, dst, src_cpu) &&
		    !migrate_swap(p, t, cpu, src_cpu)) {
			put_task_struct(t);
			return NUMACORE_PLACE_SWAPPED;
		}
		if (!numacore_anchored(t, dst))
			all_anchored = false;
		put_task_struct(t);
	}
	if (!seen)
		return -ENOSPC;
	if (numacore_regroup(p, src, dst))
		return NUMACORE_PLACE_REGROUPED;
	return all_anchored ? -EBUSY : -ESRCH;
}

/* Count numacore_swap()'s @outcome. */
static void numacore_count_swap(int outcome)
{
	switch (outcome) {
	case NUMACORE_PLACE_REGROUPED:
		numacore_stat_add(NUMACORE_STAT_TASK_REGROUPS, 1);
		fallthrough;
	case NUMACORE_PLACE_SWAPPED:
		numacore_stat_add(NUMACORE_STAT_TASK_SWAPS, 1);
		break;
	case -ENOSPC:
		numacore_stat_add(NUMACORE_STAT_PLACE_NO_CAPACITY, 1);
		break;
	default:
		numacore_stat_add(NUMACORE_STAT_PLACE_NO_IMPROVEMENT, 1);
	}
}

/* Move or swap @p to @dst; count and trace the outcome. */
static int numacore_move(struct task_struct *p, int src, int dst)
{
	int ret, outcome;

	numacore_stat_add(NUMACORE_STAT_PLACE_ATTEMPTS, 1);
	if (!cpumask_intersects(cpumask_of_node(dst), p->cpus_ptr)) {
		numacore_stat_add(NUMACORE_STAT_PLACE_AFFINITY, 1);
		ret = -EPERM;
		outcome = ret;
	} else if (!numacore_move_to_spare(p, dst)) {
		numacore_stat_add(NUMACORE_STAT_TASK_MOVES, 1);
		ret = 0;
		outcome = NUMACORE_PLACE_MOVED;
	} else {
		outcome = numacore_swap(p, src, dst);
		ret = min(outcome, 0);
		numacore_count_swap(outcome);
	}
	trace_numacore_place(p, src, dst, outcome);
	return ret;
}

/**
 * numacore_place_check_held() - let @p's memory follow it, if it cannot move
 * @p: current, in fault_done after a fault that left a page on @node: may
 *	sleep
 * @nt: its state
 * @node: the page's node, not @p's
 *
 * A task that does not know its memory yet leaves its pages in place.
 * When its own siblings hold every CPU of @node for good, no evidence
 * could make it move there: it gives up at once, so that the rest of
 * this pass's faults already migrate the pages to it.
 */
void numacore_place_check_held(struct task_struct *p, struct numacore_task *nt,
			       int node)
{
	if (numacore_is_moron() || !READ_ONCE(numacore_feat_task_follows) ||
	    numacore_knows_memory(nt) || numacore_place_gave_up(nt))
		return;
	if (!numacore_node_held_by_siblings(p, node))
		return;
	numacore_stat_add(NUMACORE_STAT_PLACE_ATTEMPTS, 1);
	numacore_stat_add(NUMACORE_STAT_PLACE_NO_IMPROVEMENT, 1);
	trace_numacore_place(p, task_node(p), node, -EBUSY);
	numacore_place_backoff(nt, true);
}

/**
 * numacore_place_task() - move @p to the node of its memory, if it fits
 * @p: current, in task_work or fault_done: may sleep
 * @nt: its state
 *
 * Called at each of the task's turns at the mm (numacore_scan()), and at
 * each fault the task left remote.
 */
void numacore_place_task(struct task_struct *p, struct numacore_task *nt)
{
	int src = task_node(p), dst, ret;

	if (numacore_is_moron() || !READ_ONCE(numacore_feat_task_follows))
		return;
	numacore_check_undone(nt, src);
	dst = numacore_target_node(nt);
	if (dst == NUMA_NO_NODE || dst == src ||
	    !numacore_node_dominates(nt, dst, src))
		return;
	if (time_before(jiffies, nt->place_next)) {
		numacore_stat_add(NUMACORE_STAT_PLACE_BACKOFF, 1);
		return;
	}
	ret = numacore_move(p, src, dst);
	if (ret) {
		numacore_place_backoff(nt, ret == -EPERM ||
				       (ret == -EBUSY && (nt->place_backoff_ms ||
				       numacore_node_held_by_siblings(p, dst))));
		return;
	}
	nt->placed_node = dst;
	nt->place_backoff_ms = 0;
	WRITE_ONCE(nt->place_next,
		   jiffies + msecs_to_jiffies(NUMACORE_PLACE_INTERVAL_MS));
}
