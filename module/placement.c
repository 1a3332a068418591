// SPDX-License-Identifier: GPL-2.0
/*
 * numacore: where a task belongs, and the load balancer's view of it.
 *
 * Once per scan sequence a task's fault vector is halved and the task is
 * classified: shared when its shared faults are at least a quarter of its
 * private ones.  With the settle feature the class changes only after
 * settle_count sequences on one node (NUMA_SETTLE).  The faults of all
 * threads of the process are summed at the same time, so that related
 * tasks agree on one node.
 *
 * A task's target node is where the memory it works on is: the process's
 * node for a shared task (shared tasks gather where their common memory
 * is), its own preferred node otherwise (private tasks spread to their
 * own memory).  A preferred node changes only when another node has
 * clearly more faults, so that a task does not flip between nodes with
 * similar evidence.
 *
 * The load balancer sees a move towards the target node (or towards more
 * of the task's faults) as improving locality, a move off the target node
 * as degrading it: the task is then cache hot, not pinned, and the
 * kernel still moves it when balancing keeps failing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/topology.h>

#include "numacore.h"
#include "numacore_trace.h"

/*
 * Pages of faults with a recorded previous CPU a sequence needs before
 * the task is classified: one or two samples (a thread that changed CPU
 * once) must not set a class that NUMA_SETTLE then keeps.
 */
#define NUMACORE_CLASS_MIN_PAGES	32
/* A new preferred node needs 1/NUMACORE_PREFERRED_MARGIN more faults. */
#define NUMACORE_PREFERRED_MARGIN	4
/* Threads whose faults are summed into the process's (a sample beyond). */
#define NUMACORE_GROUP_MAX_THREADS	64

/**
 * numacore_uses_group() - is @nt placed by its process's faults?
 * @nt: a task's state
 *
 * Return: true for a shared task whose process has a node.
 */
bool numacore_uses_group(const struct numacore_task *nt)
{
	return READ_ONCE(nt->shared) == 1 &&
	       READ_ONCE(nt->group_node) != NUMA_NO_NODE;
}

/**
 * numacore_class_faults() - the faults that place @nt, on @node
 * @nt: a task's state
 * @node: a node
 *
 * Return: the process's faults on @node for a shared task, the task's own
 * otherwise.
 */
unsigned long numacore_class_faults(struct numacore_task *nt, int node)
{
	if (numacore_uses_group(nt))
		return READ_ONCE(*numacore_group_faults(nt, node));
	return numacore_node_faults(nt, node);
}

/**
 * numacore_target_node() - the node @nt's task should run on
 * @nt: a task's state
 *
 * Return: the process's node for a shared task, its own preferred node
 * otherwise; NUMA_NO_NODE without evidence.
 */
int numacore_target_node(const struct numacore_task *nt)
{
	if (numacore_uses_group(nt))
		return READ_ONCE(nt->group_node);
	return READ_ONCE(nt->preferred_node);
}

/*
 * The node with most faults in @faults(@nt, node), unless @old has nearly
 * as many: a new node needs 1/NUMACORE_PREFERRED_MARGIN more.
 */
static int numacore_pick_node(struct numacore_task *nt, int old,
			      unsigned long (*faults)(struct numacore_task *, int))
{
	unsigned long f, max_faults = 0;
	int node, max_node = NUMA_NO_NODE;

	for (node = 0; node < nr_node_ids; node++) {
		f = faults(nt, node);
		if (f > max_faults) {
			max_faults = f;
			max_node = node;
		}
	}
	if (old == NUMA_NO_NODE || max_node == NUMA_NO_NODE)
		return max_node;
	f = faults(nt, old);
	if (max_faults <= f + f / NUMACORE_PREFERRED_MARGIN)
		return old;
	return max_node;
}

static unsigned long numacore_own_faults(struct numacore_task *nt, int node)
{
	return numacore_node_faults(nt, node);
}

static unsigned long numacore_group_node_faults(struct numacore_task *nt,
						int node)
{
	return *numacore_group_faults(nt, node);
}

/**
 * numacore_preferred_update() - choose @p's preferred node from its faults
 * @p: current
 * @nt: its state
 */
void numacore_preferred_update(struct task_struct *p, struct numacore_task *nt)
{
	int node = numacore_pick_node(nt, nt->preferred_node,
				      numacore_own_faults);

	if (node != NUMA_NO_NODE)
		WRITE_ONCE(nt->preferred_node, node);
}

/* Sum the faults of @p's threads (up to NUMACORE_GROUP_MAX_THREADS). */
static void numacore_group_update(struct task_struct *p,
				  struct numacore_task *nt)
{
	struct numacore_task *tnt;
	struct task_struct *t;
	int node, nr = 0;

