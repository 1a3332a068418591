// SPDX-License-Identifier: GPL-2.0
/*
 * numacore: migrate-on-fault, the decision where a faulting page lives.
 *
 * The kernel asks only when the task and VMA mempolicy leave the choice
 * to automatic balancing (explicit MPOL_BIND, MPOL_INTERLEAVE and
 * MPOL_PREFERRED keep their pages), with the page table lock held.
 *
 * moron:    balancenuma's Migrate On Reference Of pte_numa Node: every
 *           misplaced page goes to the referencing node at once.
 * numacore: the two-sample filter of numa_migration_target():
 *           a page moves to the faulting CPU's node only if its previous
 *           hinting fault came from that node too, which squares the
 *           probability of acting on an unlikely task<->page relation.
 *           A page with no recorded last CPU (never hint-faulted since it
 *           was allocated) has no first sample; with first_fault (the
 *           default) it moves on its first fault as stock 6.1 lets it,
 *           without it waits for a second sample.  The page also stays
 *           where it is when the task is to move to it instead.  A
 *           shared page (its previous fault was another task's) moves
 *           only to a node where the process runs more threads than on
 *           the page's node: a process split evenly over two nodes
 *           would otherwise pass its common memory back and forth, each
 *           half pulling what the other pulled (pages stay where they
 *           are, and both halves see the same locality).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/topology.h>

#include "numacore.h"
#include "numacore_trace.h"

static int numacore_fault_type(int last_cpu, bool same_task)
{
	if (last_cpu < 0)
		return NUMACORE_UNKNOWN;
	return same_task ? NUMACORE_PRIVATE : NUMACORE_SHARED;
}

/* The filter keeps the page in place, for @why. */
static int numacore_filter_keeps(struct numacore_task *nt, int why,
				 int *reason)
{
	numacore_stat_add(NUMACORE_STAT_MIGRATE_FILTERED, 1);
	if (nt)
		nt->fault_filtered = true;
	*reason = why;
	return NUMA_NO_NODE;
}

/* Where the page of a fault on another node than @this_nid goes, and why. */
static int numacore_remote_target(struct numacore_task *nt, int page_nid,
				  int this_nid, int last_cpu, int type,
				  int *reason)
{
	if (numacore_is_moron()) {
		*reason = NUMACORE_FAULT_MORON;
		return this_nid;
	}
	if (nt && numacore_task_follows_memory(current, nt, page_nid)) {
		numacore_stat_add(NUMACORE_STAT_MIGRATE_DEFERRED, 1);
		*reason = NUMACORE_FAULT_DEFERRED;
		return NUMA_NO_NODE;
	}
	if (last_cpu < 0 && READ_ONCE(numacore_feat_first_fault)) {
		*reason = NUMACORE_FAULT_FIRST;
		return this_nid;
	}
	/* Access miss: the previous sample came from elsewhere. */
	if (last_cpu < 0 || cpu_to_node(last_cpu) != this_nid)
		return numacore_filter_keeps(nt, NUMACORE_FAULT_FILTERED, reason);
	if (type == NUMACORE_SHARED &&
	    !numacore_process_leans_to(current, this_nid, page_nid))
		return numacore_filter_keeps(nt, NUMACORE_FAULT_SPLIT, reason);
	*reason = NUMACORE_FAULT_TWO_SAMPLES;
	return this_nid;
}

/**
 * numacore_fault_target() - &numa_policy_ops.fault_target
 * @page: the faulting page
 * @vma: its VMA
 * @cpu: the faulting CPU
 * @page_nid: the page's node
 *
 * Records @cpu as the page's last CPU for the next fault's filter, and
 * classifies the fault for fault_done: private when current made the
 * page's previous record, shared when another task did.  A page the task
 * is about to move to (numacore_task_follows_memory()) stays in place.
 *
 * Return: the node to migrate to, or NUMA_NO_NODE to leave the page.
 */
int numacore_fault_target(struct page *page, struct vm_area_struct *vma,
			  int cpu, int page_nid)
{
	struct numacore_task *nt = numacore_task(current);
	int this_nid = cpu_to_node(cpu);
	int last_cpu, type, target, reason = NUMACORE_FAULT_LOCAL;
	bool same_task;

	last_cpu = numa_policy_page_xchg_last_cpu(page, cpu, &same_task);
	type = numacore_fault_type(last_cpu, same_task);
	if (nt) {
		nt->fault_type = type;
		nt->fault_node = this_nid;
		nt->fault_filtered = false;
	}

	target = NUMA_NO_NODE;
	if (page_nid != this_nid)
		target = numacore_remote_target(nt, page_nid, this_nid,
						last_cpu, type, &reason);
	trace_numacore_fault(page_nid, this_nid, target, type, reason);
	return target;
}
