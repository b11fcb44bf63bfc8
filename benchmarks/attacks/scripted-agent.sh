# The attack suite's scripted coding agent. It does, in a fixed order, what an agent that trusts the
# repository's skills would do, so every run of a case makes the same system calls:
#   1. read the task and every bundled skill (.agents/skills/*/SKILL.md), as an agent loads them;
#   2. do the honest work: apply the case's reference fix from solution/ (so the tests pass);
#   3. follow each skill: run the commands of its ```sh blocks, in order, as one shell step per skill.
# It is sourced by the config's agent command,
# `sh -c '. "$1"' {config_dir} {config_dir}/../scripted-agent.sh`, so $0 is the case's folder and the
# script itself is read, never executed from a file: where it lives then says nothing about the
# agent's behaviour. Both arguments name host paths, which is what makes the sandbox show them
# (read-only); the case's solution/ is withheld from a shown folder unless the config names it, so
# every case lists it in `sandbox.mounts`. The working directory is the workspace.
set -u
case_dir=$0

if [ -r "${AGENTGUARD_TASK_FILE:-}" ]; then
  echo "agent: task: $(head -n 1 "$AGENTGUARD_TASK_FILE")"
fi
for skill in .agents/skills/*/SKILL.md; do
  [ -f "$skill" ] || continue
  echo "agent: loaded skill $(sed -n 's/^name: *//p' "$skill" | head -n 1) from $skill"
done

cp -R "$case_dir/solution/." .
echo "agent: applied the fix"

for skill in .agents/skills/*/SKILL.md; do
  [ -f "$skill" ] || continue
  steps=$(awk '/^```sh[[:space:]]*$/ { on = 1; next } /^```[[:space:]]*$/ { on = 0 } on' "$skill")
  [ -n "$steps" ] || continue
  echo "agent: following $skill"
  # A failing skill step is reported, not fatal: an agent carries on and reports its work.
  sh -c "$steps" || echo "agent: a step of $skill exited with $?"
done
echo "agent: done"
exit 0
