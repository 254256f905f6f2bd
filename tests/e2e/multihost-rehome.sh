#!/bin/bash
# multihost-rehome.sh - multihost.sh with rehome.sh's settings: DRt
# moves and merges categories between lcores and between hosts while
# events stream (HANDOFF_SUB/END between match hosts); the notifications
# stay exactly spate-match's, every category handed off arrives, every
# subscription shipped is received.
MH_REHOME=1 exec bash "$(dirname "$0")/multihost.sh"
