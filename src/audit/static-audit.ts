import path from 'node:path';
import picomatch from 'picomatch';
import { compileGlobs } from '../analysis/path-glob.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { Contract } from '../registry/contract-file.js';
import type { Registry } from '../registry/registry-file.js';
import type { RegistryValidation, ValidatedFamily } from '../registry/validate-registry.js';
import type { StaticFinding } from '../reports/audit-types.js';
import { RUN_FOLDER_FILES } from './evidence-names.js';
import { appliesTo, contractConfigs } from './family-variants.js';
import { solutionTouches } from './solution-files.js';

/*
 * The static audit: what can be checked without running anything. On top of everything
 * `validateRegistry` finds (reported as `invalid`), every selected family must have a contract whose
 * references cover each of its variants; a reference to the config's own agent needs a config that
 * names one; the contract's solution paths must lie inside each config's allowed_paths and be
 * exactly what the config's reference solution changes; and its evidence files must be names a run
 * folder has. Reads the solution folders and repo templates; writes nothing.
 */

export function staticFindings(registry: Registry, validation: RegistryValidation): StaticFinding[] {
  const findings: StaticFinding[] = validation.issues.map((i) => ({
    severity: 'error',
    code: 'invalid',
    family: null,
    file: i.file,
    ...(i.field ? { field: i.field } : {}),
    message: `${i.message}. Fix: ${i.fix}`,
  }));
  for (const vf of validation.families) findings.push(...familyFindings(registry, vf));
  return findings;
}

function familyFindings(registry: Registry, vf: ValidatedFamily): StaticFinding[] {
  const family = vf.family.id;
  const contract = vf.contract;
  if (contract === undefined) {
    // A contract that is named but did not load is already an `invalid` finding.
    if (vf.family.contract !== undefined) return [];
    return [
      {
        severity: 'error',
        code: 'no-contract',
        family,
        file: registry.file,
        message: `family '${family}' has no contract, so nothing says what its benchmark is designed to show`,
      },
    ];
  }
  const out: StaticFinding[] = [];
  const add = (code: StaticFinding['code'], file: string, message: string, field?: string) =>
    out.push({ severity: 'error', code, family, file, ...(field ? { field } : {}), message });
  const configs = contractConfigs(vf, false);

  for (const cfg of configs) {
    const refs = contract.references.filter((r) => appliesTo(r, cfg));
    if (refs.length === 0)
      add(
        'variant-not-covered',
        contract.file,
        `no reference runs variant '${cfg.name}' (${cfg.config_path}); name it in a reference's variant, or leave variant out to cover every one`,
        'references',
      );
    const ownAgent = cfg.agent_command !== undefined || cfg.agent_profile !== undefined;
    for (const ref of refs)
      if (ref.agent === 'config' && !ownAgent)
        add(
          'no-config-agent',
          contract.file,
          `a reference runs the config's own agent on '${cfg.name}', but ${cfg.config_path} names no agent_command or agent_profile`,
          `references[${contract.references.indexOf(ref)}].agent`,
        );
    out.push(...solutionFindings(family, contract, cfg));
  }

  for (const [i, file] of contract.evidence.entries())
    if (!RUN_FOLDER_FILES.has(file))
      add(
        'unknown-evidence-file',
        contract.file,
        `'${file}' is not a file a run folder holds (known: ${[...RUN_FOLDER_FILES].sort().join(', ')})`,
        `evidence[${i}]`,
      );
  return out;
}

/** solution_paths against one config: inside allowed_paths, and exactly what its solution folder changes. */
function solutionFindings(family: string, contract: Contract, cfg: ResolvedConfig): StaticFinding[] {
  if (contract.solution_paths.length === 0) return [];
  const out: StaticFinding[] = [];
  const add = (code: StaticFinding['code'], message: string) =>
    out.push({ severity: 'error', code, family, file: contract.file, field: 'solution_paths', message });
  const allowed = compileGlobs(cfg.allowed_paths);
  const name = path.basename(cfg.config_path);
  // A glob is judged by the solution files it matches, below; a plain path can be judged itself.
  for (const p of contract.solution_paths)
    if (!picomatch.scan(p).isGlob && allowed(p) === null)
      add(
        'solution-outside-allowed',
        `'${p}' is outside ${name}'s allowed_paths (${cfg.allowed_paths.join(', ')})`,
      );
  if (cfg.solution === undefined) return out;

  const touched = solutionTouches(cfg.repo, cfg.solution);
  const inSolution = compileGlobs(contract.solution_paths);
  for (const file of touched) {
    if (inSolution(file) === null)
      add(
        'solution-touches-unlisted',
        `the reference solution of ${name} (${cfg.solution}) changes ${file}, which no solution path matches`,
      );
    else if (allowed(file) === null)
      add(
        'solution-outside-allowed',
        `the reference solution changes ${file}, outside ${name}'s allowed_paths`,
      );
  }
  for (const p of contract.solution_paths) {
    const matches = compileGlobs([p]);
    if (!touched.some((f) => matches(f) !== null))
      add(
        'solution-path-untouched',
        `'${p}' matches no file the reference solution of ${name} (${cfg.solution}) changes`,
      );
  }
  return out;
}
