#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_classifies_private: threads that each write their own slice of a buffer are reported private.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_classify private
nc_pass "per-thread slices classified private"
