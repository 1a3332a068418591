#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_register_clears_preferred_nid: registering a policy clears the
# preferred node the kernel's own balancing chose for each task, so that
# the load balancer (fbq_type, find_idlest_group()) does not keep acting
# on it while the policy decides.  numa_mfc runs under stock balancing
# until one of its writer threads has numa_preferred_nid >= 0
# (/proc/PID/task/TID/sched); after insmod numa_hooktest every thread
# of the workload reads -1.
#

. "${0%/*}/lib/hooks.sh"

ht_setup
nc_need_nodes 2
nc_need_prog numa_mfc

# preferred PID: "tid nid" of every thread of PID
preferred() {
	for f in /proc/"$1"/task/*/sched; do
		awk -v f="$f" '$1 == "numa_preferred_nid" { split(f, p, "/"); print p[5], $3 }' "$f" 2>/dev/null
	done
}

nc_balancing_force 1
out=/tmp/hooks_pref.$$
numa_mfc --procs 1 --threads 2 --mb 32 --seconds 40 --start remote > "$out" 2>&1 &
mfc=$!
BG_PIDS=$mfc
nc_mfc_wait "$out" 1 $mfc
pid=$(nc_mfc_procs "$out" pid)
i=0
until preferred "$pid" | awk '$2 >= 0 { f = 1 } END { exit !f }'; do
	i=$((i + 1))
	[ $i -le 200 ] || { preferred "$pid"; nc_fail "stock balancing set no preferred node in 20 s"; }
	usleep 100000
done
nc_log "under stock balancing after $((i / 10)) s (tid nid):"
preferred "$pid"
insmod "$KO" || nc_fail "insmod numa_hooktest.ko failed"
after=$(preferred "$pid")
nc_log "after registration (tid nid):"
echo "$after"
rmmod numa_hooktest || nc_fail "rmmod numa_hooktest failed"
echo "$after" | awk '$2 != -1 { bad = 1 } END { exit bad }' ||
	nc_fail "a task kept the preferred node stock balancing chose"
[ -n "$after" ] || nc_fail "no thread of the workload to check"
nc_fail_on_splat
nc_log "PASS"
exit 0
