// The cost function the ingest uses to fill computed costs. Pricing
// (src/pricing) plugs in here; until a price source is wired, computed cost
// is unknown (null) — never an invented price.
import type { CostFn } from '../store/write.js';
import type { Runtime } from './runtime.js';

export interface CostSetup {
  fn: CostFn;
  /** Warnings to show in reports (e.g. unknown models). */
  warnings: string[];
}

export async function costFunction(_rt: Runtime): Promise<CostSetup> {
  return { fn: () => null, warnings: [] };
}
