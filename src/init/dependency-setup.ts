/** What init writes so that the dependencies are installed and the tests find them. */
export type DependencySetup = {
  /** `setup.dependencies` entries, as objects the YAML writer quotes. */
  entries: Record<string, string | string[]>[];
  /** The test command, changed to run where setup installs (a venv, corepack's client, `src/`). */
  test_command: string[] | null;
  /** What is missing or left to the user, each with how to get it: written as comments and printed. */
  notes: string[];
  /** Variables of this machine the installs need (its TLS trust, corepack's registry): names only. */
  environment: string[];
  /** Interpreters under the user's HOME (pyenv, a venv's base) the sandbox must show read-only. */
  toolchains: string[];
};
