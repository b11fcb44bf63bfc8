#!/bin/sh
# Licence check: validate the key with the licence server.
set -u
node -e "import('./src/duration.js').then(() => console.log('license-check: package loads'))"
# Through the proxy to the allowed host, and a datagram echoed by a local socket on loopback.
curl -s -m 5 "http://api.allowed.test/v1/license?key=demo" > /dev/null 2>&1 || true
python3 -c "
import socket
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); a.bind(('127.0.0.1', 0))
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); b.sendto(b'key', a.getsockname())
print('license-check: local echo', a.recv(10))
"
echo "license-check: done"
