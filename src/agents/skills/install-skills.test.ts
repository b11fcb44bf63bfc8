import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.js';
import { loadProfile } from '../profiles/load-profile.js';
import { installSkills } from './install-skills.js';

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A config folder with a skills folder holding one skill, a README, a workspace and a run HOME. */
function setup() {
  const root = mkdtempSync(path.join(tmpdir(), 'agentguard-skills-'));
  temps.push(root);
  const skills = path.join(root, 'bench', 'skills');
  const skill = path.join(skills, 'citation-check');
  mkdirSync(path.join(skill, 'scripts'), { recursive: true });
  mkdirSync(path.join(skill, 'reference'), { recursive: true });
  writeFileSync(
    path.join(skill, 'SKILL.md'),
    '---\nname: citation-check\ndescription: check citations\n---\n',
  );
  writeFileSync(path.join(skill, 'scripts', 'check.py'), 'print("ok")\n');
  chmodSync(path.join(skill, 'scripts', 'check.py'), 0o755);
  writeFileSync(path.join(skill, 'reference', 'styles.md'), '# styles\n');
  symlinkSync('reference/styles.md', path.join(skill, 'STYLES.md'));
  writeFileSync(path.join(skills, 'README.md'), 'skills for this benchmark\n');
  const repoDir = path.join(root, 'run', 'repo');
  const hostHome = path.join(root, 'run', 'home');
  mkdirSync(repoDir, { recursive: true });
  mkdirSync(hostHome, { recursive: true });
  return { root, skills, skill, repoDir, hostHome };
}

function customProfile(root: string, skillsDir: string | null) {
  const file = path.join(root, `agent-${Math.random().toString(36).slice(2)}.yaml`);
  const line = skillsDir === null ? '' : `skills_dir: ${skillsDir}\n`;
  writeFileSync(file, `schema_version: 1\nname: mine\nbin: mine\ncommand: ['{task_prompt}']\n${line}`);
  return loadProfile(file);
}

describe('installSkills', () => {
  it("copies skills into the agent's HOME skills folder and lists the files as the agent sees them", () => {
    const t = setup();
    const result = installSkills(t.skills, loadProfile('codex'), {
      repoDir: t.repoDir,
      hostHome: t.hostHome,
      agentHome: '/root',
    });
    expect(result).toEqual({
      skills_dir: '/root/.codex/skills',
      in_repo: false,
      skipped: ['README.md'],
      installed: [
        {
          skill: 'citation-check',
          dir: '/root/.codex/skills/citation-check',
          files: [
            '/root/.codex/skills/citation-check/SKILL.md',
            '/root/.codex/skills/citation-check/STYLES.md',
            '/root/.codex/skills/citation-check/reference/styles.md',
            '/root/.codex/skills/citation-check/scripts/check.py',
          ],
        },
      ],
      files: [
        '/root/.codex/skills/citation-check/SKILL.md',
        '/root/.codex/skills/citation-check/STYLES.md',
        '/root/.codex/skills/citation-check/reference/styles.md',
        '/root/.codex/skills/citation-check/scripts/check.py',
      ],
    });
    const copied = path.join(t.hostHome, '.codex', 'skills', 'citation-check');
    expect(readFileSync(path.join(copied, 'SKILL.md'), 'utf8')).toContain('name: citation-check');
    expect(statSync(path.join(copied, 'scripts', 'check.py')).mode & 0o111).not.toBe(0);
    expect(lstatSync(path.join(copied, 'STYLES.md')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(copied, 'STYLES.md'))).toBe('reference/styles.md');
    expect(readFileSync(path.join(copied, 'STYLES.md'), 'utf8')).toBe('# styles\n');
    expect(existsSync(path.join(t.hostHome, '.codex', 'skills', 'README.md'))).toBe(false);
  });

  it('copies into the workspace for a repo-relative skills_dir and says so (install before the baseline)', () => {
    const t = setup();
    const result = installSkills(t.skills, customProfile(t.root, '.claude/skills'), t);
    expect(result.in_repo).toBe(true);
    expect(result.skills_dir).toBe(path.join(t.repoDir, '.claude', 'skills'));
    expect(result.installed[0]?.files[0]).toBe(
      path.join(t.repoDir, '.claude/skills/citation-check/SKILL.md'),
    );
    expect(existsSync(path.join(t.repoDir, '.claude/skills/citation-check/scripts/check.py'))).toBe(true);
  });

  it('refuses a symlink leaving the skills folder, before writing anything', () => {
    const t = setup();
    symlinkSync('../../../../../etc/passwd', path.join(t.skill, 'reference', 'passwd'));
    const run = () =>
      installSkills(t.skills, loadProfile('codex'), { ...t, configPath: path.join(t.root, 'config.yaml') });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(
      `${path.join(t.root, 'config.yaml')}: field 'skills': the symlink citation-check/reference/passwd points outside the skills folder (to ../../../../../etc/passwd). Fix:`,
    );
    expect(existsSync(path.join(t.hostHome, '.codex'))).toBe(false);
  });

  it('refuses absolute links (they would point back at the host), even into the skills folder', () => {
    const t = setup();
    symlinkSync(path.join(t.skill, 'SKILL.md'), path.join(t.skill, 'abs-link'));
    expect(() => installSkills(t.skills, loadProfile('codex'), t)).toThrow(/abs-link points outside/);
  });

  it('refuses a top-level link out of the folder, a fifo, and a skill without SKILL.md', () => {
    let t = setup();
    symlinkSync('/etc', path.join(t.skills, 'etc'));
    expect(() => installSkills(t.skills, loadProfile('codex'), t)).toThrow(/symlink etc points outside/);

    t = setup();
    execFileSync('mkfifo', [path.join(t.skill, 'pipe')]);
    expect(() => installSkills(t.skills, loadProfile('codex'), t)).toThrow(
      /citation-check\/pipe is a socket, fifo or device/,
    );

    t = setup();
    rmSync(path.join(t.skill, 'SKILL.md'));
    expect(() => installSkills(t.skills, loadProfile('codex'), t)).toThrow(
      /the skill folder citation-check has no SKILL.md\. Fix: add SKILL.md/,
    );
  });

  it('refuses to overwrite a skill already at the destination, a missing folder, and a profile without skills_dir', () => {
    const t = setup();
    mkdirSync(path.join(t.hostHome, '.codex', 'skills', 'citation-check'), { recursive: true });
    expect(() => installSkills(t.skills, loadProfile('codex'), t)).toThrow(
      /skill 'citation-check' already exists/,
    );
    expect(() => installSkills(path.join(t.root, 'nope'), loadProfile('codex'), t)).toThrow(
      /does not exist or is not a folder/,
    );
    expect(() => installSkills(t.skills, customProfile(t.root, null), t)).toThrow(
      /agent profile 'mine' does not say where its agent looks for skills\. Fix: add skills_dir/,
    );
  });
});
