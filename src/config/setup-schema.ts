import { z } from 'zod';
import { globProblem } from './workspace-path.js';

const nonEmpty = z.string().min(1);

/** A path inside the workspace: relative, without `..` (the same test as the path globs). */
const workspacePath = nonEmpty.superRefine((p, ctx) => {
  const problem = globProblem(p, 'path');
  if (problem) ctx.addIssue({ code: 'custom', message: problem.message, params: { fix: problem.fix } });
});

/** A package index or registry: http(s), no credentials in the URL (they would land in the evidence). */
const mirrorUrl = nonEmpty.superRefine((text, ctx) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({
      code: 'custom',
      message: `'${text}' is not a URL`,
      params: { fix: 'give the full address, e.g. https://registry.example.com/' },
    });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    ctx.addIssue({
      code: 'custom',
      message: `'${text}' is a ${url.protocol} URL; a mirror is reached over http or https`,
      params: { fix: 'give an http:// or https:// address' },
    });
  else if (url.username || url.password)
    ctx.addIssue({
      code: 'custom',
      message: 'carries credentials, which would be written into the run evidence',
      params: { fix: 'use a mirror that needs no credentials, or a local cache folder' },
    });
});

const source = {
  /** A folder of packages, relative to the config file: npm's cache (`npm cache add`) or a folder of wheels. */
  cache: nonEmpty.optional(),
  /** A registry (npm) or package index (pip) reached during setup only, through the harness's proxy. */
  mirror: mirrorUrl.optional(),
  /**
   * Let the dependencies run their own install code (npm lifecycle scripts, building a pip sdist).
   * Off by default: setup is not traced, so that code would run unobserved.
   */
  scripts: z.boolean().default(false),
};

/** The lockfiles each JavaScript client installs from, frozen: it refuses to change them. */
export const JS_LOCKFILES = {
  npm: ['package-lock.json', 'npm-shrinkwrap.json'],
  pnpm: ['pnpm-lock.yaml'],
  yarn: ['yarn.lock'],
  bun: ['bun.lock', 'bun.lockb'],
} as const;

/** A JavaScript client's entry: its lockfile, in the folder where it runs. */
function jsDependency<M extends keyof typeof JS_LOCKFILES>(manager: M) {
  const names: readonly string[] = JS_LOCKFILES[manager];
  return z.strictObject({
    manager: z.literal(manager),
    /** Workspace-relative; the client runs in its folder. */
    lockfile: workspacePath
      .default(names[0] as string)
      .refine((p) => names.includes(p.split('/').at(-1) ?? ''), {
        message: `must name a ${names.join(' or ')} (${manager} installs frozen from nothing else)`,
        params: { fix: `point it at the ${names[0]} beside the package.json to install` },
      }),
    ...source,
  });
}

const NpmDependencySchema = jsDependency('npm');
const PnpmDependencySchema = jsDependency('pnpm');
const YarnDependencySchema = jsDependency('yarn');
const BunDependencySchema = jsDependency('bun');

/** The lockfiles whose pins a pyproject install takes as pip constraints (`[[package]]` name and version). */
export const PYTHON_LOCKFILES = ['uv.lock', 'poetry.lock', 'pdm.lock'] as const;

/** An extra or dependency group's name, as PEP 685 normalises it (no option, no path). */
const groupName = nonEmpty.regex(/^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/, {
  message: 'is not an extra or dependency-group name (letters, digits, ., _ and -)',
});

