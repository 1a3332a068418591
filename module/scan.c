// SPDX-License-Identifier: GPL-2.0
/*
 * numacore: the working set scanner.
 *
 * The scheduler tick measures task runtime; once a task has run for its
 * scan period it queues task_work, and the scan runs in the context of
 * the task that owns the memory.  One task per mm scans at a time
 * (mm->numa_next_scan is claimed with cmpxchg, marked apart from a next
 * scan time, so that no task, however urgent, scans beside it), resuming at
 * mm->numa_scan_offset; mm->numa_scan_seq counts full passes.  While the
 * policy is registered the kernel's own scanner does not run and these
 * mm fields are ours.  Each scan marks up to scan_size_mb of *present*
 * pages PROT_NONE, counted by the present PTEs changed, not by
 * the virtual range walked (which is bounded too, at 8x).
 *
 * The period starts at scan_period_min_ms (slow start, and again when the
 * task changes node) and adapts to the hinting faults the task took since
 * its last scan: a fault counts as placed when its page is local after
 * the fault (it was, or it migrated here).  While nearly all are placed
 * the period grows x4 at each expiry, up to scan_period_max_ms (at once
 * when every fault of a window of NUMACORE_WINDOW_MIN_FAULTS or more left
 * its page local: the pass placed all it found),
 * and the scan waits for the grown period (never in the middle of a
 * pass); so memory that converged in one pass is next sampled
 * scan_period_max_ms later, and one more sample follows only for pages
 * the pass left remote for the task to place.  Misplaced faults (more
 * than one in NUMACORE_MISPLACED_RATIO) halve the period.  Every task
 * adapts its own period at its own expiry, also when another task's scan
 * made its faults.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/timekeeping.h>

#include "numacore.h"
#include "numacore_trace.h"

/* A window with more than 1 fault in 10 left remote is not converged. */
#define NUMACORE_MISPLACED_RATIO	10
/* Converged memory needs no rescanning: back off fast. */
#define NUMACORE_BACKOFF		4
/*
 * A window of fewer hinting faults than this does not show that a pass
 * placed all it sampled: the task's siblings may have taken the rest of
 * the pass's faults, among them pages still remote.
 */
#define NUMACORE_WINDOW_MIN_FAULTS	8
/* Failed migrations: the target node is full, scan more slowly. */
#define NUMACORE_FAIL_BACKOFF		2
/* A task runs this many times its scanning time before it scans again. */
#define NUMACORE_SCAN_COST_FACTOR	32

/* Pages of hinting faults that show a task works on its mm's memory. */
#define NUMACORE_WORKER_MIN_PAGES	32

/* Pages in @nt's fault vector, over all nodes. */
static unsigned long numacore_fault_pages(const struct numacore_task *nt)
{
	unsigned long pages = 0;
	int node;

	for (node = 0; node < nr_node_ids; node++)
		pages += numacore_node_faults(nt, node);
	return pages;
}

/*
 * Does @nt's task work on its mm's memory?  Until a full pass over the mm
 * since its state began it may; after one, only with
 * NUMACORE_WORKER_MIN_PAGES pages in its fault vector.  A sampler or a
 * waiting parent touches little of what the scanner marks.
 */
static bool numacore_works_on_mm(const struct numacore_task *nt,
				 struct mm_struct *mm)
{
	return READ_ONCE(mm->numa_scan_seq) == nt->first_seq ||
	       numacore_fault_pages(nt) >= NUMACORE_WORKER_MIN_PAGES;
}

/*
 * The task's scan period within the current parameters, so that a
 * parameter change applies at the next tick.  A task that does not work
 * on its mm's memory asks for scans at the longest period, so that it
 * does not keep rescanning memory others converged (a sampler whose few
 * faults never let it back off rescanned a converged numa02 process
 * every 2 s).
 */
static unsigned int numacore_scan_period(const struct numacore_task *nt,
					 struct mm_struct *mm)
{
	unsigned int max = READ_ONCE(numacore_scan_period_max_ms);

	if (!numacore_works_on_mm(nt, mm))
		return max;
	return clamp(nt->scan_period_ms, READ_ONCE(numacore_scan_period_min_ms),
		     max);
}

static s64 numacore_scan_period_ns(const struct numacore_task *nt,
				   struct mm_struct *mm)
{
	return (s64)numacore_scan_period(nt, mm) * NSEC_PER_MSEC;
}

/*
 * Task runtime since its period started; negative while the task pays
 * for its last scan (see numacore_scan()).
 */
static s64 numacore_ran_ns(struct task_struct *p,
			   const struct numacore_task *nt)
{
	return (s64)(p->se.sum_exec_runtime - nt->node_stamp);
}

/*
 * Is the mm's next scan time @next reached?  A time further away than the
 * longest period was set under other parameters (or by the kernel's own
 * scan delay) and does not hold.
 */
