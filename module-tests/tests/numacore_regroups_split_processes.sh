#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_regroups_split_processes: policy=numacore makes two split
# processes whole.  Two processes, 2 threads each on one shared buffer,
# both buffers first touched on node 0, on 2 nodes x 2 CPUs: the threads
# start spread over both nodes, so each node may run one thread of each
# process, and every thread on node 0 already runs next to its memory.
# Every process must end on one node with >= 95% of its buffer there.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
. "${0%/*}/lib/placement.sh"
nc_need_nodes 2
nc_numa01_gathers 2 --touch-node 0
nc_pass "both processes whole, each on the node of its buffer"
