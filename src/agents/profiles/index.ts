export {
  builtinProfileDir,
  isProfilePath,
  listBuiltinProfiles,
  loadProfile,
  loadProfileResult,
  type ProfileLoadResult,
  parseProfile,
} from './load-profile.js';
export { FIELD_PLACEHOLDERS, type Placeholder, PROFILE_PLACEHOLDERS } from './placeholders.js';
export {
  DRY_RUN_MARKERS,
  formatPlanSummary,
  type PlanEnvEntry,
  type PlanSummary,
  type PlanSummaryOptions,
  planSummary,
} from './plan-summary.js';
export {
  modelBaseUrl,
  promptTag,
  type RenderContext,
  type RenderedFile,
  type RenderedProfile,
  renderProfile,
} from './render-profile.js';
export {
  type AgentProfile,
  AgentProfileSchema,
  ENDPOINTS,
  type Endpoint,
  PROFILE_SCHEMA_VERSION,
} from './schema.js';
export { writeRenderedFiles } from './write-files.js';