static bool numacore_mm_scan_due(unsigned long next)
{
	unsigned long max = msecs_to_jiffies(READ_ONCE(numacore_scan_period_max_ms));

	return !time_before(jiffies, next) || time_after(next, jiffies + max);
}

/* More than one fault in NUMACORE_MISPLACED_RATIO since the last scan left remote? */
static bool numacore_window_misplaced(const struct numacore_task *nt)
{
	unsigned long placed = nt->window_placed;
	unsigned long misplaced = nt->window_misplaced;

	return misplaced * NUMACORE_MISPLACED_RATIO > placed + misplaced;
}

/*
 * Must @p's mm be sampled before its next scan time, which a backed-off
 * scanner may have set up to scan_period_max_ms away?  Yes when the
 * task's faults are being left remote, or when a task that works on the
 * memory changed node since its evidence began: its memory is now
 * remote and no scan would show it.
 */
static bool numacore_scan_urgent(struct task_struct *p,
				 const struct numacore_task *nt)
{
	if (numacore_window_misplaced(nt))
		return true;
	if (task_node(p) == nt->window_node)
		return false;
	return numacore_fault_pages(nt) >= NUMACORE_WORKER_MIN_PAGES;
}

/*
 * Bit 0 of mm->numa_next_scan set: a task is scanning the mm, which it
 * claimed until the time in the other bits.  A next scan time is stored
 * with the bit clear, so that a claim is never taken for one.
 */
#define NUMACORE_SCAN_CLAIMED	1UL

/* A claim past its time was left by the kernel's own scanner: ignore it. */
static bool numacore_mm_scan_claimed(unsigned long next)
{
	return (next & NUMACORE_SCAN_CLAIMED) && time_before(jiffies, next);
}

/*
 * May @p scan its mm now?  Never while another task scans it.  When
 * urgent, a next scan time further than scan_period_min_ms away does not
 * hold.
 */
static bool numacore_mm_scan_allowed(struct task_struct *p,
				     const struct numacore_task *nt)
{
	unsigned long next = READ_ONCE(p->mm->numa_next_scan);
	unsigned long min = msecs_to_jiffies(READ_ONCE(numacore_scan_period_min_ms));

	if (numacore_mm_scan_claimed(next))
		return false;
	if (numacore_mm_scan_due(next))
		return true;
	return time_after(next, jiffies + min) && numacore_scan_urgent(p, nt);
}

/**
 * numacore_task_tick() - request a scan once the task ran a scan period
 * @curr: the running task; runqueue lock held, must not sleep
 */
void numacore_task_tick(struct task_struct *curr)
{
	struct numacore_task *nt;
	int node;

	if (!curr->mm || (curr->flags & (PF_EXITING | PF_KTHREAD)))
		return;

	nt = numacore_task(curr);
	if (!nt || nt->exec_id != curr->self_exec_id) {
		/* First tick of a new program: the work (re)makes the state. */
		numa_policy_queue_task_work(curr);
		return;
	}

	node = task_node(curr);
	if (node != nt->last_node) {
		nt->last_node = node;
		nt->migrate_seq = 0;	/* NUMA_SETTLE counts from here */
		nt->scan_period_ms = READ_ONCE(numacore_scan_period_min_ms);
	}

	if (numacore_ran_ns(curr, nt) < numacore_scan_period_ns(nt, curr->mm))
		return;
	/*
	 * The work backs off, scans, or finds the mm scanned by another
	 * task; each ends this period.  It runs even when the mm is not
	 * due, so that every task's period follows its own faults, not
	 * only the period of the task whose turn it was to scan.
	 */
	numa_policy_queue_task_work(curr);
}

static void numacore_scan_wrap(struct mm_struct *mm)
{
	WRITE_ONCE(mm->numa_scan_seq, READ_ONCE(mm->numa_scan_seq) + 1);
	WRITE_ONCE(mm->numa_scan_offset, 0);
	numacore_stat_add(NUMACORE_STAT_FULL_SCANS, 1);
}

/*
 * Mark from mm->numa_scan_offset on; mmap lock held for read.
 *
 * Return: the PTEs marked.
 */
static unsigned long numacore_scan_mm(struct mm_struct *mm)
{
	long pages = (long)READ_ONCE(numacore_scan_size_mb) << (20 - PAGE_SHIFT);
	long virtpages = pages * 8;
	unsigned long start = READ_ONCE(mm->numa_scan_offset), end, marked;
	unsigned long total = 0;
	struct vm_area_struct *vma;
	struct vma_iterator vmi;

	vma_iter_init(&vmi, mm, start);
	for_each_vma(vmi, vma) {
		if (!numa_policy_vma_scannable(vma))
			continue;
		do {
			start = max(start, vma->vm_start);
			end = ALIGN(start + (pages << PAGE_SHIFT), HPAGE_SIZE);
			end = min(end, vma->vm_end);
			marked = numa_policy_change_prot_numa(vma, start, end);
			numacore_stat_add(NUMACORE_STAT_PAGES_MARKED, marked);
			total += marked;
			pages -= marked;
			virtpages -= (end - start) >> PAGE_SHIFT;
			start = end;
			if (pages <= 0 || virtpages <= 0) {
				WRITE_ONCE(mm->numa_scan_offset, start);
				return total;
			}
			cond_resched();
		} while (end != vma->vm_end);
	}
	numacore_scan_wrap(mm);
	return total;
}

