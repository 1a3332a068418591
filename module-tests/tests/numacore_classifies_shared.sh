#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_classifies_shared: threads that all write one common buffer are reported shared.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_classify shared --shared
nc_pass "common buffer classified shared"
