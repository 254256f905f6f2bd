#!/bin/bash
# multihost-lossy.sh - multihost-rehome.sh with 10 % of the inter-host
# frames dropped each way (spated.peer_drop_ppm; this kernel has no
# sch_netem): the channels retransmit, every category handoff between
# hosts arrives whole, category state converges and the notifications
# stay exactly spate-match's.
MH_LOSS=10 MH_REHOME=1 exec bash "$(dirname "$0")/multihost.sh"
