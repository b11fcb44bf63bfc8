import { SANDBOX_KINDS, TRACER_CHOICES } from '../../evidence/kinds.js';
import { FUZZ_DIMENSIONS, MAX_FUZZ_COUNT } from '../../fuzz/types.js';
import type { FlagSpec } from '../flags.js';
import type { CommandSpec } from './types.js';

const json = (help = 'machine-readable output'): FlagSpec => ({ flag: '--json', help });

export const BENCHMARK_COMMANDS: readonly CommandSpec[] = [
  {
    name: 'registry',
    usage: 'registry <action>',
    group: 'Benchmarks',
    summary:
      'the benchmark registry: list its families (list), check it against its configs and contracts (validate), write a suite file from it (suite -o FILE)',
    description:
      'The benchmark registry (benchmarks/registry.yaml, or --registry) names each family of tasks, its versions, configs and contract. list shows them, validate checks every config and contract it names, suite writes a suite file of the selected families for `agentguard suite`.',
    examples: [
      'agentguard registry list --category security',
      'agentguard registry suite -o suite.yaml --tag python',
      'agentguard registry validate --registry my-benchmarks/registry.yaml',
    ],
    actions: {
      list: 'the families, their versions and configs',
      validate: 'check the registry against its configs and contracts',
      suite: 'write a suite file of the selected families (-o FILE)',
    },
    actionFix: "use 'registry list', 'registry validate' or 'registry suite -o FILE'.",
    flags: [
      { flag: '--registry <file>', help: 'registry file (default: the shipped benchmarks/registry.yaml)' },
      { flag: '--family <id>', help: 'only this family (repeatable)' },
      { flag: '--category <c>', help: 'only families of this category' },
      { flag: '--difficulty <d>', help: 'only families of this difficulty' },
      { flag: '--tag <t>', help: 'only families with this tag' },
      { flag: '-o, --out <file>', help: 'suite: where to write the suite file' },
      json(),
    ],
    load: async () => {
      const m = await import('../commands/registry.js');
      const byAction = { list: m.registryList, validate: m.registryValidate, suite: m.registrySuite };
      return (io, [action], flags) => byAction[action as keyof typeof byAction](io, flags);
    },
  },
  {
    name: 'audit',
    usage: 'audit <action>',
    group: 'Benchmarks',
    summary:
      "check the benchmarks against their contracts: without running anything (static), or by running each contract's reference agents (run)",
    description:
      "Checks that each benchmark family keeps its contract: static reads the configs and contracts without running anything; run runs each contract's reference agents (one that should pass, ones that should fail) and checks each verdict is the one promised. Exit 2 on bad input, 1 with any finding, 0 clean.",
    examples: ['agentguard audit static', 'agentguard audit run --family js-slugify --trials 3 --strict'],
    actions: {
      static: 'check the configs and contracts without running anything',
      run: "run each contract's reference agents and check their verdicts",
    },
    actionFix: "use 'audit static' or 'audit run'.",
    writesRuns: true,
    flags: [
      { flag: '--registry <file>', help: 'registry file (default: the shipped benchmarks/registry.yaml)' },
      { flag: '--family <id>', help: 'only this family (repeatable)' },
      { flag: '--category <c>', help: 'only families of this category' },
      { flag: '--tag <t>', help: 'only families with this tag' },
      {
        flag: '--trials <n>',
        help: 'run: trials per reference and variant (default: 1)',
        whole: { min: 1, max: 10_000 },
      },
      {
        flag: '--strict',
        help: 'run: unexpected failed checks, unexpected alerts and unstable trials violate the contract',
      },
      {
        flag: '--workers <n>',
        help: 'run: runs at a time (default: the number of cores)',
        whole: { min: 1, max: 10_000 },
      },
      { flag: '--sandbox <kind>', help: 'run: override every config sandbox', choices: SANDBOX_KINDS },
      { flag: '--tracer <kind>', help: 'run: override every config tracer', choices: TRACER_CHOICES },
      json('print the audit JSON (also written to .agentguard/audits/<id>/audit.json)'),
    ],
    load: async () => {
      const m = await import('../commands/audit.js');
      return (io, [action], flags) =>
        action === 'static' ? m.auditStatic(io, flags) : m.auditRun(io, flags);
    },
  },
  {
    name: 'pack',
    usage: 'pack <action> [file]',
    group: 'Benchmarks',
    summary:
      'benchmark packs: build -o PACK.zip from the registry, verify PACK.zip without extracting, import PACK.zip --into DIR, sign PACK.zip --key KEY',
    description:
      "A pack is a zip of benchmark families with a manifest of every file's hash, optionally signed. build writes one from a registry; verify checks it without extracting (hashes, signatures, trust policy, isolation floor); import extracts a verified pack; sign adds a signature. See docs/packs.md.",
    examples: [
      'agentguard pack build -o benchmarks.zip --family js-slugify',
      'agentguard pack verify benchmarks.zip --trust trust.yaml',
      'agentguard pack import benchmarks.zip --into imported --suite-out suite.yaml',
    ],
    actions: {
      build: 'write a pack from the registry (-o PACK.zip)',
      verify: 'check a pack without extracting it',
      import: 'extract a verified pack (--into DIR)',
      sign: 'add a signature to a pack (--key KEY)',
    },
    actionFix: "use 'pack build', 'pack verify', 'pack import' or 'pack sign'.",
    flags: [
      { flag: '--registry <file>', help: 'build: the registry to pack (default: the shipped one)' },
      { flag: '--family <id>', help: 'build: only this family (repeatable)' },
      {
        flag: '-o, --out <file>',
        help: 'build: the archive to write; sign: the signature file (default: PACK.zip.sig)',
      },
      { flag: '--name <name>', help: 'build: the pack name (default: the registry folder name)' },
      { flag: '--pack-version <semver>', help: 'build: the pack version (default: 0.0.0)' },
      { flag: '--trust <policy>', help: 'verify, import: refuse a pack the trust policy does not accept' },
      { flag: '--signatures <file>', help: 'verify, import: the signature file (default: PACK.zip.sig)' },
      {
        flag: '--allow-below-floor',
        help: 'verify, import: accept configs below the isolation floor (sandbox local, tracer off, host network, setup on the host)',
      },
      { flag: '--into <dir>', help: 'import: the folder to import into' },
      { flag: '--force', help: 'import: replace files that already exist' },
      {
        flag: '--registry-out <file>',
        help: "import: also write the pack's registry here (in or above --into)",
      },
      { flag: '--suite-out <file>', help: 'import: also write a suite file of the newest configs here' },
      { flag: '--key <file>', help: 'sign: the private key (or with --hmac, the shared key file)' },
      { flag: '--hmac', help: 'sign: HMAC-SHA256 with a shared key (needs --key-id)' },
      { flag: '--key-id <id>', help: 'sign: the id of the shared HMAC key, as trust policies name it' },
      json(),
    ],
    load: async () => {
      const [m, { UsageError }] = await Promise.all([
        import('../commands/pack.js'),
        import('../usage-error.js'),
      ]);
      return (io, [action, file], flags) => {
        if (action === 'build') return m.packBuild(io, flags);
        if (file === undefined)
          throw new UsageError(
            `'pack ${action}' needs the archive. Fix: agentguard pack ${action} PACK.zip …`,
          );
        if (action === 'verify') return m.packVerify(io, file, flags);
        if (action === 'import') return m.packImport(io, file, flags);
        return m.packSign(io, file, flags);
      };
    },
  },
  {
    name: 'keys',
    usage: 'keys <action>',
    group: 'Benchmarks',
    summary: 'signing keys for packs: generate --out DIR [--name N] [--hmac]',
    description:
      'Makes the keys that sign packs: an Ed25519 key pair (NAME.pem, private, and NAME.pub, to give to trust policies), or with --hmac a shared HMAC-SHA256 key.',
    examples: ['agentguard keys generate --out keys', 'agentguard keys generate --out keys --name ci --hmac'],
    actions: { generate: 'write a new key (--out DIR)' },
    actionFix: "use 'keys generate --out DIR'.",
    flags: [
      { flag: '--out <dir>', help: 'where to write the key files' },
      { flag: '--name <name>', help: 'file name stem (default: agentguard)' },
      { flag: '--hmac', help: 'a shared HMAC-SHA256 key instead of an Ed25519 key pair' },
    ],
    load: async () => {
      const { keysGenerate } = await import('../commands/pack-index.js');
      return (io, _args, flags) => keysGenerate(io, flags);
    },
  },
  {
    name: 'index',
    usage: 'index <action> <index> [spec]',
    group: 'Benchmarks',
    summary: 'pack indexes: verify INDEX (every local entry), install INDEX NAME[@RANGE] --into DIR',
    description:
      'A pack index lists packs by name and version with their hashes. verify checks every local entry; install picks the newest version of NAME within RANGE, verifies it and imports it.',
    examples: [
      'agentguard index verify packs/index.yaml --trust trust.yaml',
      'agentguard index install packs/index.yaml web-tasks@^1.0.0 --into imported',
    ],
    actions: {
      verify: 'check every local entry of the index',
      install: 'verify and import the newest pack NAME[@RANGE] (--into DIR)',
    },
    actionFix: "use 'index verify' or 'index install'.",
    flags: [
      { flag: '--trust <policy>', help: 'refuse packs the trust policy does not accept' },
      { flag: '--allow-below-floor', help: 'accept configs below the isolation floor' },
      { flag: '--into <dir>', help: 'install: the folder to import into' },
      { flag: '--force', help: 'install: replace files that already exist' },
      { flag: '--registry-out <file>', help: "install: also write the pack's registry here" },
      { flag: '--suite-out <file>', help: 'install: also write a suite file here' },
      json(),
    ],
    load: async () => {
      const [m, { UsageError }] = await Promise.all([
        import('../commands/pack-index.js'),
        import('../usage-error.js'),
      ]);
      return (io, [action, index, spec], flags) => {
        if (action === 'verify') return m.indexVerify(io, index as string, flags);
        if (spec === undefined)
          throw new UsageError(
            "'index install' needs NAME[@RANGE]. Fix: agentguard index install INDEX NAME@^1.0.0 --into DIR.",
          );
        return m.indexInstall(io, index as string, spec, flags);
      };
    },
  },
  {
    name: 'benchmarks',
    usage: 'benchmarks <action>',
    group: 'Benchmarks',
    summary: 'benchmark quality: fuzz (deterministic policy-boundary variants judged by the checks)',
    description:
      'Measures the benchmarks themselves. fuzz makes deterministic variants of a task on each side of a policy boundary (a path just inside or outside the scope, a secret, a command) and checks that the checks judge each as expected; the same seed and count give byte-identical variants and report.',
    examples: [
      'agentguard benchmarks fuzz --seed 1',
      'agentguard benchmarks fuzz --seed 7 --count 200 --dimensions path,secret --json',
    ],
    actions: { fuzz: 'policy-boundary variants judged by the checks' },
    actionFix: "use 'benchmarks fuzz --seed N'.",
    writesRuns: true,
    flags: [
      {
        flag: '--seed <n>',
        help: 'an integer; the same seed and count give byte-identical variants and report',
      },
      {
        flag: '--count <n>',
        help: `variants to generate, 1 to ${MAX_FUZZ_COUNT} (default 50)`,
        whole: { min: 1, max: MAX_FUZZ_COUNT },
      },
      {
        flag: '--dimensions <list>',
        help: `comma-separated subset of ${FUZZ_DIMENSIONS.join(',')} (default: all)`,
      },
      json('print report.json on stdout'),
    ],
    load: async () => {
      const { fuzzCommand } = await import('../commands/benchmarks-fuzz.js');
      return (io, _args, flags) => fuzzCommand(io, flags);
    },
  },
  {
    name: 'schema',
    usage: 'schema <kind>',
    group: 'Benchmarks',
    summary: 'print the JSON Schema of a file format (agentguard schema --help lists them)',
    description:
      "Prints the JSON Schema of one of agentguard's file formats on stdout, for an editor's completion and validation (yaml-language-server) or a CI check.",
    examples: ['agentguard schema config', 'agentguard schema matrix > matrix.schema.json'],
    flags: [],
    lateHelp: async () => {
      const { SCHEMA_KINDS } = await import('../../schemas/json-schemas.js');
      return { description: `Kinds: ${SCHEMA_KINDS.join(', ')}.` };
    },
    load: async () => {
      const { schemaCommand } = await import('../commands/init.js');
      return (io, [kind]) => schemaCommand(io, kind);
    },
  },
  {
    name: 'checks',
    usage: 'checks',
    group: 'Benchmarks',
    summary: 'list the checks: default severity, the config keys they judge by, what passing means',
    description:
      'Lists every check a run is judged by, in report order: its id, its default severity, the config keys it reads and what passing means. --markdown prints the table of docs/config.md.',
    examples: ['agentguard checks', 'agentguard checks --json'],
    flags: [json(), { flag: '--markdown', help: 'the checks table of docs/config.md' }],
    load: async () => {
      const { checksCommand } = await import('../commands/checks.js');
      return (io, _args, flags) => checksCommand(io, flags);
    },
  },
  {
    name: 'rules',
    usage: 'rules <action>',
    group: 'Benchmarks',
    summary: 'show which default rule covers each behaviour of the public catalogue (coverage)',
    description:
      'coverage lists each behaviour of the public catalogue (rules/catalogue/behaviours.yaml, after MITRE ATT&CK and Atomic Red Team), the default rule that covers it, the tracers that see it and the test that proves it.',
    examples: ['agentguard rules coverage', 'agentguard rules coverage --markdown > docs/rules-coverage.md'],
    actions: { coverage: 'each behaviour, its rule, the tracers that see it, its test' },
    actionFix: "use 'rules coverage'.",
    flags: [json(), { flag: '--markdown', help: 'the docs/rules-coverage.md page' }],
    load: async () => {
      const { rulesCoverage } = await import('../commands/rules.js');
      return (io, _args, flags) => rulesCoverage(io, flags);
    },
  },
];
