/* SPDX-License-Identifier: GPL-2.0 */
/*
 * numacore: the numa/core adaptive NUMA affinity policy, with balancenuma's
 * MORON as a baseline, implemented through <linux/numa_policy.h>.
 */
#ifndef _NUMACORE_H
#define _NUMACORE_H

#include <linux/numa_policy.h>
#include <linux/sched.h>
#include <linux/sched/topology.h>

#if !IS_ENABLED(CONFIG_NUMA_POLICY_HOOKS)
#error "numacore needs a kernel built with the hooks-patch series (CONFIG_NUMA_POLICY_HOOKS=y)"
#endif

/* params.c: module parameters, validated; read with READ_ONCE(). */
enum numacore_policy_kind {
	NUMACORE_POLICY_NUMACORE,
	NUMACORE_POLICY_MORON,
};

extern int numacore_policy;
extern unsigned int numacore_scan_period_min_ms;
extern unsigned int numacore_scan_period_max_ms;
extern unsigned int numacore_scan_size_mb;
extern unsigned int numacore_settle_count;
extern bool numacore_feat_faults_up;
extern bool numacore_feat_faults_down;
extern bool numacore_feat_settle;
extern bool numacore_feat_first_fault;
extern bool numacore_feat_task_follows;

int numacore_params_check(void);
void numacore_params_loaded(void);

static inline bool numacore_is_moron(void)
{
	return READ_ONCE(numacore_policy) == NUMACORE_POLICY_MORON;
}

/* stats.c: global counters and the debugfs files. */
enum numacore_stat {
	NUMACORE_STAT_SCANS,
	NUMACORE_STAT_SCANS_DEFERRED,
	NUMACORE_STAT_FULL_SCANS,
	NUMACORE_STAT_PAGES_MARKED,
	NUMACORE_STAT_HINT_FAULTS,
	NUMACORE_STAT_HINT_FAULTS_LOCAL,
	NUMACORE_STAT_HINT_FAULTS_HUGE,
	NUMACORE_STAT_PAGES_MIGRATED,
	NUMACORE_STAT_MIGRATE_FAILED,
	NUMACORE_STAT_MIGRATE_FILTERED,
	NUMACORE_STAT_MIGRATE_DEFERRED,
	NUMACORE_STAT_PLACE_ATTEMPTS,
	NUMACORE_STAT_TASK_MOVES,
	NUMACORE_STAT_TASK_SWAPS,
	NUMACORE_STAT_PLACE_NO_CAPACITY,
	NUMACORE_STAT_PLACE_NO_IMPROVEMENT,
	NUMACORE_STAT_PLACE_AFFINITY,
	NUMACORE_STAT_PLACE_BACKOFF,
	NUMACORE_STAT_MOVES_UNDONE,
	NUMACORE_STAT_LB_IMPROVES,
	NUMACORE_STAT_LB_DEGRADES,
	NUMACORE_STAT_EXEC_RESETS,
	NUMACORE_STAT_TASK_REGROUPS,
	NUMACORE_STAT_NR,
};

void numacore_stat_add(enum numacore_stat stat, long nr);
int numacore_stats_init(void);
void numacore_stats_exit(void);

