import { costOf } from '../../config/pricing.js';
import type { BudgetConfig, Pricing } from '../../config/schema.js';
import type { WireUsage } from '../../evidence/types.js';

/** What a run has spent through the relay so far. */
export type Spent = {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  /** At the config's pricing; null without one. */
  usd: number | null;
};

/**
 * The run's budget as the relay keeps it. A request is let through only while every cap still has
 * room, counting the requests already in flight, so a run goes past a token or cost cap by at most
 * the answers in flight when it was reached (one, for an agent that waits for each answer), and
 * never past `max_requests`.
 */
export class BudgetMeter {
  private readonly spent: Spent;
  private inFlight = 0;

  constructor(
    private readonly budget: BudgetConfig | undefined,
    private readonly pricing: Pricing | undefined,
  ) {
    this.spent = {
      requests: 0,
      input_tokens: 0,
      output_tokens: 0,
      cached_tokens: 0,
      usd: pricing ? 0 : null,
    };
  }

  get totals(): Spent {
    return { ...this.spent };
  }

  /** Take a request: null when it may go (it then counts as in flight), else the cap it would exceed, in words. */
  take(): string | null {
    const b = this.budget;
    const s = this.spent;
    if (b?.max_requests !== undefined && s.requests + this.inFlight >= b.max_requests)
      return `max_requests ${b.max_requests} reached (${s.requests} answered, ${this.inFlight} in flight)`;
    const tokens = s.input_tokens + s.output_tokens;
    if (b?.max_tokens !== undefined && tokens >= b.max_tokens)
      return `max_tokens ${b.max_tokens} reached (${tokens} tokens used)`;
    if (b?.max_usd !== undefined && s.usd !== null && s.usd >= b.max_usd)
      return `max_usd ${b.max_usd} reached (${s.usd} spent)`;
    this.inFlight++;
    return null;
  }

  /** The request taken has its answer; `usage` as the provider stated it (null: it stated none). */
  settle(usage: WireUsage | null): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    const s = this.spent;
    s.requests++;
    if (!usage) return;
    s.input_tokens += usage.input_tokens;
    s.output_tokens += usage.output_tokens;
    s.cached_tokens += usage.cached_tokens;
    if (this.pricing)
      s.usd = costOf(this.pricing, s.input_tokens - s.cached_tokens, s.cached_tokens, s.output_tokens);
  }

  /** The request taken never reached the provider (the connection failed): nothing was spent. */
  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }
}
