#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_mfc_thp_always: THP always: memory follows CPU under policy=numacore, with huge PMD hinting faults.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_mfc_thp always
nc_pass "THP always: converged"
