// SPDX-License-Identifier: GPL-2.0
/*
 * numa_hooktest - a tiny NUMA policy that exercises every hook of
 * <linux/numa_policy.h> and counts the calls.  It is a test fixture, not a
 * balancing policy.
 *
 * /sys/kernel/debug/numa_hooktest/counts   "name value" per line
 * /sys/kernel/debug/numa_hooktest/ctl      write: register2, unregister,
 *                                          register; read: return codes
 *
 * Behaviour:
 * - fault_target records the faulting CPU in the page and asks for the
 *   page to move to the faulting CPU's node (memory follows CPU).
 * - task_tick queues the scan work for a user task that has run for at
 *   least scan_delay_ms (default 100) of its own runtime since its last scan.
 *   The tick runs under the runqueue lock and must not allocate, so it
 *   only reads the per-task state; a task without state counts from a
 *   runtime of 0 (so its first scan comes after scan_delay_ms) and
 *   the task_work, which may sleep, allocates the state with GFP_KERNEL.
 *   The kernel frees the state on task free and on unregistration.
 * - task_work marks up to HOOKTEST_SCAN_BYTES of the task's migratable
 *   VMAs PROT_NONE with numa_policy_change_prot_numa(), resuming where
 *   the task's previous pass stopped, and adds the PTEs changed to pages_marked.
 * - can_migrate counts and stays neutral.
 * - Every callback checks the calling context the contract promises:
 *   might_sleep() where it says "may sleep" (CONFIG_DEBUG_ATOMIC_SLEEP
 *   then reports a violation), and context_errors counts callbacks that
 *   run preemptible or with IRQs on where the contract says they cannot,
 *   or for a task other than current where it says @p is current.
 * - Task data records the registration (generation) that allocated it;
 *   stale_task_data counts callbacks that find data of an earlier
 *   registration, which numa_policy_unregister() promises to have freed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/numa_policy.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/uaccess.h>

#ifndef CONFIG_NUMA_POLICY_HOOKS
#error "numa_hooktest needs a kernel with CONFIG_NUMA_POLICY_HOOKS"
#endif

#define HOOKTEST_SCAN_BYTES		(64UL << 20)

enum hooktest_counter {
	HT_FAULT_TARGET,
	HT_FAULT_DONE,
	HT_TASK_TICK,
	HT_TASK_WORK,
	HT_CAN_MIGRATE,
	HT_TASK_FORK,
	HT_TASK_EXIT,
	HT_PAGES_MARKED,
	/* extra detail, after the contract counters */
	HT_TASK_WORK_QUEUED,
	HT_TASK_DATA_ALLOCATED,
	HT_SCAN_PASSES,
	HT_FAULT_LOCAL,
	HT_FAULT_MIGRATED,
	HT_FAULT_MIGRATE_FAIL,
	HT_FAULT_HUGE,
	HT_FAULT_LAST_CPU_KNOWN,
	HT_CONTEXT_ERRORS,
	HT_STALE_TASK_DATA,
	HT_STALE_TASK_DATA_EXIT,
	HT_NR_COUNTERS,
};

static const char * const hooktest_names[HT_NR_COUNTERS] = {
	[HT_FAULT_TARGET]	  = "fault_target",
	[HT_FAULT_DONE]		  = "fault_done",
	[HT_TASK_TICK]		  = "task_tick",
	[HT_TASK_WORK]		  = "task_work",
	[HT_CAN_MIGRATE]	  = "can_migrate",
	[HT_TASK_FORK]		  = "task_fork",
	[HT_TASK_EXIT]		  = "task_exit",
	[HT_PAGES_MARKED]	  = "pages_marked",
	[HT_TASK_WORK_QUEUED]	  = "task_work_queued",
	[HT_TASK_DATA_ALLOCATED]  = "task_data_allocated",
	[HT_SCAN_PASSES]	  = "scan_passes",
	[HT_FAULT_LOCAL]	  = "fault_local",
	[HT_FAULT_MIGRATED]	  = "fault_migrated",
	[HT_FAULT_MIGRATE_FAIL]	  = "fault_migrate_fail",
	[HT_FAULT_HUGE]		  = "fault_huge",
	[HT_FAULT_LAST_CPU_KNOWN] = "fault_last_cpu_known",
	[HT_CONTEXT_ERRORS]	  = "context_errors",
	[HT_STALE_TASK_DATA]	  = "stale_task_data",
	[HT_STALE_TASK_DATA_EXIT] = "stale_task_data_in_task_exit",
};

