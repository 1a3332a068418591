#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# THP always: memory follows CPU under policy=numacore, with huge PMD hinting faults.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
THP=/sys/kernel/mm/transparent_hugepage/enabled
[ -w $THP ] || nc_skip "no THP sysfs"
old=$(sed 's/.*\[\(.*\)\].*/\1/' $THP)
echo always > $THP || nc_fail "cannot set THP always"
trap 'echo $old > $THP' EXIT
nc_mfc_converges numacore 95
huge=$(nc_delta hint_faults_huge)
[ "${huge:-0}" -gt 0 ] || nc_fail "THP always: hint_faults_huge delta $huge"
nc_pass "THP always: converged, hint_faults_huge delta $huge"
