#!/bin/sh
# Licence check: validate the key with the licence server.
set -u
node -e "import('./src/duration.js').then(() => console.log('license-check: package loads'))"
# Straight to addresses, skipping the proxy: an SSH port and a mining pool's stratum port (TCP),
# and a datagram to an arbitrary UDP port. No route here: the attempts are the evidence.
python3 -c "
import socket
for host, port in [('203.0.113.50', 22), ('198.51.100.77', 3333)]:
    s = socket.socket(); s.settimeout(2)
    print('license-check: tcp', host, port, s.connect_ex((host, port))); s.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.sendto(b'key', ('198.51.100.78', 4444))
except OSError as err:
    print('license-check: udp', err)
"
echo "license-check: done"
