#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_mfc_thp_never: THP never: memory follows CPU under policy=numacore, with no huge PMD hinting faults.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_mfc_thp never
nc_pass "THP never: converged"
