import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../errors.js';
import type { AgentProfile } from '../profiles/schema.js';

export type SkillTargets = {
  /** The workspace (the same path inside and outside the sandbox). */
  repoDir: string;
  /** The agent's HOME on the host, where files are written. */
  hostHome: string;
  /** The same HOME as the agent sees it. Default: `hostHome`. */
  agentHome?: string;
  /** The config that ships the skills, for error messages. */
  configPath?: string;
};

export type InstalledSkill = {
  skill: string;
  /** The skill's folder as the agent sees it. */
  dir: string;
  /** Every file and link of the skill, absolute, as the agent sees them, sorted. */
  files: string[];
};

export type SkillsInstall = {
  /** The profile's skills folder as the agent sees it. */
  skills_dir: string;
  /** True when the skills went into the workspace: the caller must install them before the baseline commit. */
  in_repo: boolean;
  installed: InstalledSkill[];
  /** Every installed file of every skill, as the agent sees them, sorted (what skill-coverage reads). */
  files: string[];
  /** Top-level entries that are not skill folders (a README, say), left out. */
  skipped: string[];
};

const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_FILES = 5_000;
const MAX_BYTES = 64 * 1024 * 1024;

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

type Entry = { rel: string; kind: 'dir' | 'file' | 'link'; target?: string };

/**
 * Copy a benchmark's skills (`<skillsSrc>/<name>/SKILL.md` plus helper scripts and reference files)
 * to where the profile's agent looks for them, and list every file for coverage analysis.
 * Everything is checked before anything is written: a symlink leaving the skills folder (or an
 * absolute one), a socket, fifo or device, a skill without SKILL.md, or a skill that already
 * exists at the destination is a ConfigError.
 */
export function installSkills(
  skillsSrc: string,
  profile: AgentProfile,
  targets: SkillTargets,
): SkillsInstall {
  const where = targets.configPath ?? skillsSrc;
  const fail = (message: string, fix: string): never => {
    throw new ConfigError([{ file: where, field: 'skills', message, fix }]);
  };
  if (profile.skills_dir === undefined) {
    fail(
      `agent profile '${profile.name}' does not say where its agent looks for skills`,
      `add skills_dir to ${profile.file}`,
    );
  }
  let root = '';
  try {
    root = realpathSync(skillsSrc);
    if (!statSync(root).isDirectory()) throw new Error('not a folder');
  } catch {
    fail(`the skills folder ${skillsSrc} does not exist or is not a folder`, 'create it or correct the path');
  }

  const skillsDir = profile.skills_dir ?? '';
  const inHome = skillsDir.startsWith('~/');
  const rel = inHome ? skillsDir.slice(2) : skillsDir;
  const hostDest = path.join(inHome ? targets.hostHome : targets.repoDir, rel);
  const agentDest = path.join(inHome ? (targets.agentHome ?? targets.hostHome) : targets.repoDir, rel);

  const skills: { name: string; entries: Entry[] }[] = [];
  const skipped: string[] = [];
  let count = 0;
  let bytes = 0;
  const walk = (dirRel: string, entries: Entry[]) => {
    for (const name of readdirSync(path.join(root, dirRel)).sort()) {
      const relPath = path.join(dirRel, name);
      const src = path.join(root, relPath);
      const st = lstatSync(src);
      if (++count > MAX_FILES) fail(`holds more than ${MAX_FILES} files`, 'ship fewer files with the skills');
      if (st.isDirectory()) {
        entries.push({ rel: relPath, kind: 'dir' });
        walk(relPath, entries);
      } else if (st.isFile()) {
        bytes += st.size;
        if (bytes > MAX_BYTES) fail(`holds more than ${MAX_BYTES} bytes`, 'ship smaller skills');
        entries.push({ rel: relPath, kind: 'file' });
      } else if (st.isSymbolicLink()) {
        const target = readlinkSync(src);
        if (path.isAbsolute(target) || !inside(root, path.resolve(path.dirname(src), target))) {
          fail(
            `the symlink ${relPath} points outside the skills folder (to ${target})`,
            'replace it with a regular file or a relative link inside the skills folder',
          );
        }
        entries.push({ rel: relPath, kind: 'link', target });
      } else {
        fail(`${relPath} is a socket, fifo or device`, 'remove it from the skills folder');
      }
    }
  };
  for (const name of readdirSync(root).sort()) {
    const st = lstatSync(path.join(root, name));
    if (!st.isDirectory()) {
      if (st.isSymbolicLink()) {
        const target = readlinkSync(path.join(root, name));
        if (path.isAbsolute(target) || !inside(root, path.resolve(root, target)))
          fail(`the symlink ${name} points outside the skills folder (to ${target})`, 'remove it');
      }
      skipped.push(name);
      continue;
    }
    if (!SKILL_NAME.test(name))
      fail(`'${name}' is not a usable skill name`, 'use letters, digits, ".", "_" or "-"');
    const skillMd = path.join(root, name, 'SKILL.md');
    if (!existsSync(skillMd))
      fail(`the skill folder ${name} has no SKILL.md`, 'add SKILL.md or move the folder out');
    if (existsSync(path.join(hostDest, name))) {
      fail(
        `skill '${name}' already exists at ${path.join(agentDest, name)}`,
        'rename the skill or remove the existing one from the template',
      );
    }
    const entries: Entry[] = [];
    walk(name, entries);
    skills.push({ name, entries });
  }

  const installed: InstalledSkill[] = [];
  for (const { name, entries } of skills) {
    mkdirSync(path.join(hostDest, name), { recursive: true });
    const listed: string[] = [];
    for (const entry of entries) {
      const dest = path.join(hostDest, entry.rel);
      if (entry.kind === 'dir') mkdirSync(dest, { recursive: true });
      else if (entry.kind === 'file') copyFileSync(path.join(root, entry.rel), dest);
      else symlinkSync(entry.target ?? '', dest);
      if (entry.kind !== 'dir') listed.push(path.join(agentDest, entry.rel));
    }
    installed.push({ skill: name, dir: path.join(agentDest, name), files: listed.sort() });
  }
  const files = installed.flatMap((s) => s.files).sort();
  return { skills_dir: agentDest, in_repo: !inHome, installed, files, skipped };
}
