#!/bin/sh
# Install the pinned agent CLIs the tests run for real (codex, claude-code, gemini-cli, opencode, qwen-code, pi,
# kilocode, copilot) into agentguard's cache,
# never globally. Tests that need an agent skip with a printed reason when it is absent.
# Usage: scripts/install-test-agents.sh [NAME...]   (default: all). Cache root: $AGENTGUARD_AGENT_CACHE
# or ~/.cache/agentguard/agents. Re-running is cheap: an agent already at the pinned version is kept.
set -eu

cache="${AGENTGUARD_AGENT_CACHE:-${HOME:-/root}/.cache/agentguard/agents}"

pinned() {
  case "$1" in
    codex) echo "@openai/codex 0.169.0" ;;
    claude-code) echo "@anthropic-ai/claude-code 2.1.328" ;;
    gemini-cli) echo "@google/gemini-cli 0.61.0" ;;
    opencode) echo "opencode-ai 1.18.33" ;;
    qwen-code) echo "@qwen-code/qwen-code 0.24.4" ;;
    pi) echo "@mariozechner/pi-coding-agent 0.73.1" ;;
    kilocode) echo "@kilocode/cli 7.7.7" ;;
    copilot) echo "@github/copilot 1.0.102" ;;
    *) return 1 ;;
  esac
}

if ! command -v npm >/dev/null 2>&1; then
  echo "install-test-agents: npm is not installed. Fix: install Node.js 20 or newer, then re-run." >&2
  exit 2
fi

names="$*"
[ -n "$names" ] || names="codex claude-code gemini-cli opencode qwen-code pi kilocode copilot"

status=0
for name in $names; do
  if ! spec=$(pinned "$name"); then
    echo "install-test-agents: unknown agent '$name'. Fix: use one of: codex claude-code gemini-cli opencode qwen-code pi kilocode copilot." >&2
    exit 2
  fi
  pkg=${spec% *}
  version=${spec#* }
  dir="$cache/$name"
  manifest="$dir/node_modules/$pkg/package.json"
  if [ -f "$manifest" ] && node -e "process.exit(require(process.argv[1]).version===process.argv[2]?0:1)" "$manifest" "$version"; then
    echo "install-test-agents: $name $version already in $dir"
    continue
  fi
  mkdir -p "$dir"
  echo "install-test-agents: installing $pkg@$version into $dir"
  if npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "$pkg@$version"; then
    echo "install-test-agents: $name $version installed ($dir/node_modules/.bin)"
  else
    echo "install-test-agents: installing $pkg@$version failed (see npm's message above)." >&2
    status=1
  fi
done
exit $status