/**
 * struct numacore_task - per-task policy state (kernel-freed, see
 * numa_policy_set_task_data())
 * @head: what the kernel needs to free the state
 * @exec_id: the task's self_exec_id when the state was (re)made
 * @node_stamp: task runtime (ns) at the task's last scan attempt
 * @scan_period_ms: current scan period, in task runtime
 * @scan_seq: mm scan sequence the fault vector was last decayed at
 * @first_seq: mm scan sequence when the state was allocated
 * @nr_faults: hinting faults the task took since the state was made,
 *	counted once each whatever their size, up to NUMACORE_MOVE_MIN_FAULTS
 * @migrate_seq: scan sequences since the task last changed node
 * @last_node: node the task ran on at its last tick
 * @preferred_node: node with most of the task's faults, or NUMA_NO_NODE
 * @group_node: node with most of its process's faults, or NUMA_NO_NODE
 * @shared: -1 unknown, 0 private, 1 shared working set
 * @fault_type: class of the fault in progress, set by fault_target from
 *	the faulting CPU and the page's previous task, or -1
 * @fault_node: node of the CPU the fault in progress was taken on
 * @fault_filtered: the fault in progress left its page in place because
 *	the previous sample came from another node (a shared page)
 * @window_node: node the task took the faults of the window on
 * @window_placed: hinting faults since the task last scanned that left
 *	the page local: on the task's node, or migrated there
 * @window_misplaced: hinting faults since the task last scanned that left
 *	the page remote (refused migrations)
 * @window_failed: hinting faults since the task last scanned whose
 *	migration failed (target node full, or pages busy)
 * @window_kept: hinting faults since the task last scanned on a remote
 *	page the two-sample filter kept in place (a shared page: neither
 *	placed nor misplaced)
 * @window_nr: hinting faults since the task last scanned, counted once
 *	each whatever their size
 * @place_next: jiffies before which no placement is tried (back-off)
 * @place_backoff_ms: current placement back-off
 * @placed_node: node the policy last moved the task to, or NUMA_NO_NODE
 * @faults: hinting faults in pages, [node * NUMACORE_FAULT_TYPES + type],
 *	then the process's faults per node (numacore_group_faults())
 */
struct numacore_task {
	struct numa_policy_task_data head;
	u64 exec_id;
	u64 node_stamp;
	unsigned int scan_period_ms;
	int scan_seq;
	int first_seq;
	unsigned int nr_faults;
	int migrate_seq;
	int last_node;
	int preferred_node;
	int group_node;
	int shared;
	int fault_type;
	int fault_node;
	bool fault_filtered;
	int window_node;
	unsigned long window_placed;
	unsigned long window_misplaced;
	unsigned long window_failed;
	unsigned long window_kept;
	unsigned int window_nr;
	unsigned long place_next;
	unsigned int place_backoff_ms;
	int placed_node;
	unsigned long faults[];
};

/*
 * Hinting faults, counted once each, before a task's fault vector tells
 * where its memory is: one fault on a huge page counts 512 pages, so a
 * page count alone can rest on a single fault.
 */
#define NUMACORE_MOVE_MIN_FAULTS	16

/* Start the scanner's back-off evidence afresh, for faults on @node. */
static inline void numacore_window_reset(struct numacore_task *nt, int node)
{
	nt->window_node = node;
	nt->window_placed = 0;
	nt->window_misplaced = 0;
	nt->window_failed = 0;
	nt->window_kept = 0;
	nt->window_nr = 0;
}

/*
 * Fault types: a fault on a page with no recorded last CPU says nothing
 * about sharing; it counts for the node only.
 */
#define NUMACORE_SHARED		0
#define NUMACORE_PRIVATE	1
#define NUMACORE_UNKNOWN	2
#define NUMACORE_FAULT_TYPES	3

static inline unsigned long *numacore_faults(struct numacore_task *nt,
					     int node, int type)
{
	return &nt->faults[node * NUMACORE_FAULT_TYPES + type];
}

static inline unsigned long numacore_node_faults(const struct numacore_task *nt,
						 int node)
{
	const unsigned long *f = &nt->faults[node * NUMACORE_FAULT_TYPES];

	return f[NUMACORE_SHARED] + f[NUMACORE_PRIVATE] + f[NUMACORE_UNKNOWN];
}

/* Why a hinting fault's page stays or moves (tracepoint numacore_fault). */
enum numacore_fault_reason {
	NUMACORE_FAULT_LOCAL,		/* already on the faulting node */
	NUMACORE_FAULT_MORON,		/* policy=moron: always moves */
	NUMACORE_FAULT_DEFERRED,	/* stays: its task is to move to it */
	NUMACORE_FAULT_FIRST,		/* first sample, first_fault: moves */
	NUMACORE_FAULT_FILTERED,	/* stays: previous sample elsewhere */
	NUMACORE_FAULT_TWO_SAMPLES,	/* moves: two samples from one node */
	NUMACORE_FAULT_SPLIT,		/* stays: its process runs as much there */
};