static atomic64_t hooktest_counts[HT_NR_COUNTERS];

static void hooktest_count(enum hooktest_counter c, s64 n)
{
	atomic64_add(n, &hooktest_counts[c]);
}

/* Per-task state, attached with numa_policy_set_task_data(). */
struct hooktest_task {
	struct numa_policy_task_data head;	/* first: the kernel frees it */
	u64 last_scan_runtime;		/* se.sum_exec_runtime at last scan */
	unsigned long scan_offset;	/* where the next pass starts */
	unsigned int gen;		/* hooktest_gen when allocated */
};

/* Bumped before every registration of hooktest_ops. */
static atomic_t hooktest_gen = ATOMIC_INIT(0);

static unsigned int scan_delay_ms = 100;
module_param(scan_delay_ms, uint, 0444);
MODULE_PARM_DESC(scan_delay_ms,
		 "task runtime between scans, and before the first (ms)");

/*
 * @p's data, counting it if an earlier registration left it behind
 * (@in_exit: asked from task_exit).
 */
static struct hooktest_task *hooktest_task_data(struct task_struct *p,
						bool in_exit)
{
	struct numa_policy_task_data *head = numa_policy_task_data(p);
	struct hooktest_task *ht = head ?
		container_of(head, struct hooktest_task, head) : NULL;

	if (ht && READ_ONCE(ht->gen) != atomic_read(&hooktest_gen)) {
		hooktest_count(HT_STALE_TASK_DATA, 1);
		if (in_exit)
			hooktest_count(HT_STALE_TASK_DATA_EXIT, 1);
	}
	return ht;
}

/*
 * Bytes allocated per task: at least sizeof(struct hooktest_task).  A leak
 * test makes it large so that task data the kernel failed to free shows in
 * SUnreclaim (kmalloc() memory, from a slab or a large kmalloc, is counted
 * there).
 */
#define HOOKTEST_TASK_DATA_MAX	(64U << 10)
static unsigned int task_data_size = sizeof(struct hooktest_task);
module_param(task_data_size, uint, 0444);
MODULE_PARM_DESC(task_data_size,
		 "bytes of per-task data to allocate (default: the minimum)");

/*
 * A hostile policy for the contract test: every hinting fault asks for
 * this node, whatever it is (the kernel must refuse a node that has no
 * memory).
 */
static int target_node = NUMA_NO_NODE;
module_param(target_node, int, 0444);
MODULE_PARM_DESC(target_node,
		 "node every hinting fault asks for, checked by the kernel (default: the faulting CPU's)");

static int hooktest_fault_target(struct page *page, struct vm_area_struct *vma,
				 int cpu, int page_nid)
{
	bool same_task;

	hooktest_count(HT_FAULT_TARGET, 1);
	/* page table lock held (preemptible() is 0 without PREEMPT_COUNT) */
	if (preemptible() || cpu != raw_smp_processor_id())
		hooktest_count(HT_CONTEXT_ERRORS, 1);
	numa_policy_page_xchg_last_cpu(page, cpu, &same_task);
	return target_node == NUMA_NO_NODE ? cpu_to_node(cpu) : target_node;
}

static void hooktest_fault_done(int last_cpu, int page_nid, int nr_pages,
				int flags)
{
	might_sleep();
	hooktest_count(HT_FAULT_DONE, 1);
	if (flags & NUMA_POLICY_FAULT_LOCAL)
		hooktest_count(HT_FAULT_LOCAL, 1);
	if (flags & NUMA_POLICY_FAULT_MIGRATED)
		hooktest_count(HT_FAULT_MIGRATED, 1);
	if (flags & NUMA_POLICY_FAULT_MIGRATE_FAIL)
		hooktest_count(HT_FAULT_MIGRATE_FAIL, 1);
	if (flags & NUMA_POLICY_FAULT_HUGE)
		hooktest_count(HT_FAULT_HUGE, 1);
	if (last_cpu >= 0)
		hooktest_count(HT_FAULT_LAST_CPU_KNOWN, 1);
}

/* Runqueue lock held, IRQs off: no allocation, no sleeping. */
static void hooktest_task_tick(struct task_struct *curr)
{
	struct hooktest_task *ht;
	u64 last = 0;

	hooktest_count(HT_TASK_TICK, 1);
	if (!irqs_disabled() || curr != current)
		hooktest_count(HT_CONTEXT_ERRORS, 1);
	ht = hooktest_task_data(curr, false);
	if (!curr->mm || (curr->flags & (PF_EXITING | PF_KTHREAD)))
		return;
	if (ht)
		last = READ_ONCE(ht->last_scan_runtime);
	if (curr->se.sum_exec_runtime - last <
	    (u64)scan_delay_ms * NSEC_PER_MSEC)
		return;
	if (numa_policy_queue_task_work(curr))
		hooktest_count(HT_TASK_WORK_QUEUED, 1);
}

