# SPDX-License-Identifier: GPL-2.0
"""report.py, stage 2 (metrics): the metrics of one run (report_parse.Run).

From the workload's own W lines, the sampler's P/N lines and the global
counters of its G lines: locality over time (series), start/final
locality, t90/t95, the settled window, counter deltas and rates.
analyse() returns them as a dict, None where a value is not measurable.
"""
import collections
import statistics

from report_parse import kv


def uses_own_locality(workload):
    """Per-slice shapes: threads of one process legitimately sit on
    different nodes, so only the workload's own per-slice figure (pages of
    each thread's slice on the node that thread runs on) is meaningful."""
    return any(workload.startswith(s) for s in ("numa01_THREAD_ALLOC", "numa02"))


def workload_lines(r):
    """The workload's own W lines: t0 (start of its write phase, its t_ms=0,
    in monotonic ms), per-sample per-process locality, results, cost lines."""
    t0 = None
    own = collections.defaultdict(dict)   # ms -> proc -> (local, present)
    results, cost = [], []
    for ms, text in r.wlines:
        f = text.split(" ")
        d = kv(f[1:])
        if f[0] == "sample" and "t_ms" in d:
            cand = ms - int(d["t_ms"])
            t0 = cand if t0 is None else min(t0, cand)
            np_ = [int(x) for x in d.get("node_pages", "").split(",") if x]
            present = sum(np_)
            own[ms][d.get("proc")] = (float(d["local_pct"]) * present / 100.0, present)
        elif f[0] == "result":
            results.append(d)
        elif f[0] == "cost":
            cost.append(d)
    return t0, own, results, cost


def writer_share(p, cpu_node, ms, last, change_ms):
    """CPU ticks per node of process p's writer threads since the previous
    sample.  Updates each thread's (node, ticks, ms) in last, and appends
    to change_ms, for each writer seen on another node than before, the
    interval (ms of its previous sample, ms) the change happened in."""
    share = collections.Counter()
    for tid, cpu, ticks in p["thr"]:
        node = cpu_node.get(cpu, -1)
        prev_node, prev_ticks, prev_ms = last.get(tid, (None, ticks, ms))
        dt = ticks - prev_ticks
        if tid == p["pid"]:
            # main thread: first touch (numa01) / sampling, not a writer
            last[tid] = (prev_node, ticks, ms)
            continue
        if tid not in last:
            last[tid] = (node, ticks, ms)
        elif dt > 0:
            share[node] += dt
            if prev_node != node:
                change_ms.append((prev_ms, ms))
            last[tid] = (node, ticks, ms)
        else:
            # did not run: still last seen on prev_node at prev_ms
            last[tid] = (prev_node, ticks, prev_ms)
    return share


def sampler_series(r, t0):
    """Locality from the sampler's view (numa_maps pages per node, weighted by
    where the writer threads spent CPU time since the previous sample).
    Returns (series, node change intervals (from, to) in ms); a series
    point is (t_s, locality %, local pages, present pages, [(pid, %)])."""
    series = []
    last = {}
    change_ms = []
    writers = {}        # pid -> most writer threads seen at once
    ending = False
    for ms in sorted(r.procs):
        tot_local = tot_pages = 0.0
        per = []
        for p in r.procs[ms]:
            pages = p["pages"]
            total = sum(pages)
            share = writer_share(p, r.cpu_node, ms, last, change_ms)
            ending = ending or writers_exiting(p, writers)
            if total < 4096:          # parent / exited process
                continue
            if not share:
                # no writer ran in this interval (starting or exiting): no
                # placement to judge for this process in this sample
                continue
            s = sum(share.values())
            local = sum(pages[n] * w / s for n, w in share.items() if 0 <= n < len(pages)) if s else 0
            tot_local += local
            tot_pages += total
            per.append((p["pid"], 100.0 * local / total))
        present = {p["pid"] for p in r.procs[ms]}
        ending = ending or any(n and pid not in present for pid, n in writers.items())
        if tot_pages and not ending:
            series.append(((ms - t0) / 1000.0, 100.0 * tot_local / tot_pages, tot_local, tot_pages, per))
    return series, change_ms


def writers_exiting(p, writers):
    """True once process p has fewer writer threads than it had: the write
    phase is ending.  The threads still running then are not the process's
    placement (on 4 nodes x 2 CPUs one numa01 process's last two writers
    can both be the remote pair of a 50 % split), so the series ends at the
    last sample before the first writer exits."""
    n = sum(1 for tid, _, _ in p["thr"] if tid != p["pid"])
    seen = writers.get(p["pid"], 0)
    writers[p["pid"]] = max(seen, n)
    return n < seen


def own_series(own, t0):
    """Locality from the workload's own per-slice figures: one point per
    sample round, with the latest value of every process."""
    series = []
    latest = {}
    for ms in sorted(own):
        latest.update(own[ms])
        loc = sum(v[0] for v in latest.values())
        pres = sum(v[1] for v in latest.values())
        if pres:
            series.append(((ms - t0) / 1000.0, 100.0 * loc / pres, loc, pres, []))
    return series