/* Placement outcomes besides -errno (tracepoint numacore_place). */
#define NUMACORE_PLACE_MOVED	0
#define NUMACORE_PLACE_SWAPPED	1
#define NUMACORE_PLACE_REGROUPED	2

/* The process's faults on @node, summed over its threads at each sequence. */
static inline unsigned long *numacore_group_faults(struct numacore_task *nt,
						   int node)
{
	return &nt->faults[nr_node_ids * NUMACORE_FAULT_TYPES + node];
}

/* Fault vector entries: per node and type, then per node for the group. */
#define NUMACORE_FAULT_SLOTS	(nr_node_ids * (NUMACORE_FAULT_TYPES + 1))

/*
 * The state of @p, or NULL: valid in @p's own callbacks, or under
 * rcu_read_lock() for a task found on the task list.
 */
static inline struct numacore_task *numacore_task(struct task_struct *p)
{
	struct numa_policy_task_data *head = numa_policy_task_data(p);

	return head ? container_of(head, struct numacore_task, head) : NULL;
}

struct numacore_task *numacore_task_get(struct task_struct *p);

/* NUMA_SETTLE: has the task stayed on one node for settle_count sequences? */
static inline bool numacore_settled(const struct numacore_task *nt)
{
	return !READ_ONCE(numacore_feat_settle) ||
	       nt->migrate_seq >= READ_ONCE(numacore_settle_count);
}

/* scan.c: runtime-paced PROT_NONE working set scanner. */
void numacore_task_tick(struct task_struct *curr);
bool numacore_scan(struct task_struct *p, struct numacore_task *nt);

/* fault.c: per-task fault vectors and private/shared classification. */
void numacore_fault_done(int last_cpu, int page_nid, int nr_pages, int flags);

/* migrate.c: migrate-on-fault decision. */
int numacore_fault_target(struct page *page, struct vm_area_struct *vma,
			  int cpu, int page_nid);

/* placement.c: preferred nodes, the task's target, load-balancer ordering. */
void numacore_placement_update(struct task_struct *p, struct numacore_task *nt);
void numacore_preferred_update(struct task_struct *p, struct numacore_task *nt);
int numacore_target_node(const struct numacore_task *nt);
bool numacore_uses_group(const struct numacore_task *nt);
unsigned long numacore_class_faults(struct numacore_task *nt, int node);
enum numa_policy_lb_verdict
numacore_can_migrate(struct task_struct *p, const struct numa_policy_lb_ctx *ctx);

/* move.c: moving a task to its target node within capacity, or swapping. */

/*
 * Pages wait for their task through placement back-offs shorter than
 * this; from it on (or at once when no task on the target node could
 * ever trade places), the memory follows the task instead.
 */
#define NUMACORE_PLACE_PATIENCE_MS	2000

/* Has @nt's task given up moving, so that its memory follows it? */
static inline bool numacore_place_gave_up(const struct numacore_task *nt)
{
	return READ_ONCE(nt->place_backoff_ms) >= NUMACORE_PLACE_PATIENCE_MS &&
	       time_before(jiffies, READ_ONCE(nt->place_next));
}

/*
 * Has @nt's task failed to move to its target node past its patience more
 * than once in a row (its back-off is reset only by a move)?  Then its
 * target node has no room for it that fresh faults could show: its
 * scanning backs off, and its placement retries at its (growing) turns.
 */
static inline bool numacore_place_blocked(const struct numacore_task *nt)
{
	return READ_ONCE(nt->place_backoff_ms) > NUMACORE_PLACE_PATIENCE_MS;
}

bool numacore_process_leans_to(struct task_struct *p, int node, int other);
bool numacore_task_follows_memory(struct task_struct *p,
				  struct numacore_task *nt, int node);
void numacore_place_check_held(struct task_struct *p, struct numacore_task *nt,
			       int node);
void numacore_place_task(struct task_struct *p, struct numacore_task *nt);

#endif /* _NUMACORE_H */
