// SPDX-License-Identifier: GPL-2.0
/*
 * numacore: task placement (seed 006).
 *
 * Once per scan sequence a task's fault vector is halved; the node with
 * most faults becomes its preferred node, and the task is classified
 * shared when its shared faults are at least a quarter of its private
 * ones.  With the settle feature the class changes only after
 * settle_count sequences on one node (NUMA_SETTLE).
 *
 * numacore (not moron) also places tasks: a settled task away from its
 * preferred node is moved there, and the load balancer is ordered so
 * that moves towards a task's faults are taken (faults_up) and moves off
 * its preferred node are refused until balancing keeps failing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/sched.h>
#include <linux/topology.h>

#include "numacore.h"

/*
 * Pages of faults with a recorded previous CPU a sequence needs before
 * the task is classified: one or two samples (a thread that changed CPU
 * once) must not set a class that NUMA_SETTLE then keeps.
 */
#define NUMACORE_CLASS_MIN_PAGES	32

static bool numacore_settled(const struct numacore_task *nt)
{
	return !READ_ONCE(numacore_feat_settle) ||
	       nt->migrate_seq >= READ_ONCE(numacore_settle_count);
}

/* Decay the fault vector; return the node with most faults. */
static int numacore_decay_faults(struct numacore_task *nt,
				 unsigned long total[NUMACORE_FAULT_TYPES])
{
	unsigned long faults, max_faults = 0;
	int node, type, max_node = NUMA_NO_NODE;

	for (node = 0; node < nr_node_ids; node++) {
		faults = numacore_node_faults(nt, node);
		for (type = 0; type < NUMACORE_FAULT_TYPES; type++) {
			total[type] += *numacore_faults(nt, node, type);
			*numacore_faults(nt, node, type) /= 2;
		}
		if (faults > max_faults) {
			max_faults = faults;
			max_node = node;
		}
	}
	return max_node;
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
	int max_node, shared;

	if (nt->scan_seq == seq)
		return;
	nt->scan_seq = seq;

	max_node = numacore_decay_faults(nt, total);
	if (max_node != NUMA_NO_NODE)
		WRITE_ONCE(nt->preferred_node, max_node);

	nt->migrate_seq++;
	if (!numacore_settled(nt))
		return;

	/* Only faults with a previous CPU say anything about sharing. */
	if (total[NUMACORE_SHARED] + total[NUMACORE_PRIVATE] <
	    NUMACORE_CLASS_MIN_PAGES)
		return;
	shared = total[NUMACORE_SHARED] >= total[NUMACORE_PRIVATE] / 4;
	if (shared != nt->shared) {
		WRITE_ONCE(nt->shared, shared);
		nt->migrate_seq = 0;
	}
}

/**
 * numacore_place_task() - move @p to its preferred node once settled
 * @p: current, in task_work: may sleep
 * @nt: its state
 */
void numacore_place_task(struct task_struct *p, struct numacore_task *nt)
{
	int node = READ_ONCE(nt->preferred_node);
	int cpu;

	if (numacore_is_moron() || node == NUMA_NO_NODE ||
	    node == task_node(p) || !numacore_settled(nt))
		return;

	cpu = cpumask_any_and(cpumask_of_node(node), p->cpus_ptr);
	if (cpu >= nr_cpu_ids)
		return;
	if (!migrate_task_to(p, cpu))
		numacore_stat_add(NUMACORE_STAT_TASK_MOVES, 1);
}

static enum numa_policy_lb_verdict
numacore_lb_verdict(const struct numacore_task *nt,
		    const struct numa_policy_lb_ctx *ctx)
{
	unsigned long src = numacore_node_faults(nt, ctx->src_node);
	unsigned long dst = numacore_node_faults(nt, ctx->dst_node);

	if (READ_ONCE(numacore_feat_faults_up) && dst > src)
		return NUMA_POLICY_LB_ALLOW;
	if (READ_ONCE(nt->preferred_node) != ctx->src_node)
		return NUMA_POLICY_LB_NEUTRAL;
	/* Leaving its preferred node: only when balancing keeps failing. */
	if (ctx->nr_balance_failed > ctx->cache_nice_tries)
		return NUMA_POLICY_LB_NEUTRAL;
	if (READ_ONCE(numacore_feat_faults_down) && dst && dst <= src)
		return NUMA_POLICY_LB_NEUTRAL;
	return NUMA_POLICY_LB_REFUSE;
}

/**
 * numacore_can_migrate() - &numa_policy_ops.can_migrate
 * @p: the candidate task, queued on @ctx->src_cpu
 * @ctx: the balancing state
 *
 * Runqueue locks held: must not sleep.
 *
 * Return: the verdict; neutral for moron and for tasks without faults.
 */
enum numa_policy_lb_verdict
numacore_can_migrate(struct task_struct *p, const struct numa_policy_lb_ctx *ctx)
{
	const struct numacore_task *nt = numa_policy_task_data(p);
	enum numa_policy_lb_verdict verdict;

	if (numacore_is_moron() || !nt || ctx->src_node == ctx->dst_node)
		return NUMA_POLICY_LB_NEUTRAL;

	verdict = numacore_lb_verdict(nt, ctx);
	if (verdict == NUMA_POLICY_LB_ALLOW)
		numacore_stat_add(NUMACORE_STAT_LB_ALLOW, 1);
	else if (verdict == NUMA_POLICY_LB_REFUSE)
		numacore_stat_add(NUMACORE_STAT_LB_REFUSE, 1);
	return verdict;
}
