import type { z } from 'zod';

/*
 * The keys a schema allows at a path, read from the schema itself so that "did you mean" works at
 * every depth (`network.alow` → `allow`) without a second list of keys to keep in step. It walks
 * through wrappers (optional, default, pipe, lazy …), into objects, list items and record values,
 * and across unions (a discriminated union picks the branch the value names, when it can).
 */

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  items?: z.ZodType[];
  valueType?: z.ZodType;
  keyType?: z.ZodType;
  entries?: Record<string, unknown>;
  options?: z.ZodType[];
  discriminator?: string;
  left?: z.ZodType;
  right?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  getter?: () => z.ZodType;
  values?: unknown[];
};

const def = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schemas `schema` stands for once wrappers are looked through (a pipe stands for both ends). */
function unwrap(schema: z.ZodType, depth = 0): z.ZodType[] {
  if (depth > 20) return [];
  const d = def(schema);
  if (d.innerType) return unwrap(d.innerType, depth + 1);
  if (d.type === 'lazy' && d.getter) return unwrap(d.getter(), depth + 1);
  if (d.type === 'pipe' && d.in && d.out) return [...unwrap(d.in, depth + 1), ...unwrap(d.out, depth + 1)];
  return [schema];
}

/** The options of a union the value can be: for a discriminated union, those its discriminator names. */
function unionOptions(d: Def, value: unknown): z.ZodType[] {
  const options = d.options ?? [];
  if (!d.discriminator || value === null || typeof value !== 'object') return options;
  const named = (value as Record<string, unknown>)[d.discriminator];
  const matching = options.filter((o) =>
    unwrap(o).some((s) => {
      const field = def(s).shape?.[d.discriminator as string];
      return field !== undefined && unwrap(field).some((f) => (def(f).values ?? []).includes(named));
    }),
  );
  return matching.length > 0 ? matching : options;
}

function child(value: unknown, key: PropertyKey): unknown {
  return value !== null && typeof value === 'object'
    ? (value as Record<PropertyKey, unknown>)[key]
    : undefined;
}

/** The object (and record) schemas at `path` below `schema` (the value guides the choice among union branches). */
function objectsAt(schema: z.ZodType, path: readonly PropertyKey[], value: unknown, depth = 0): z.ZodType[] {
  if (depth > 50) return [];
  return unwrap(schema).flatMap((s): z.ZodType[] => {
    const d = def(s);
    if (d.type === 'union')
      return unionOptions(d, value).flatMap((o) => objectsAt(o, path, value, depth + 1));
    if (d.type === 'intersection' && d.left && d.right)
      return [...objectsAt(d.left, path, value, depth + 1), ...objectsAt(d.right, path, value, depth + 1)];
    if (path.length === 0) return d.type === 'object' || d.type === 'record' ? [s] : [];
    const [head, ...rest] = path as [PropertyKey, ...PropertyKey[]];
    const next = child(value, head);
    switch (d.type) {
      case 'object': {
        const field = typeof head === 'string' ? d.shape?.[head] : undefined;
        return field ? objectsAt(field, rest, next, depth + 1) : [];
      }
      case 'array':
        return d.element ? objectsAt(d.element, rest, next, depth + 1) : [];
      case 'tuple': {
        const item = typeof head === 'number' ? d.items?.[head] : undefined;
        return item ? objectsAt(item, rest, next, depth + 1) : [];
      }
      case 'record':
        return d.valueType ? objectsAt(d.valueType, rest, next, depth + 1) : [];
      default:
        return [];
    }
  });
}

/** An object's keys, or a record's when its keys are a closed set (`severity: {diff-size: …}`). */
function keysOf(schema: z.ZodType): string[] {
  const d = def(schema);
  if (d.type === 'object') return Object.keys(d.shape ?? {});
  const keyTypes = d.keyType ? unwrap(d.keyType) : [];
  return keyTypes.flatMap((k) => Object.values(def(k).entries ?? {}).filter((v) => typeof v === 'string'));
}

/** The keys allowed in the mapping at `path` (a zod issue's path), in schema order, without repeats. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[], root: unknown): string[] {
  const keys = objectsAt(schema, path, root).flatMap(keysOf);
  return [...new Set(keys)];
}
