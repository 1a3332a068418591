/* SPDX-License-Identifier: GPL-2.0 */
/*
 * numacore tracepoints (tracefs events/numacore/):
 *
 * numacore_scan      one scan step of the mm of process tgid: the range
 *                    walked (end=0: the pass reached the end of the mm),
 *                    the PTEs marked, the period that follows, how long
 *                    the step took
 * numacore_fault     the node chosen for a hinting fault, and why
 * numacore_place     a task placement attempt and its outcome
 * numacore_class     a task's private/shared class changed
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM numacore

#if !defined(_NUMACORE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NUMACORE_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(numacore_scan,
	TP_PROTO(pid_t tgid, unsigned long start, unsigned long end,
		 unsigned long marked, unsigned int period_ms, u64 duration_ns),
	TP_ARGS(tgid, start, end, marked, period_ms, duration_ns),
	TP_STRUCT__entry(
		__field(pid_t, tgid)
		__field(unsigned long, start)
		__field(unsigned long, end)
		__field(unsigned long, marked)
		__field(unsigned int, period_ms)
		__field(u64, duration_ns)
	),
	TP_fast_assign(
		__entry->tgid = tgid;
		__entry->start = start;
		__entry->end = end;
		__entry->marked = marked;
		__entry->period_ms = period_ms;
		__entry->duration_ns = duration_ns;
	),
	TP_printk("tgid=%d start=0x%lx end=0x%lx marked=%lu period_ms=%u duration_ns=%llu",
		  __entry->tgid, __entry->start, __entry->end, __entry->marked,
		  __entry->period_ms, __entry->duration_ns)
);

/* The "reason" values, for user space to decode (numacore.h). */
TRACE_DEFINE_ENUM(NUMACORE_FAULT_LOCAL);
TRACE_DEFINE_ENUM(NUMACORE_FAULT_MORON);
TRACE_DEFINE_ENUM(NUMACORE_FAULT_DEFERRED);
TRACE_DEFINE_ENUM(NUMACORE_FAULT_FIRST);
TRACE_DEFINE_ENUM(NUMACORE_FAULT_FILTERED);
TRACE_DEFINE_ENUM(NUMACORE_FAULT_TWO_SAMPLES);
TRACE_DEFINE_ENUM(NUMACORE_FAULT_SPLIT);

TRACE_EVENT(numacore_fault,
	TP_PROTO(int page_nid, int cpu_nid, int target_nid, int type,
		 int reason),
	TP_ARGS(page_nid, cpu_nid, target_nid, type, reason),
	TP_STRUCT__entry(
		__field(int, page_nid)
		__field(int, cpu_nid)
		__field(int, target_nid)
		__field(int, type)
		__field(int, reason)
	),
	TP_fast_assign(
		__entry->page_nid = page_nid;
		__entry->cpu_nid = cpu_nid;
		__entry->target_nid = target_nid;
		__entry->type = type;
		__entry->reason = reason;
	),
	TP_printk("page_nid=%d cpu_nid=%d target_nid=%d type=%s reason=%s",
		  __entry->page_nid, __entry->cpu_nid, __entry->target_nid,
		  __print_symbolic(__entry->type,
				   { NUMACORE_SHARED, "shared" },
				   { NUMACORE_PRIVATE, "private" },
				   { NUMACORE_UNKNOWN, "unknown" }),
		  __print_symbolic(__entry->reason,
				   { NUMACORE_FAULT_LOCAL, "local" },
				   { NUMACORE_FAULT_MORON, "moron" },
				   { NUMACORE_FAULT_DEFERRED, "task_follows" },
				   { NUMACORE_FAULT_FIRST, "first_fault" },
				   { NUMACORE_FAULT_FILTERED, "filtered" },
				   { NUMACORE_FAULT_TWO_SAMPLES, "two_samples" },
				   { NUMACORE_FAULT_SPLIT, "split" }))
);

TRACE_EVENT(numacore_place,
	TP_PROTO(struct task_struct *p, int src_nid, int dst_nid, int ret),
	TP_ARGS(p, src_nid, dst_nid, ret),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(int, src_nid)
		__field(int, dst_nid)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->pid = p->pid;
		__entry->src_nid = src_nid;
		__entry->dst_nid = dst_nid;
		__entry->ret = ret;
	),
	TP_printk("pid=%d src_nid=%d dst_nid=%d outcome=%s", __entry->pid,
		  __entry->src_nid, __entry->dst_nid,
		  __print_symbolic(__entry->ret,
				   { NUMACORE_PLACE_MOVED, "moved" },
				   { NUMACORE_PLACE_SWAPPED, "swapped" },
				   { NUMACORE_PLACE_REGROUPED, "regrouped" },
				   { -EPERM, "affinity" },
				   { -ENOSPC, "no_capacity" },
				   { -EBUSY, "no_improvement_anchored" },
				   { -ESRCH, "no_improvement" }))
);

TRACE_EVENT(numacore_class,
	TP_PROTO(struct task_struct *p, int old, int new),
	TP_ARGS(p, old, new),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(int, old)
		__field(int, new)
	),
	TP_fast_assign(
		__entry->pid = p->pid;
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("pid=%d old=%s new=%s", __entry->pid,
		  __print_symbolic(__entry->old, { -1, "unknown" },
				   { 0, "private" }, { 1, "shared" }),
		  __print_symbolic(__entry->new, { -1, "unknown" },
				   { 0, "private" }, { 1, "shared" }))
);

#endif /* _NUMACORE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE numacore_trace
#include <trace/define_trace.h>