/*
 * Do the task and the memory it works on agree, or can they come no
 * closer?  The task runs on its target node (or has none), or gave up
 * moving there, or failed to more than once (numacore_place_blocked()).
 * A private task's own window of faults shows its memory there (the
 * caller found nearly all of them placed; its decaying fault vector
 * would lag by a few passes after a migration).  A shared task's process
 * has all but one in NUMACORE_MISPLACED_RATIO of its faults on the
 * target node, or can gather no more there: its other node with most
 * faults runs as many of its threads, so the filter keeps the pages
 * there in place (a process with more threads than a node has CPUs
 * stays split).
 */
static bool numacore_placement_converged(struct task_struct *p,
					 struct numacore_task *nt)
{
	int node, target = numacore_target_node(nt), other = NUMA_NO_NODE;
	unsigned long f, all = 0, other_faults = 0;

	if (target == NUMA_NO_NODE)
		return true;
	/* A task that cannot move lets its memory follow: no more to wait for. */
	if (target != task_node(p))
		return numacore_place_gave_up(nt) || numacore_place_blocked(nt);
	if (!numacore_uses_group(nt))
		return true;
	for (node = 0; node < nr_node_ids; node++) {
		f = numacore_class_faults(nt, node);
		all += f;
		if (node != target && f > other_faults) {
			other_faults = f;
			other = node;
		}
	}
	if (numacore_class_faults(nt, target) * NUMACORE_MISPLACED_RATIO >=
	    all * (NUMACORE_MISPLACED_RATIO - 1))
		return true;
	return !numacore_process_leans_to(p, target, other);
}

/*
 * Defer the scan while @p has not run its grown period; the window's
 * faults are then spent.
 */
static bool numacore_scan_wait(struct task_struct *p,
			       struct numacore_task *nt, s64 ran)
{
	if (ran >= (s64)nt->scan_period_ms * NSEC_PER_MSEC)
		return false;
	numacore_window_reset(nt, task_node(p));
	return true;
}

/*
 * Did the window leave pages remote that the task's memory still has to
 * follow?  Misplaced ones; and shared pages the filter kept while the
 * task runs away from its target node (it gave up moving there, so its
 * memory is to come to it), when its process now runs more threads on
 * the task's node than there: a page kept while the process was split
 * moves once it is whole, not while it stays split.
 */
static bool numacore_window_left_to_place(struct task_struct *p,
					  const struct numacore_task *nt)
{
	int node = task_node(p), target = numacore_target_node(nt);

	if (nt->window_misplaced)
		return true;
	if (!nt->window_kept || target == node || target == NUMA_NO_NODE)
		return false;
	return numacore_process_leans_to(p, node, target);
}

/*
 * Adapt the scan period to the faults since the task last scanned:
 * - more than one in NUMACORE_MISPLACED_RATIO left its page remote: halve
 *   it, and scan;
 * - a migration failed: multiply it by NUMACORE_FAIL_BACKOFF, wait for it,
 *   then scan (the target node has no room: scanning faster would only
 *   repeat the faults);
 * - every fault, and at least NUMACORE_WINDOW_MIN_FAULTS, left its page
 *   local (it was, or it migrated): the pass placed all the memory it
 *   sampled, and a page it marked but the task did not touch yet stays
 *   marked until it does: go to scan_period_max_ms;
 * - (nearly) all left their page local: multiply it by NUMACORE_BACKOFF.
 * The scan waits while the grown period is not over: the memory it would
 * sample is where the task runs.  Shared pages the two-sample filter kept
 * in place are not the task's to place while it runs on its target node:
 * the period keeps growing at each expiry without a scan.  Pages left
 * remote for the task to place (numacore_window_left_to_place(), and
 * failed migrations) need another fault: the wait spends the window's
 * faults, so that the task scans once the grown period is over.  A task
 * that moved since its last scan, or took no fault since, has no such
 * evidence and scans (fault_done starts a new window on a new node).  At
 * scan_period_max_ms, while a pass over the mm is unfinished
 * (an mm larger than scan_size_mb), and while task and memory may still
 * come together (numacore_placement_converged()), the scan is never
 * deferred.
 *
 * Return: true if the scan is deferred.
 */
