import type { RunReport } from '../types.js';
import {
  activitySection,
  artifactsSection,
  observationSection,
  timelineSection,
} from './activity-sections.js';
import { commandsSection, diffSection, testsSection } from './change-sections.js';
import { alertsSection, checksSection, evidenceSection } from './checks.js';
import { headline } from './headline.js';
import { replaySection } from './replay-section.js';
import { setupSection } from './setup-section.js';
import { trajectorySection } from './trajectory-section.js';
import type { ReportView, Section } from './types.js';
import { whySection } from './why-section.js';

/**
 * The report.md and report.html content of one run, in reading order. Pure; built once per
 * analysis and handed to every reporter that renders a page.
 */
export function reportView(report: RunReport): ReportView {
  const sections: (Section | null)[] = [
    whySection(report),
    checksSection(report.checks),
    evidenceSection(report.checks),
    alertsSection(report.alerts),
    testsSection(report),
    diffSection(report),
    commandsSection(report.commands),
    setupSection(report.setup),
    trajectorySection(report.trajectory),
    replaySection(report.replay),
    {
      id: 'graph',
      nav: 'Star graph',
      title: 'Star graph',
      blocks: [{ kind: 'figure', figure: 'star-graph' }],
    },
    activitySection(report.activity),
    timelineSection(report.timeline),
    observationSection(report.observation),
    artifactsSection(report.artifacts),
  ];
  return { headline: headline(report), sections: sections.filter((s) => s !== null) };
}
