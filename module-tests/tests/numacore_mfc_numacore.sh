#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_mfc_numacore: policy=numacore: memory that starts on the remote node follows the
# threads pinned to their node (>= 95% local).
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_mfc_converges numacore 95
nc_pass "memory followed the CPUs under policy=numacore"
