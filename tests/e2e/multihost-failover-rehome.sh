#!/bin/bash
# multihost-failover-rehome.sh - multihost-failover.sh while categories
# move between the hosts (rehome.sh's settings): handoffs from the dying
# host are abandoned and rebuilt too.
MH_REHOME=1 exec bash "$(dirname "$0")/multihost-failover.sh"
