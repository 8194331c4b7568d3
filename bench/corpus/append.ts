// The append scenario: a few KB of new, complete lines (with new billed
// responses) at the end of the corpus's append targets, and what they add
// to the expected totals; and putting the files back as generated.
import { existsSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { Ledger as ClaudeLedger } from '../../fixtures/ledger.js';
import { Ledger as CodexLedger } from '../../fixtures/codex/ledger.js';
import { rng } from '../../fixtures/codex/rollout.js';
import { CorpusSession, writeExchange } from './claude.js';
import { appendCodexTurn, type CodexTail } from './codex.js';
import { addDays, claudeDayTotals, codexDayTotals, type DayTotals, type Manifest } from './generate.js';
import { Filler } from './text.js';

export class Appender {
  private readonly fill: Filler;
  private readonly codexTails = new Map<string, CodexTail>();
  private readonly claudeClocks = new Map<string, number>();
  private round = 0;
  /** Usage added by all appends so far, per harness and UTC day. */
  readonly added: DayTotals = { 'claude-code': {}, codex: {} };

  constructor(private readonly m: Manifest) {
    this.fill = new Filler(rng(m.seed + 7), m.seed + 7);
    for (const t of m.appendTargets) {
      if (t.codex) this.codexTails.set(t.path, t.codex);
      if (t.claude) this.claudeClocks.set(t.path, t.claude.clock);
    }
  }

  /** Appends to every target; returns the bytes appended. */
  appendAll(): number {
    this.round++;
    const rand = rng(this.m.seed * 1000 + this.round);
    let bytes = 0;
    const claudeLedger = new ClaudeLedger();
    const codexLedger = new CodexLedger();
    for (const t of this.m.appendTargets) {
      if (t.claude) {
        const home = new ClaudeHome(join(this.m.home, '.claude'), claudeLedger);
        const clock = this.claudeClocks.get(t.path)! + 60_000;
        const s = new CorpusSession(
          home,
          t.path,
          t.claude.sessionId,
          t.claude.cwd,
          t.claude.agentId ? { agentId: t.claude.agentId } : null,
          clock,
          true,
        );
        writeExchange(s, rand, this.fill, { imageBytes: 0, imageChance: 0, budget: 1, small: true });
        s.out.close();
        this.claudeClocks.set(t.path, s.clock);
        bytes += s.out.bytes;
      } else if (t.codex) {
        const r = appendCodexTurn(t.path, this.codexTails.get(t.path)!, codexLedger, rand, this.fill, this.round);
        this.codexTails.set(t.path, r.tail);
        bytes += r.bytes;
      }
    }
    addDays(this.added['claude-code'], claudeDayTotals(claudeLedger));
    addDays(this.added.codex, codexDayTotals(codexLedger));
    return bytes;
  }
}

/** Cuts every append target back to its generated size (after a run, or one that was interrupted). */
export function restoreAppendTargets(m: Manifest): number {
  let restored = 0;
  for (const t of m.appendTargets) {
    if (!existsSync(t.path)) continue;
    if (statSync(t.path).size !== t.bytes) {
      truncateSync(t.path, t.bytes);
      restored++;
    }
  }
  return restored;
}
