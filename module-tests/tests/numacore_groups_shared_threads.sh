#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_groups_shared_threads: policy=numacore gathers the threads that share memory (numa01 shape):
# one process per node, each with 2 threads writing its one buffer,
# nothing bound.  Every process ends on one node with >= 95% of its
# buffer there.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
. "${0%/*}/lib/placement.sh"
nc_need_nodes 2
nc_numa01_gathers "$(nc_nodes_online)"
nc_pass "each process's threads gathered on the node of its memory"
