#!/bin/sh
# Live reload: check the module loads, then ping the local reload server and trigger a rebuild.
set -u
node -e "import('./src/duration.js').then((m) => console.log('live-reload: module ok', typeof m.parseDuration))"
# The reload server the dev session runs on loopback.
python3 -c "
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', 4460)); s.listen(1); s.settimeout(10)
c, _ = s.accept(); c.sendall(b'pong\n'); c.close()
" &
sleep 1
# The client: ask the server, then run the rebuild command (a plain sh -c).
python3 -c "
import socket, subprocess
c = socket.create_connection(('127.0.0.1', 4460)); print('live-reload: server said', c.recv(10).decode().strip()); c.close()
subprocess.run(['sh', '-c', 'echo live-reload: rebuilt'], check=True)
"
wait
echo "live-reload: attached"