static bool numacore_scan_backoff(struct task_struct *p,
				  struct numacore_task *nt, s64 ran)
{
	unsigned int min = READ_ONCE(numacore_scan_period_min_ms);
	unsigned int max = READ_ONCE(numacore_scan_period_max_ms);
	unsigned int period = clamp(nt->scan_period_ms, min, max);

	if (task_node(p) != nt->window_node ||
	    !(nt->window_placed + nt->window_misplaced + nt->window_failed +
	      nt->window_kept))
		return false;
	if (nt->window_failed) {
		nt->scan_period_ms = min_t(unsigned int,
					   period * NUMACORE_FAIL_BACKOFF, max);
		return numacore_scan_wait(p, nt, ran);
	}
	if (numacore_window_misplaced(nt)) {
		nt->scan_period_ms = max_t(unsigned int, period / 2, min);
		return false;
	}
	/* Memory this pass did not reach yet is no evidence: finish it. */
	if (period >= max || READ_ONCE(p->mm->numa_scan_offset))
		return false;
	/* Placement needs fresh faults until task and memory agree. */
	if (!numacore_placement_converged(p, nt))
		return false;
	/* Every fault left its page local: the memory is where the task runs. */
	if (!nt->window_misplaced && !nt->window_kept &&
	    nt->window_nr >= NUMACORE_WINDOW_MIN_FAULTS)
		nt->scan_period_ms = max;
	else
		nt->scan_period_ms = min_t(unsigned int,
					   period * NUMACORE_BACKOFF, max);
	if (numacore_window_left_to_place(p, nt))
		return numacore_scan_wait(p, nt, ran);
	return ran < (s64)nt->scan_period_ms * NSEC_PER_MSEC;
}

/*
 * One scan step of the mm from its resume offset, unless another task
 * runs one: the claim holds the mm for the longest period (a scan step
 * takes far less), and the next scan is due @period after this one
 * ended, however long it took.
 */
static void numacore_scan_claim(struct mm_struct *mm, unsigned long next,
				unsigned int period)
{
	unsigned int max = READ_ONCE(numacore_scan_period_max_ms);
	unsigned long claim = jiffies + msecs_to_jiffies(max);

	if (cmpxchg(&mm->numa_next_scan, next,
		    claim | NUMACORE_SCAN_CLAIMED) != next)
		return;
	if (mmap_read_trylock(mm)) {
		unsigned long start = READ_ONCE(mm->numa_scan_offset), marked;
		u64 t0 = ktime_get_ns();

		numacore_stat_add(NUMACORE_STAT_SCANS, 1);
		marked = numacore_scan_mm(mm);
		mmap_read_unlock(mm);
		trace_numacore_scan(task_tgid_nr(current), start,
				    READ_ONCE(mm->numa_scan_offset),
				    marked, period, ktime_get_ns() - t0);
	}
	WRITE_ONCE(mm->numa_next_scan, (jiffies + msecs_to_jiffies(period)) &
				       ~NUMACORE_SCAN_CLAIMED);
}

/**
 * numacore_scan() - scan @p's mm if its scan period is over
 * @p: current, in task_work: may sleep
 * @nt: its state
 *
 * Return: true if it was @p's turn: it scanned, or its back-off deferred
 * the scan; false if its period is not over or another task has the mm.
 */
bool numacore_scan(struct task_struct *p, struct numacore_task *nt)
{
	u64 start = p->se.sum_exec_runtime;
	s64 ran = numacore_ran_ns(p, nt);
	unsigned long next;
	bool allowed;

	if (ran < numacore_scan_period_ns(nt, p->mm))
		return false;
	if (numacore_scan_backoff(p, nt, ran)) {
		numacore_stat_add(NUMACORE_STAT_SCANS_DEFERRED, 1);
		return true;
	}

	next = READ_ONCE(p->mm->numa_next_scan);
	allowed = numacore_mm_scan_allowed(p, nt);
	nt->node_stamp = start;
	/* Another task scans: the evidence grows until this one's turn. */
	if (!allowed)
		return false;
	/*
	 * The window spans the task's pass over the mm: a step that resumes
	 * a pass keeps it, since the step may cover none of the task's
	 * memory and an empty window would only call for another scan.
	 */
	if (!READ_ONCE(p->mm->numa_scan_offset))
		numacore_window_reset(nt, task_node(p));
	/* Only tasks that work on the marked memory space the mm's scans. */
	numacore_scan_claim(p->mm, next, numacore_works_on_mm(nt, p->mm) ?
			    numacore_scan_period(nt, p->mm) :
			    READ_ONCE(numacore_scan_period_min_ms));
	/* As stock 6.1: scanning costs the task at most 1/32 of its runtime. */
	nt->node_stamp += NUMACORE_SCAN_COST_FACTOR *
			  (p->se.sum_exec_runtime - start);
	return true;
}
