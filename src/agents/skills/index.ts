export {
  type InstalledSkill,
  installSkills,
  type SkillsInstall,
  type SkillTargets,
} from './install-skills.js';