const PipDependencySchema = z.strictObject({
  manager: z.literal('pip'),
  /** Workspace-relative requirements file (pinned, as a lock); `requirements.txt` when no pyproject is named. */
  requirements: workspacePath.optional(),
  /**
   * Workspace-relative pyproject.toml whose declared dependencies are installed instead
   * (`[project].dependencies`, or poetry's `[tool.poetry.dependencies]`).
   */
  pyproject: workspacePath
    .refine((p) => p.split('/').at(-1) === 'pyproject.toml', {
      message: 'must name a pyproject.toml',
      params: { fix: 'point it at the pyproject.toml that declares the dependencies' },
    })
    .optional(),
  /** With pyproject: a uv.lock, poetry.lock or pdm.lock whose pinned versions are the ones installed. */
  lockfile: workspacePath
    .refine((p) => (PYTHON_LOCKFILES as readonly string[]).includes(p.split('/').at(-1) ?? ''), {
      message: `must name a ${PYTHON_LOCKFILES.join(', ')}`,
      params: { fix: 'point it at the lockfile beside the pyproject.toml, or leave lockfile out' },
    })
    .optional(),
  /** With pyproject: the extras, dependency groups (PEP 735), poetry groups to install too (`dev` takes uv's dev-dependencies). */
  groups: z.array(groupName).optional(),
  /** With pyproject: the project itself importable from the venv, as an editable install makes it (default true). */
  editable: z.boolean().optional(),
  /** Workspace-relative folder of the virtual environment the packages go into. */
  target: workspacePath.default('.venv'),
  ...source,
});
export type PipDependency = z.output<typeof PipDependencySchema>;

/** A pip entry installs one manifest; the pyproject-only keys need the pyproject. */
function pipProblems(dep: PipDependency, ctx: z.RefinementCtx): void {
  if (dep.pyproject !== undefined && dep.requirements !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['pyproject'],
      message: 'gives both requirements and pyproject; a pip entry installs one of them',
      params: { fix: 'keep one, or write a second entry for the other' },
    });
  if (dep.pyproject !== undefined) return;
  const only = [
    ...(dep.lockfile !== undefined ? ['lockfile'] : []),
    ...(dep.groups !== undefined ? ['groups'] : []),
    ...(dep.editable !== undefined ? ['editable'] : []),
  ];
  for (const key of only)
    ctx.addIssue({
      code: 'custom',
      path: [key],
      message: `is read with pyproject only; a requirements file pins its own versions`,
      params: { fix: `add pyproject: pyproject.toml, or remove ${key}` },
    });
}

/** One lockfile install, from a local cache folder or a mirror (exactly one of the two). */
export const DependencySchema = z
  .discriminatedUnion('manager', [
    NpmDependencySchema,
    PnpmDependencySchema,
    YarnDependencySchema,
    BunDependencySchema,
    PipDependencySchema,
  ])
  .superRefine((dep, ctx) => {
    if (dep.manager === 'pip') pipProblems(dep, ctx);
    if (
      (dep.manager === 'pnpm' || dep.manager === 'yarn' || dep.manager === 'bun') &&
      dep.cache !== undefined
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['cache'],
        message: `${dep.manager} installs from a mirror here; a cache folder is read for npm and pip only`,
        params: { fix: 'give mirror: the registry to install from (e.g. https://registry.npmjs.org/)' },
      });
      return;
    }
    if ((dep.cache === undefined) === (dep.mirror === undefined))
      ctx.addIssue({
        code: 'custom',
        message:
          dep.cache === undefined
            ? 'needs where the packages come from: cache or mirror'
            : 'gives both cache and mirror; an install reads from one source',
        params: {
          fix: 'keep one: cache (a folder relative to the config) or mirror (a registry URL)',
        },
      });
  });
export type DependencyEntry = z.output<typeof DependencySchema>;

/** The workspace file an entry installs from, and the key that names it. */
export function manifestOf(dep: DependencyEntry): {
  key: 'lockfile' | 'requirements' | 'pyproject';
  rel: string;
} {
  if (dep.manager !== 'pip') return { key: 'lockfile', rel: dep.lockfile };
  if (dep.pyproject !== undefined) return { key: 'pyproject', rel: dep.pyproject };
  return { key: 'requirements', rel: dep.requirements ?? 'requirements.txt' };
}

export const DEPENDENCY_MANAGERS = ['npm', 'pnpm', 'yarn', 'bun', 'pip'] as const;
export type DependencyManager = (typeof DEPENDENCY_MANAGERS)[number];

/** Preparing the workspace before the agent: declarative installs (then `setup_command`, if any). */
export const SetupSchema = z.strictObject({
  dependencies: z.array(DependencySchema).min(1),
});
export type SetupConfig = z.output<typeof SetupSchema>;
