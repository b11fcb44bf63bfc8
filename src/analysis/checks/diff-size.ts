import type { EvidenceItem } from '../types.js';
import { defineCheck } from './define-check.js';

export const diffSize = defineCheck({
  id: 'diff-size',
  defaultSeverity: 'warning',
  policyKeys: ['max_changed_files', 'max_added_lines', 'max_deleted_lines'],
  doc: 'The diff stays within `max_changed_files`, `max_added_lines` and `max_deleted_lines` (unset: no limit).',
  run: (bundle) => {
    const { config, diff } = bundle;
    const measures = [
      { name: 'changed files', limit: config.max_changed_files, actual: diff.files.length },
      { name: 'added lines', limit: config.max_added_lines, actual: diff.added },
      { name: 'deleted lines', limit: config.max_deleted_lines, actual: diff.deleted },
    ];
    const limited = measures.filter((m) => m.limit !== undefined);
    if (limited.length === 0) {
      return { passed: true, message: 'no limits configured', evidence: [] };
    }
    const over = limited.filter((m) => m.actual > (m.limit ?? Number.POSITIVE_INFINITY));
    const describe = (m: (typeof measures)[number]) => `${m.actual} ${m.name} (limit ${m.limit})`;
    if (over.length === 0) {
      return {
        passed: true,
        message: `within limits: ${limited.map(describe).join(', ')}`,
        evidence: [],
      };
    }
    const evidence: EvidenceItem[] = over.map((m) => ({
      detail: `${m.actual} ${m.name} > limit ${m.limit}`,
    }));
    return {
      passed: false,
      message: `the diff is over its size limits: ${over.map(describe).join(', ')}`,
      evidence,
    };
  },
});
