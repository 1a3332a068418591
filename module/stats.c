// SPDX-License-Identifier: GPL-2.0
/*
 * numacore: counters, and the debugfs files that show them.
 *
 * /sys/kernel/debug/numacore/stats: one "name value" line per counter.
 * /sys/kernel/debug/numacore/tasks: one line per task with policy state:
 *   pid=<pid> tgid=<tgid> comm=<comm> node=<node it runs on>
 *   preferred=<node|-1> group=<node|-1> target=<node|-1>
 *   class=<private|shared|unknown> scan_period_ms=<ms>
 *   faults=<node0>,<node1>,... private=<n> shared=<n>
 * Fault figures are the decayed per-task vector, in pages.
 * The tracepoints (numacore_trace.h) are defined here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>

#include "numacore.h"

#define CREATE_TRACE_POINTS
#include "numacore_trace.h"

static DEFINE_PER_CPU(unsigned long [NUMACORE_STAT_NR], numacore_stats);
static struct dentry *numacore_debugfs_dir;

static const char * const numacore_stat_names[NUMACORE_STAT_NR] = {
	[NUMACORE_STAT_SCANS]		= "scans",
	[NUMACORE_STAT_SCANS_DEFERRED]	= "scans_deferred",
	[NUMACORE_STAT_FULL_SCANS]	= "full_scans",
	[NUMACORE_STAT_PAGES_MARKED]	= "pages_marked",
	[NUMACORE_STAT_HINT_FAULTS]	= "hint_faults",
	[NUMACORE_STAT_HINT_FAULTS_LOCAL] = "hint_faults_local",
	[NUMACORE_STAT_HINT_FAULTS_HUGE] = "hint_faults_huge",
	[NUMACORE_STAT_PAGES_MIGRATED]	= "pages_migrated",
	[NUMACORE_STAT_MIGRATE_FAILED]	= "migrate_failed",
	[NUMACORE_STAT_MIGRATE_FILTERED] = "migrate_filtered",
	[NUMACORE_STAT_MIGRATE_DEFERRED] = "migrate_deferred",
	[NUMACORE_STAT_PLACE_ATTEMPTS]	= "place_attempts",
	[NUMACORE_STAT_TASK_MOVES]	= "task_moves",
	[NUMACORE_STAT_TASK_SWAPS]	= "task_swaps",
	[NUMACORE_STAT_PLACE_NO_CAPACITY] = "place_no_capacity",
	[NUMACORE_STAT_PLACE_NO_IMPROVEMENT] = "place_no_improvement",
	[NUMACORE_STAT_PLACE_AFFINITY]	= "place_affinity",
	[NUMACORE_STAT_PLACE_BACKOFF]	= "place_backoff",
	[NUMACORE_STAT_MOVES_UNDONE]	= "moves_undone",
	[NUMACORE_STAT_LB_IMPROVES]	= "lb_improves",
	[NUMACORE_STAT_LB_DEGRADES]	= "lb_degrades",
	[NUMACORE_STAT_EXEC_RESETS]	= "exec_resets",
	[NUMACORE_STAT_TASK_REGROUPS]	= "task_regroups",
};

void numacore_stat_add(enum numacore_stat stat, long nr)
{
	this_cpu_add(numacore_stats[stat], nr);
}

static int numacore_stats_show(struct seq_file *m, void *v)
{
	int stat, cpu;

	for (stat = 0; stat < NUMACORE_STAT_NR; stat++) {
		unsigned long sum = 0;

		for_each_possible_cpu(cpu)
			sum += per_cpu(numacore_stats, cpu)[stat];
		seq_printf(m, "%s %lu\n", numacore_stat_names[stat], sum);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(numacore_stats);

static const char *numacore_class_name(int shared)
{
	if (shared < 0)
		return "unknown";
	return shared ? "shared" : "private";
}

static void numacore_task_show(struct seq_file *m, struct task_struct *p,
			       const struct numacore_task *nt)
{
	unsigned long priv = 0, shared = 0;
	int node;

	seq_printf(m, "pid=%d tgid=%d comm=%s node=%d preferred=%d group=%d target=%d class=%s scan_period_ms=%u faults=",
		   task_pid_nr(p), task_tgid_nr(p), p->comm, task_node(p),
		   READ_ONCE(nt->preferred_node), READ_ONCE(nt->group_node),
		   numacore_target_node(nt),
		   numacore_class_name(READ_ONCE(nt->shared)),
		   READ_ONCE(nt->scan_period_ms));
	for (node = 0; node < nr_node_ids; node++) {
		priv += READ_ONCE(nt->faults[node * NUMACORE_FAULT_TYPES +
					     NUMACORE_PRIVATE]);
		shared += READ_ONCE(nt->faults[node * NUMACORE_FAULT_TYPES +
					       NUMACORE_SHARED]);
		seq_printf(m, "%s%lu", node ? "," : "",
			   numacore_node_faults(nt, node));
	}
	seq_printf(m, " private=%lu shared=%lu\n", priv, shared);
}

static int numacore_tasks_show(struct seq_file *m, void *v)
{
	struct task_struct *g, *p;
	struct numacore_task *nt;

	/* Exiting tasks free their data after an RCU grace period. */
	rcu_read_lock();
	for_each_process_thread(g, p) {
		nt = numacore_task(p);
		if (nt)
			numacore_task_show(m, p, nt);
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(numacore_tasks);

int numacore_stats_init(void)
{
	numacore_debugfs_dir = debugfs_create_dir("numacore", NULL);
	debugfs_create_file("stats", 0444, numacore_debugfs_dir, NULL,
			    &numacore_stats_fops);
	debugfs_create_file("tasks", 0444, numacore_debugfs_dir, NULL,
			    &numacore_tasks_fops);
	return 0;
}

void numacore_stats_exit(void)
{
	debugfs_remove_recursive(numacore_debugfs_dir);
}