def locality_metrics(m, series):
    """Start/final locality, misplaced pages, t90/t95 from a series."""
    after = [s for s in series if s[0] >= 0]
    if not after:
        return
    m["misplaced0_pages"] = int(round(after[0][3] - after[0][2]))
    m["misplaced_end_pages"] = int(round(after[-1][3] - after[-1][2]))
    m["initial_pct"] = after[0][1]
    m["final_pct"] = after[-1][1]
    if after[-1][4]:
        m["final_min_task_pct"] = min(x[1] for x in after[-1][4])
    for thr in (90, 95):
        hit = [s[0] for s in after if s[1] >= thr]
        m["t%d" % thr] = hit[0] if hit else None


COUNTERS = ("numa_pte_updates", "numa_huge_pte_updates", "numa_hint_faults",
            "numa_hint_faults_local", "numa_pages_migrated", "pgmigrate_success",
            "nc_pages_marked", "nc_hint_faults", "nc_hint_faults_local",
            "nc_pages_migrated", "nc_task_moves", "nc_migrate_failed")


def rate_between(glob, key, ta, tb, min_ms=5000):
    """key's rate (/s) over the G samples in [ta, tb] (ms), and the window in
    s; (None, None) when the samples span less than min_ms."""
    pts = [(ms, g) for ms, g in glob if ta <= ms <= tb and key in g]
    if len(pts) < 2 or pts[-1][0] - pts[0][0] < min_ms:
        return None, None
    dt = (pts[-1][0] - pts[0][0]) / 1000.0
    return (pts[-1][1][key] - pts[0][1][key]) / dt, dt


SETTLE_BAND = 5.0   # locality points around the final value


def settled_metrics(m, r, t0, change_ms):
    """After convergence: from the first sample after which locality stays
    within SETTLE_BAND points of its final value (for an arm that reaches
    ~100 %, about t95; also defined for one that ends at 50 %) to the end of
    the write phase: task node changes and the PTE marking rate (/s, over
    >= 5 s, else not measured)."""
    after = [s_ for s_ in m["series"] if s_[0] >= 0]
    if not after:
        return
    final = after[-1][1]
    settled = after[-1][0]
    for s_ in reversed(after):
        if abs(s_[1] - final) > SETTLE_BAND:
            break
        settled = s_[0]
    ta, tb = t0 + settled * 1000, t0 + after[-1][0] * 1000
    m["settled_s"] = settled
    m["settled_window_s"] = after[-1][0] - settled
    # A change seen at a sample happened since the thread's previous one:
    # after convergence only if that whole interval is.
    m["node_changes_settled"] = sum(1 for a, b in change_ms if ta <= a and b <= tb)
    m["pte_rate_settled"], _ = rate_between(r.glob, "numa_pte_updates", ta, tb)


def counter_metrics(m, r, t0):
    """Counter deltas between the first G (before the workload) and the last
    (after it), guest system CPU share, PTE marking rate after t95."""
    if len(r.glob) < 2:
        return
    g0, g1 = r.glob[0][1], r.glob[-1][1]
    for k in COUNTERS:
        m[k] = g1[k] - g0[k] if k in g0 and k in g1 else None
    if "cpu" in g0 and "cpu" in g1:
        d = [b - a for a, b in zip(g0["cpu"], g1["cpu"])]
        tot = sum(d)
        m["sys_pct"] = 100.0 * (d[2] + d[5] + d[6]) / tot if tot else None
    # PTE marking rate after convergence: [t95, t95 + 15 s].
    if m.get("t95") is not None:
        ta = t0 + m["t95"] * 1000
        rate, window = rate_between(r.glob, "numa_pte_updates", ta, ta + 15000)
        if rate is not None:
            m["pte_rate_after95"], m["pte_rate_window_s"] = rate, window


def analyse(r):
    """Returns a dict of metrics (None = not measurable)."""
    t0, own, results, cost = workload_lines(r)
    if cost:
        return {"cost": cost}
    if t0 is None:
        return None
    m = {"t0": t0}
    own_final = [float(d["final_pct"]) for d in results if "final_pct" in d]
    m["own_final_pct"] = statistics.mean(own_final) if own_final else None
    bps = [int(d.get("bytes_per_s", 0)) for d in results]
    m["bytes_per_s"] = sum(bps) if bps else None
    m["procs_ok"] = len(results)
    series, change_ms = sampler_series(r, t0)
    m["node_changes"] = len(change_ms)
    if uses_own_locality(r.workload):
        series = own_series(own, t0)
        m["locality_source"] = "workload"
    else:
        m["locality_source"] = "numa_maps"
    m["series"] = series
    locality_metrics(m, series)
    counter_metrics(m, r, t0)
    settled_metrics(m, r, t0, change_ms)
    return m


def analyse_all(runs):
    """The metrics of every run, keyed as runs (None: the run printed no
    sampler output)."""
    return collections.OrderedDict((key, analyse(r) if r.seen else None) for key, r in runs.items())
