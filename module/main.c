// SPDX-License-Identifier: GPL-2.0
/*
 * numacore: module entry, the ops table and per-task state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "numacore.h"

/* Start @nt afresh for @p: no faults, no preferred node, no class. */
static void numacore_task_init(struct task_struct *p, struct numacore_task *nt)
{
	/* The kernel's head is left alone: the state stays attached. */
	memset(&nt->exec_id, 0, struct_size(nt, faults, NUMACORE_FAULT_SLOTS) -
	       offsetof(struct numacore_task, exec_id));
	nt->exec_id = p->self_exec_id;
	nt->node_stamp = p->se.sum_exec_runtime;
	nt->scan_period_ms = READ_ONCE(numacore_scan_period_min_ms);
	nt->scan_seq = p->mm ? READ_ONCE(p->mm->numa_scan_seq) : 0;
	nt->first_seq = nt->scan_seq;
	/* As numa/core: the first classification need not wait to settle. */
	nt->migrate_seq = READ_ONCE(numacore_settle_count);
	nt->last_node = task_node(p);
	nt->window_node = nt->last_node;
	nt->preferred_node = NUMA_NO_NODE;
	nt->group_node = NUMA_NO_NODE;
	nt->placed_node = NUMA_NO_NODE;
	nt->fault_type = -1;
	nt->shared = -1;
}

/**
 * numacore_task_get() - the policy state of @p, allocated on first use
 * @p: current, in a callback that may sleep
 *
 * A task that called exec() since the state was made starts afresh: the
 * new program's memory says nothing of the old one's.
 *
 * Return: the state, or NULL if it could not be allocated.
 */
struct numacore_task *numacore_task_get(struct task_struct *p)
{
	struct numacore_task *nt = numacore_task(p);

	if (nt) {
		if (unlikely(nt->exec_id != p->self_exec_id)) {
			numacore_task_init(p, nt);
			numacore_stat_add(NUMACORE_STAT_EXEC_RESETS, 1);
		}
		return nt;
	}

	nt = kmalloc(struct_size(nt, faults, NUMACORE_FAULT_SLOTS), GFP_KERNEL);
	if (!nt)
		return NULL;
	numacore_task_init(p, nt);

	if (!numa_policy_set_task_data(p, &nt->head)) {
		kfree(nt);
		nt = numacore_task(p);
	}
	return nt;
}

static void numacore_task_work(struct task_struct *p)
{
	struct numacore_task *nt;

	if (!p->mm)
		return;
	nt = numacore_task_get(p);
	if (!nt)
		return;

	/*
	 * Placement follows the task's own turns at the mm, not every
	 * period expiry: a thread the load balancer moved off its node is
	 * swapped back at that pace, not raced against the balancer.
	 */
	if (!numacore_scan(p, nt))
		return;
	numacore_placement_update(p, nt);
	numacore_preferred_update(p, nt);
	numacore_place_task(p, nt);
}

static struct numa_policy_ops numacore_ops = {
	.fault_target	= numacore_fault_target,
	.fault_done	= numacore_fault_done,
	.task_tick	= numacore_task_tick,
	.task_work	= numacore_task_work,
	.can_migrate	= numacore_can_migrate,
	.name		= "numacore",
	.owner		= THIS_MODULE,
};

static int __init numacore_init(void)
{
	int ret;

	ret = numacore_params_check();
	if (ret)
		return ret;

	ret = numacore_stats_init();
	if (ret)
		return ret;

	ret = numa_policy_register(&numacore_ops);
	if (ret) {
		pr_err("cannot register the policy: %d%s\n", ret,
		       ret == -EBUSY ? " (another NUMA policy is registered)" : "");
		goto err_stats_exit;
	}

	numacore_params_loaded();
	pr_info("loaded, policy=%s\n", numacore_is_moron() ? "moron" : "numacore");
	return 0;

err_stats_exit:
	numacore_stats_exit();
	return ret;
}

static void __exit numacore_exit(void)
{
	/* Readers of per-task state go first, then every hook. */
	numacore_stats_exit();
	numa_policy_unregister(&numacore_ops);
	pr_info("unloaded\n");
}

module_init(numacore_init);
module_exit(numacore_exit);

MODULE_LICENSE("GPL");
/* The DKMS PACKAGE_VERSION in dkms.conf must match. */
MODULE_VERSION("0.1");
MODULE_DESCRIPTION("numa/core adaptive NUMA affinity (and MORON) as a loadable NUMA policy");
