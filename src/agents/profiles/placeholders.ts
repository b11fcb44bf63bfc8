/** Every placeholder a profile may use somewhere. */
export const PROFILE_PLACEHOLDERS = [
  '{task_prompt}',
  '{task_file}',
  '{repo_dir}',
  '{config_dir}',
  '{home_dir}',
  '{state_dir}',
  '{model_url}',
  '{model_key}',
] as const;
export type Placeholder = (typeof PROFILE_PLACEHOLDERS)[number];

const PATHS: readonly Placeholder[] = [
  '{task_file}',
  '{repo_dir}',
  '{config_dir}',
  '{home_dir}',
  '{state_dir}',
];

/**
 * Which placeholders each kind of field accepts. The prompt goes only into argv, whole, so it can
 * never be spliced into shell text, a config file or the environment; the model URL only into
 * the `scripted` block, which applies only when agentguard serves the model.
 */
export const FIELD_PLACEHOLDERS = {
  command: ['{task_prompt}', ...PATHS],
  version_command: PATHS,
  env_set: PATHS,
  'scripted.env_set': [...PATHS, '{model_url}', '{model_key}'],
  config_files: ['{repo_dir}', '{config_dir}', '{home_dir}', '{state_dir}'],
  'scripted.config_files': [
    '{repo_dir}',
    '{config_dir}',
    '{home_dir}',
    '{state_dir}',
    '{model_url}',
    '{model_key}',
  ],
} as const satisfies Record<string, readonly Placeholder[]>;
export type PlaceholderField = keyof typeof FIELD_PLACEHOLDERS;

const TOKEN = /\{[a-z_]+\}/g;

export type PlaceholderProblem = { message: string; fix: string };

function isPlaceholder(token: string): token is Placeholder {
  return (PROFILE_PLACEHOLDERS as readonly string[]).includes(token);
}

function notHere(token: Placeholder, field: PlaceholderField): PlaceholderProblem {
  const allowed = FIELD_PLACEHOLDERS[field] as readonly string[];
  if (token === '{model_url}' || token === '{model_key}') {
    return {
      message: `uses ${token}, which only the scripted block may use`,
      fix: 'move it to scripted.env_set or scripted.config_files',
    };
  }
  if (token === '{task_prompt}') {
    return {
      message: 'uses {task_prompt}, which may only be a whole argument of command',
      fix: 'pass the prompt in command, or use {task_file} here',
    };
  }
  return { message: `cannot use ${token} here`, fix: `use one of ${allowed.join(', ')}` };
}

/** A problem when `value` uses a placeholder other than as one whole allowed value. */
export function wholePlaceholderProblem(value: string, field: PlaceholderField): PlaceholderProblem | null {
  const allowed = FIELD_PLACEHOLDERS[field] as readonly string[];
  const found = value.match(TOKEN);
  if (!found) return null;
  const unknown = found.find((t) => !isPlaceholder(t));
  if (unknown) {
    return {
      message: `uses the unknown placeholder ${unknown}`,
      fix: `use one of ${allowed.join(', ')} as a whole value`,
    };
  }
  const first = found[0] as Placeholder;
  if (value !== first || found.length > 1) {
    return {
      message: `embeds ${first} inside '${value}'`,
      fix: `make the placeholder a whole ${field.endsWith('env_set') ? 'value' : "argument, e.g. ['--cd', '{repo_dir}']"}`,
    };
  }
  return allowed.includes(first) ? null : notHere(first, field);
}

/** A problem when file content uses an unknown placeholder or one this block may not use. */
export function contentPlaceholderProblem(text: string, field: PlaceholderField): PlaceholderProblem | null {
  const allowed = FIELD_PLACEHOLDERS[field] as readonly string[];
  for (const token of text.match(TOKEN) ?? []) {
    if (!isPlaceholder(token)) {
      return {
        message: `uses the unknown placeholder ${token}`,
        fix: `use one of ${allowed.join(', ')}`,
      };
    }
    if (!allowed.includes(token)) return notHere(token, field);
  }
  return null;
}

/** Replace every allowed placeholder in `text` (file content; validated beforehand). */
export function substitute(text: string, values: Partial<Record<Placeholder, string>>): string {
  return text.replace(TOKEN, (token) => (isPlaceholder(token) ? (values[token] ?? token) : token));
}
