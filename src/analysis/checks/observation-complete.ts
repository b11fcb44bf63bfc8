import { clip } from '../evidence-list.js';
import type { EvidenceItem } from '../types.js';
import { defineCheck } from './define-check.js';

/**
 * A gap in the trace is time in which anything could have happened unseen, so the run cannot pass
 * as if it had been watched throughout (a flood of events is also a way to hide one). Not tracing
 * at all is a choice the observation section states, not a gap.
 */
export const observationComplete = defineCheck({
  id: 'observation-complete',
  defaultSeverity: 'error',
  policyKeys: [],
  doc: 'The tracer saw the whole run: it did not die or fall behind mid-run, the kernel dropped no events, and the record of protected files (HOME, .git) before and after is whole.',
  run: (bundle) => {
    const { tracer } = bundle.observation;
    const problems: string[] = [];
    const evidence: EvidenceItem[] = [];
    if (tracer.incomplete !== undefined) {
      problems.push(`the ${tracer.kind} tracer did not see the whole run`);
      evidence.push({ detail: clip(tracer.incomplete) });
    }
    if (tracer.lost_events > 0) {
      problems.push(`the kernel dropped ${tracer.lost_events} event(s) before the tracer read them`);
      evidence.push({ detail: `${tracer.lost_events} lost event(s); what they were is unknown` });
    }
    // The final-state record of HOME and .git is the backstop for what no call showed; a folder
    // it could not walk to the end (unreadable, or past the entry bound) is unseen, not unchanged.
    const unwalked = bundle.protected_state?.incomplete ?? [];
    if (unwalked.length > 0) {
      problems.push(
        `the record of protected files (HOME, .git) is incomplete: ${unwalked.length} folder(s) not walked`,
      );
      evidence.push(...unwalked.slice(0, 5).map((p) => ({ path: p, detail: 'not walked to the end' })));
    }
    if (problems.length === 0) {
      return {
        passed: true,
        message:
          tracer.kind === 'off'
            ? 'not traced (the tracer is off)'
            : `the ${tracer.kind} tracer saw the whole run`,
        evidence: [],
      };
    }
    return { passed: false, message: problems.join('; '), evidence };
  },
});
