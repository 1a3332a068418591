#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A MAP_SHARED buffer used by two processes on one node migrates there
# (pages mapped by several processes are migratable, seed 008).
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_mfc_converges numacore 95 --map-shared
nc_pass "shared mapping migrated to its users' node"
