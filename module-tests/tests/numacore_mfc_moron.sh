#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# policy=moron: every misplaced page migrates to the referencing node.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_mfc_converges moron 95
nc_pass "memory followed the CPUs under policy=moron"
