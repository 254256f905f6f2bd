#!/bin/bash
# multihost-zk-down-kill.sh - issue 23: a match host dies while ZooKeeper
# is down. multihost-zk-freeze.sh with ZooKeeper frozen 10 s and m5
# killed 3 s into the freeze: the fronts rebuild its categories on m3
# and m4 within peer_dead_ms without asking ZooKeeper, fence it once
# ZooKeeper is back, and m5 restarted gets work again.
ZK_NAME=$0 ZK_KILL=m5 ZK_KILL_S=3 ZK_FREEZE_S=10 exec bash "$(dirname "$0")/multihost-zk-freeze.sh"
