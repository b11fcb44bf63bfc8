import { ACTION_VARIABLES, type ActionSource, LOCAL_ACTION_PATH } from './action-source.js';
import type { ProjectFacts } from './detect-project.js';
import type { PathPolicy } from './path-policy.js';
import { observationLines, pathLines, secretLines, testCommandLines } from './render-config.js';

/** The commented `.agentguard.yaml` for `agentguard ci`: the policy only, no task and no agent. */
export function renderCiConfig(opts: { facts: ProjectFacts; paths: PathPolicy; schemaRef: string }): string {
  const languages = opts.facts.languages.length > 0 ? opts.facts.languages.join(', ') : 'nothing recognised';
  return `${[
    `# yaml-language-server: $schema=${opts.schemaRef}`,
    `# agentguard CI policy written by 'agentguard init --ci' (found: ${languages}).`,
    '# `agentguard ci` judges the changes in this checkout (a pull request) with it; see docs/ci.md.',
    '# A CI config has no task and no agent: those keys are refused. `agentguard schema ci` prints its JSON Schema.',
    ...testCommandLines(opts.facts),
    'test_timeout_seconds: 300',
    ...pathLines(opts.paths),
    ...secretLines(),
    ...observationLines(),
    "# Files of the pull request that hold the agent's own command logs (JSON lines), e.g.:",
    '# agent_logs: [".agent/**/*.jsonl"]',
  ].join('\n')}\n`;
}

/**
 * A GitHub workflow running the composite action (action.yml) on every pull request. The action
 * installs and builds agentguard itself; the job adds the sandbox and the tracer's packages.
 */
export function renderWorkflow(opts: { action: ActionSource; configFile: string }): string {
  const { repository, ref } = ACTION_VARIABLES;
  const uses =
    opts.action.kind === 'variables'
      ? [
          "      # agentguard's action, from the repository variables (a `uses:` cannot read one).",
          `      - name: ${repository} and ${ref} must be set`,
          `        if: vars.${repository} == '' || vars.${ref} == ''`,
          `        run: echo "::error::set the repository variables ${repository} (OWNER/REPO holding agentguard's action.yml) and ${ref} (a tag or commit)" && exit 1`,
          '      - uses: actions/checkout@v4',
          '        with:',
          `          repository: \${{ vars.${repository} }}`,
          `          ref: \${{ vars.${ref} }}`,
          `          path: ${LOCAL_ACTION_PATH}`,
          `      - uses: ./${LOCAL_ACTION_PATH}`,
        ]
      : [`      - uses: ${opts.action.ref}`];
  return `# Written by 'agentguard init --ci': judge each pull request's changes by evidence (docs/ci.md).
name: agentguard
on: pull_request
permissions:
  contents: read
  security-events: write # report.sarif goes to code scanning
jobs:
  judge:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0 # the base commit must be in the clone
      - run: sudo apt-get update && sudo apt-get install -y bubblewrap strace
      # Install the project's dependencies here: the tests run sandboxed, without network.
${uses.join('\n')}
        with:
          base: \${{ github.event.pull_request.base.sha }}
          config: ${opts.configFile}
          # args: --tracer strace
          # allow-failures: 'true'
`;
}