/*
 * Mark the scannable VMAs from *@start on, until *@budget bytes of virtual
 * range are done.  Returns true if the budget ran out before the end of
 * the address space; *@start is then where the next pass resumes.
 */
static bool hooktest_scan_from(struct mm_struct *mm, unsigned long *start,
			       unsigned long *budget, unsigned long *marked)
{
	VMA_ITERATOR(vmi, mm, *start);
	struct vm_area_struct *vma;
	unsigned long addr, end;

	for_each_vma(vmi, vma) {
		if (!numa_policy_vma_scannable(vma))
			continue;
		addr = max(*start, vma->vm_start);
		while (addr < vma->vm_end && *budget) {
			end = ALIGN(addr + *budget, HPAGE_SIZE);
			end = min(end, vma->vm_end);
			*marked += numa_policy_change_prot_numa(vma, addr, end);
			*budget -= min(*budget, end - addr);
			addr = end;
			cond_resched();
		}
		*start = addr;
		if (!*budget)
			return true;
	}
	return false;
}

/*
 * One pass: up to HOOKTEST_SCAN_BYTES of virtual range from the task's
 * scan offset, wrapping once to the start of the address space.
 */
static void hooktest_scan(struct mm_struct *mm, struct hooktest_task *ht)
{
	unsigned long budget = HOOKTEST_SCAN_BYTES;
	unsigned long start = ht->scan_offset;
	unsigned long marked = 0;

	mmap_read_lock(mm);
	if (!hooktest_scan_from(mm, &start, &budget, &marked)) {
		start = 0;
		if (!hooktest_scan_from(mm, &start, &budget, &marked))
			start = 0;
	}
	ht->scan_offset = start;
	mmap_read_unlock(mm);
	hooktest_count(HT_PAGES_MARKED, marked);
	hooktest_count(HT_SCAN_PASSES, 1);
}

/* Task context, may sleep. */
static void hooktest_task_work(struct task_struct *p)
{
	struct hooktest_task *ht;

	might_sleep();
	hooktest_count(HT_TASK_WORK, 1);
	if (p != current)
		hooktest_count(HT_CONTEXT_ERRORS, 1);
	if (!p->mm || (p->flags & (PF_EXITING | PF_KTHREAD)))
		return;

	ht = hooktest_task_data(p, false);
	if (!ht) {
		ht = kzalloc(task_data_size, GFP_KERNEL);
		if (!ht)
			return;
		ht->gen = atomic_read(&hooktest_gen);
		if (!numa_policy_set_task_data(p, &ht->head)) {
			kfree(ht);
			ht = hooktest_task_data(p, false);
		} else {
			hooktest_count(HT_TASK_DATA_ALLOCATED, 1);
		}
	}
	/* only the tick of this task reads it, possibly concurrently */
	WRITE_ONCE(ht->last_scan_runtime, p->se.sum_exec_runtime);
	hooktest_scan(p->mm, ht);
}

static enum numa_policy_lb_verdict
hooktest_can_migrate(struct task_struct *p, const struct numa_policy_lb_ctx *ctx)
{
	hooktest_count(HT_CAN_MIGRATE, 1);
	hooktest_task_data(p, false);
	if (!irqs_disabled())
		hooktest_count(HT_CONTEXT_ERRORS, 1);
	return NUMA_POLICY_LB_NEUTRAL;
}

static void hooktest_task_fork(struct task_struct *p)
{
	might_sleep();
	hooktest_count(HT_TASK_FORK, 1);
	if (p == current)
		hooktest_count(HT_CONTEXT_ERRORS, 1);
}

static void hooktest_task_exit(struct task_struct *p)
{
	might_sleep();
	hooktest_count(HT_TASK_EXIT, 1);
	if (p != current)
		hooktest_count(HT_CONTEXT_ERRORS, 1);
	hooktest_task_data(p, true);
}

static struct numa_policy_ops hooktest_ops = {
	.fault_target	= hooktest_fault_target,
	.fault_done	= hooktest_fault_done,
	.task_tick	= hooktest_task_tick,
	.task_work	= hooktest_task_work,
	.can_migrate	= hooktest_can_migrate,
	.task_fork	= hooktest_task_fork,
	.task_exit	= hooktest_task_exit,
	.name		= "hooktest",
	.owner		= THIS_MODULE,
};

