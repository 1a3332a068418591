// SPDX-License-Identifier: GPL-2.0
/*
 * numacore: hinting fault accounting.
 *
 * Each task keeps faults[node][private|shared|unknown] in pages.  A fault
 * is private when the task itself took the page's previous hinting fault
 * (whatever CPU it ran on then), shared when another task did; a page
 * with no recorded CPU (its first hinting fault) tells nothing about
 * sharing and counts for its node only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/topology.h>

#include "numacore.h"

static void numacore_count_fault(int page_nid, int nr_pages, int flags)
{
	numacore_stat_add(NUMACORE_STAT_HINT_FAULTS, nr_pages);
	if (flags & NUMA_POLICY_FAULT_LOCAL)
		numacore_stat_add(NUMACORE_STAT_HINT_FAULTS_LOCAL, nr_pages);
	if (flags & NUMA_POLICY_FAULT_HUGE)
		numacore_stat_add(NUMACORE_STAT_HINT_FAULTS_HUGE, nr_pages);
	if (flags & NUMA_POLICY_FAULT_MIGRATED)
		numacore_stat_add(NUMACORE_STAT_PAGES_MIGRATED, nr_pages);
	if (flags & NUMA_POLICY_FAULT_MIGRATE_FAIL)
		numacore_stat_add(NUMACORE_STAT_MIGRATE_FAILED, nr_pages);
}

/*
 * The scanner's back-off evidence: faults since the task's last scan
 * attempt (a step that resumes a pass over the mm is part of it), on
 * the node it runs on (faults taken elsewhere say nothing about where
 * its memory should be now).  A shared page the two-sample filter kept
 * in place is neither placed nor misplaced: it is not the task's to
 * place, and counts apart.  A failed migration is neither too: scanning
 * faster cannot move a page the target node has no room for, so it
 * counts apart and slows the scanner.
 */
static void numacore_window_count(struct numacore_task *nt, int node,
				  int nr_pages, int flags, int type,
				  bool filtered)
{
	if (node != nt->window_node)
		numacore_window_reset(nt, node);
	nt->window_nr++;
	if (flags & NUMA_POLICY_FAULT_MIGRATE_FAIL)
		nt->window_failed += nr_pages;
	else if (flags & (NUMA_POLICY_FAULT_LOCAL | NUMA_POLICY_FAULT_MIGRATED))
		nt->window_placed += nr_pages;
	else if (filtered)
		nt->window_kept += nr_pages;
	else
		nt->window_misplaced += nr_pages;
	/*
	 * A private page that migrated was left remote at the task's
	 * previous fault on it, from this node: if that one counted as
	 * misplaced in this window, the page is placed now.
	 */
	if ((flags & NUMA_POLICY_FAULT_MIGRATED) && type == NUMACORE_PRIVATE)
		nt->window_misplaced -= min_t(unsigned long, nr_pages,
					      nt->window_misplaced);
}

/*
 * The class and node of the fault in progress, as fault_target saw them
 * on the faulting CPU; without that (an explicit mempolicy did not ask
 * it), from the previous CPU and the CPU the task runs on now.
 */
static int numacore_take_fault_type(struct task_struct *p,
				    struct numacore_task *nt, int last_cpu,
				    int *node, bool *filtered)
{
	int type = nt->fault_type;

	*node = nt->fault_node;
	*filtered = nt->fault_filtered;
	nt->fault_type = -1;
	if (type >= 0)
		return type;
	*node = task_node(p);
	*filtered = false;
	if (last_cpu < 0)
		return NUMACORE_UNKNOWN;
	return last_cpu == task_cpu(p) ? NUMACORE_PRIVATE : NUMACORE_SHARED;
}

/**
 * numacore_fault_done() - &numa_policy_ops.fault_done
 * @last_cpu: CPU of the page's previous hinting fault, or -1
 * @page_nid: the page's node now
 * @nr_pages: pages the fault covered
 * @flags: NUMA_POLICY_FAULT_* flags
 *
 * Runs in the faulting task's context and may sleep: a fault that left
 * its page remote may move the task to its memory.
 */
void numacore_fault_done(int last_cpu, int page_nid, int nr_pages, int flags)
{
	struct task_struct *p = current;
	struct numacore_task *nt;
	bool filtered;
	int type, node;

	numacore_count_fault(page_nid, nr_pages, flags);

	/* For example ksmd faulting in a user's mm. */
	if (!p->mm)
		return;
	nt = numacore_task_get(p);
	if (!nt)
		return;

	numacore_placement_update(p, nt);
	if (nt->nr_faults < NUMACORE_MOVE_MIN_FAULTS)
		nt->nr_faults++;

	type = numacore_take_fault_type(p, nt, last_cpu, &node, &filtered);
	*numacore_faults(nt, page_nid, type) += nr_pages;
	numacore_window_count(nt, node, nr_pages, flags, type, filtered);

	numacore_preferred_update(p, nt);
	if (page_nid != task_node(p)) {
		numacore_place_check_held(p, nt, page_nid);
		numacore_place_task(p, nt);
	}
}
