#!/usr/bin/env python3
"""notify-listen.py SOCKET OUT [SECONDS]: systemd's side of the notify
protocol (sd_notify(3)) for tests: binds a datagram socket at SOCKET
and appends each message to OUT as one JSON line {"t": monotonic
seconds, "msg": text}, until killed or SECONDS (default 120) passed."""
import json
import os
import socket
import sys
import time

path, out = sys.argv[1], sys.argv[2]
limit = float(sys.argv[3]) if len(sys.argv) > 3 else 120.0
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
if os.path.exists(path):
    os.unlink(path)
s.bind(path)
os.chmod(path, 0o777)  # a service running as another user may send too
end = time.monotonic() + limit
with open(out, "a", buffering=1) as f:
    while time.monotonic() < end:
        s.settimeout(max(0.05, end - time.monotonic()))
        try:
            data = s.recv(4096)
        except socket.timeout:
            continue
        f.write(json.dumps({"t": time.monotonic(), "msg": data.decode()}) + "\n")