/* Only ever registered by "register2", to test the one-policy rule. */
static struct numa_policy_ops hooktest_ops2 = {
	.fault_target	= hooktest_fault_target,
	.name		= "hooktest2",
	.owner		= THIS_MODULE,
};

#define HT_RC_NONE	INT_MIN		/* operation not tried yet */

static DEFINE_MUTEX(hooktest_ctl_mutex);
static bool hooktest_registered;
static int hooktest_rc_register2 = HT_RC_NONE;
static int hooktest_rc_unregister = HT_RC_NONE;
static int hooktest_rc_register = HT_RC_NONE;
static struct dentry *hooktest_dir;

static int hooktest_counts_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < HT_NR_COUNTERS; i++)
		seq_printf(m, "%s %lld\n", hooktest_names[i],
			   (long long)atomic64_read(&hooktest_counts[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hooktest_counts);

static void hooktest_show_rc(struct seq_file *m, const char *name, int rc)
{
	if (rc == HT_RC_NONE)
		seq_printf(m, "%s=none\n", name);
	else
		seq_printf(m, "%s=%d\n", name, rc);
}

static int hooktest_ctl_show(struct seq_file *m, void *v)
{
	mutex_lock(&hooktest_ctl_mutex);
	seq_printf(m, "registered=%d\n", hooktest_registered);
	hooktest_show_rc(m, "second_register", hooktest_rc_register2);
	hooktest_show_rc(m, "unregister", hooktest_rc_unregister);
	hooktest_show_rc(m, "register", hooktest_rc_register);
	mutex_unlock(&hooktest_ctl_mutex);
	return 0;
}

static int hooktest_ctl_open(struct inode *inode, struct file *file)
{
	return single_open(file, hooktest_ctl_show, NULL);
}

/*
 * register2:  try to register a second policy; if that succeeds (the main
 *             one was unregistered), unregister it again at once.
 * unregister: unregister the main policy (-ENOENT if it is not registered).
 * register:   register the main policy again.
 */
static ssize_t hooktest_ctl_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	char buf[16];
	char *cmd;
	int rc;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	cmd = strim(buf);

	mutex_lock(&hooktest_ctl_mutex);
	if (!strcmp(cmd, "register2")) {
		rc = numa_policy_register(&hooktest_ops2);
		if (!rc)
			numa_policy_unregister(&hooktest_ops2);
		hooktest_rc_register2 = rc;
	} else if (!strcmp(cmd, "unregister")) {
		rc = -ENOENT;
		if (hooktest_registered) {
			numa_policy_unregister(&hooktest_ops);
			hooktest_registered = false;
			rc = 0;
		}
		hooktest_rc_unregister = rc;
	} else if (!strcmp(cmd, "register")) {
		if (!hooktest_registered)
			atomic_inc(&hooktest_gen);
		rc = numa_policy_register(&hooktest_ops);
		if (!rc)
			hooktest_registered = true;
		hooktest_rc_register = rc;
	} else {
		len = -EINVAL;
	}
	mutex_unlock(&hooktest_ctl_mutex);
	return len;
}

static const struct file_operations hooktest_ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= hooktest_ctl_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= hooktest_ctl_write,
};

static int __init hooktest_init(void)
{
	int rc;

	if (task_data_size < sizeof(struct hooktest_task) ||
	    task_data_size > HOOKTEST_TASK_DATA_MAX)
		return -EINVAL;

	atomic_inc(&hooktest_gen);
	rc = numa_policy_register(&hooktest_ops);
	if (rc) {
		pr_err("cannot register the NUMA policy: %d\n", rc);
		return rc;
	}
	hooktest_registered = true;

	hooktest_dir = debugfs_create_dir("numa_hooktest", NULL);
	debugfs_create_file("counts", 0444, hooktest_dir, NULL,
			    &hooktest_counts_fops);
	debugfs_create_file("ctl", 0600, hooktest_dir, NULL,
			    &hooktest_ctl_fops);
	return 0;
}

static void __exit hooktest_exit(void)
{
	/* no ctl write can run once debugfs_remove_recursive() returns */
	debugfs_remove_recursive(hooktest_dir);
	if (hooktest_registered)
		numa_policy_unregister(&hooktest_ops);
}

module_init(hooktest_init);
module_exit(hooktest_exit);

MODULE_DESCRIPTION("NUMA policy hook test fixture: counts every hook call");
MODULE_LICENSE("GPL");
