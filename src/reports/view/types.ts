import type { Severity } from '../../config/schema.js';

/**
 * The report view: what report.md and report.html show, built once from the RunReport
 * (`reportView`), in no format. Each renderer decides only how a kind of node looks; which facts
 * are shown, in which words and order, is decided here once, so the two pages cannot drift apart.
 */

/**
 * A piece of text. A bare string is our own words (fixed text, numbers, enum values), shown as is
 * in every format, so it must never carry a value from the agent's world. Those are wrapped, so
 * each renderer escapes them its own way.
 */
export type Inline =
  | string
  /** Untrusted prose (a message, a reason). */
  | { text: string; max?: number }
  /** Untrusted name of a thing (path, command, host, id): a code span in HTML, escaped text in Markdown. */
  | { name: string; max?: number }
  /** A value we made (a hash): a code span in every format. */
  | { code: string }
  | { strong: Inline[] }
  /** A pass/fail mark in a table column. */
  | { mark: 'passed' | 'failed' }
  /** A pass/fail verdict stated in prose. */
  | { verdict: 'passed' | 'failed' }
  /** Our word for something bad that must stand out (a denied host, a symlink leaving the workspace). */
  | { flag: string; icon: 'stop' | 'warning' }
  | { severity: Severity };

/** "…and N more paths." under a bounded table or list. Present when the list was bounded at all. */
export type More = { count: number; what: string };

export type Block =
  /** `note` and `warning` stand out from the text; a warning also carries a warning sign. */
  | { kind: 'paragraph'; content: Inline[]; tone?: 'note' | 'warning' }
  | { kind: 'list'; style: 'facts' | 'bullets' | 'chain'; items: ListItem[]; more?: More }
  | {
      kind: 'table';
      columns: { title: string; numeric?: boolean }[];
      rows: Cell[][];
      /** Per row: whether it reports a pass or a failure (HTML colours the row). */
      rowTone?: ('passed' | 'failed')[];
      more?: More;
    }
  /** A picture only a graphical format can show; text formats leave it out. */
  | { kind: 'figure'; figure: 'star-graph' }
  /** Lines a program printed (untrusted, already bounded): a preformatted block, escaped by each renderer. */
  | {
      kind: 'output';
      lines: string[];
      omitted: number;
      /** Folded under this title where the format can fold (HTML), a heading above it elsewhere. */
      folded?: Inline[];
      /** Where the left-out lines were: before the shown ones (a tail) or after them (a head). */
      cut?: 'before' | 'after';
    }
  | { kind: 'subsection'; title: Inline[]; tone?: Severity | 'failed'; blocks: Block[] };

/** A table cell: one piece of text or several. */
export type Cell = Inline | Inline[];

export type ListItem = { content: Inline[]; children?: Inline[][] };

export type Section = {
  /** Anchor in HTML. */
  id: string;
  /** Our own words, like a bare-string Inline. */
  title: string;
  /** Short link text in the HTML page's navigation; sections without it are not linked. */
  nav?: string;
  blocks: Block[];
};

export type Headline = {
  result: string;
  passed: boolean;
  score: number;
  task: string;
  /** The first line under the title (agent, model, outcome). */
  lead: Inline[];
  facts: Inline[][];
  warning: { title: string; content: Inline[] } | null;
};

export type ReportView = { headline: Headline; sections: Section[] };