	for (node = 0; node < nr_node_ids; node++)
		*numacore_group_faults(nt, node) = 0;

	rcu_read_lock();
	for_each_thread(p, t) {
		tnt = numacore_task(t);
		if (!tnt)
			continue;
		for (node = 0; node < nr_node_ids; node++)
			*numacore_group_faults(nt, node) +=
				numacore_node_faults(tnt, node);
		if (++nr >= NUMACORE_GROUP_MAX_THREADS)
			break;
	}
	rcu_read_unlock();

	node = numacore_pick_node(nt, nt->group_node, numacore_group_node_faults);
	if (node != NUMA_NO_NODE)
		WRITE_ONCE(nt->group_node, node);
}

/* Halve the fault vector; sum it per type into @total. */
static void numacore_decay_faults(struct numacore_task *nt,
				  unsigned long total[NUMACORE_FAULT_TYPES])
{
	int node, type;

	for (node = 0; node < nr_node_ids; node++) {
		for (type = 0; type < NUMACORE_FAULT_TYPES; type++) {
			total[type] += *numacore_faults(nt, node, type);
			*numacore_faults(nt, node, type) /= 2;
		}
	}
}

static void numacore_classify(struct numacore_task *nt,
			      const unsigned long total[NUMACORE_FAULT_TYPES])
{
	int shared;

	if (!numacore_settled(nt))
		return;
	/* Only faults with a previous CPU say anything about sharing. */
	if (total[NUMACORE_SHARED] + total[NUMACORE_PRIVATE] <
	    NUMACORE_CLASS_MIN_PAGES)
		return;
	shared = total[NUMACORE_SHARED] >= total[NUMACORE_PRIVATE] / 4;
	if (shared != nt->shared) {
		trace_numacore_class(current, nt->shared, shared);
		WRITE_ONCE(nt->shared, shared);
		nt->migrate_seq = 0;
	}
}

/**
 * numacore_placement_update() - per scan sequence update of @p's state
 * @p: current
 * @nt: its state
 */
void numacore_placement_update(struct task_struct *p, struct numacore_task *nt)
{
	int seq = READ_ONCE(p->mm->numa_scan_seq);
	unsigned long total[NUMACORE_FAULT_TYPES] = { 0 };

	if (nt->scan_seq == seq)
		return;
	nt->scan_seq = seq;

	numacore_preferred_update(p, nt);
	numacore_group_update(p, nt);
	numacore_decay_faults(nt, total);
	nt->migrate_seq++;
	numacore_classify(nt, total);
}

static enum numa_policy_lb_verdict
numacore_lb_verdict(struct numacore_task *nt,
		    const struct numa_policy_lb_ctx *ctx)
{
	unsigned long src = numacore_class_faults(nt, ctx->src_node);
	unsigned long dst = numacore_class_faults(nt, ctx->dst_node);
	int target = numacore_target_node(nt);

	if (target == ctx->dst_node ||
	    (READ_ONCE(numacore_feat_faults_up) && dst > src))
		return NUMA_POLICY_LB_IMPROVES;
	if (target != ctx->src_node)
		return NUMA_POLICY_LB_NEUTRAL;
	/* Leaving the target for the next-best node. */
	if (READ_ONCE(numacore_feat_faults_down) && dst && dst <= src &&
	    ctx->nr_balance_failed > ctx->cache_nice_tries)
		return NUMA_POLICY_LB_NEUTRAL;
	return NUMA_POLICY_LB_DEGRADES;
}

/**
 * numacore_can_migrate() - &numa_policy_ops.can_migrate
 * @p: the candidate task, queued on @ctx->src_cpu
 * @ctx: the balancing state; the two CPUs are on different nodes
 *
 * Runqueue locks held: must not sleep.
 *
 * Return: the verdict; neutral for moron and for tasks without faults.
 */
enum numa_policy_lb_verdict
numacore_can_migrate(struct task_struct *p, const struct numa_policy_lb_ctx *ctx)
{
	struct numacore_task *nt = numacore_task(p);
	enum numa_policy_lb_verdict verdict;

	if (numacore_is_moron() || !nt)
		return NUMA_POLICY_LB_NEUTRAL;

	verdict = numacore_lb_verdict(nt, ctx);
	if (verdict == NUMA_POLICY_LB_IMPROVES)
		numacore_stat_add(NUMACORE_STAT_LB_IMPROVES, 1);
	else if (verdict == NUMA_POLICY_LB_DEGRADES)
		numacore_stat_add(NUMACORE_STAT_LB_DEGRADES, 1);
	return verdict;
}
