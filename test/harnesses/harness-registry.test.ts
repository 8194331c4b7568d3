// The registry as the one list of harnesses: every harness's object carries
// what the rest of the code asks of it, the README and docs name every
// registered harness, and each harness's rule names are the ones its README
// states under "Rule names" and the ones `tx-usage explain` shows (the
// extractor's own account of the all-harness fixture home, as explain reads it).
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { HARNESSES } from '../../src/harnesses/registry.js';
import { HARNESS_IDS } from '../../src/harnesses/ids.js';
import { scanMarkersProblem } from '../../src/io/marker-scan.js';
import { discoverAll } from '../../src/ingest/discover.js';
import { TraceSink } from '../../src/explain/trace.js';
import { buildAllHome } from '../../fixtures/all-harnesses.js';
import { cleanEnv } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = join(__dirname, '../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

/** The `code spans` of a README's "Rule names" section. */
function ruleNamesSection(id: string): string[] {
  const text = read(`src/harnesses/${id}/README.md`);
  const at = text.indexOf('\n## Rule names');
  if (at < 0) return [];
  const end = text.indexOf('\n## ', at + 1);
  const section = text.slice(at, end < 0 ? undefined : end);
  return [...section.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

describe('the registry', () => {
  it('holds every id, in report order, each harness with its own chart colour', () => {
    expect(HARNESSES.map((h) => h.id)).toEqual([...HARNESS_IDS]);
    const colours = HARNESSES.map((h) => h.chartColor);
    expect(new Set(colours).size).toBe(colours.length);
    for (const c of colours) expect(c).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('a harness whose extractor resumes alone hands the status line the extractor itself (its bundle loads nothing lazily)', () => {
    const alone = HARNESSES.filter((h) => h.resumesAlone);
    expect(alone.map((h) => h.id)).toEqual(['claude-code', 'codex', 'pi', 'gemini-cli', 'qwen-code', 'openclaw']);
    // A lazy wrapper is an arrow named after the property; the extractor itself has its own name.
    for (const h of alone) expect(h.extract.name, h.id).toMatch(/^extract[A-Z]/);
  });

  it('every marker set fits the WebAssembly scanner, and one that does not is named', () => {
    for (const h of HARNESSES) for (const set of h.scanMarkers ?? []) expect(scanMarkersProblem(set), h.id).toBeNull();
    expect(scanMarkersProblem(Array.from({ length: 17 }, (_, i) => `"m${i}"`))).toBe(
      '17 markers (the scanner holds 16)',
    );
    expect(scanMarkersProblem([`"${'x'.repeat(60)}"`])).toBe(
      `marker ${JSON.stringify(`"${'x'.repeat(60)}"`)} is 62 bytes (the scanner holds 1 to 60, no newline)`,
    );
  });
});

describe('the README and docs name every registered harness', () => {
  const readme = read('README.md');
  it('the README: the harness-id line and --harness in registry order; a row per harness in the tables of what is read and where its rules are', () => {
    const ids = HARNESS_IDS.map((id) => `\`${id}\``).join(', ');
    expect(readme).toContain(`- Harness ids: ${ids}.`);
    expect(readme).toContain(`| \`--harness\` | comma list of ${ids}. |`);
    for (const h of HARNESSES) {
      expect(readme, h.id).toContain(`| [src/harnesses/${h.id}/README.md](src/harnesses/${h.id}/README.md)`);
      expect(readme.split('\n').filter((l) => l.startsWith(`| ${h.displayName} |`)).length, h.displayName).toBe(2);
    }
  });

  it('docs/reports.md: --sort name lists every harness in name order', () => {
    const line = read('docs/reports.md').replace(/\n\s+/g, ' ');
    expect(line).toContain(`\`--sort name\` gives the order ${[...HARNESS_IDS].sort().join(', ')});`);
  });

  it('docs/adding-a-harness.md is the checklist the Harness interface points to', () => {
    const doc = read('docs/adding-a-harness.md');
    for (const word of [
      'src/harnesses/ids.ts',
      'src/harnesses/registry.ts',
      'chartColor',
      'ruleNames',
      'scanMarkers',
      'resumesAlone',
      'winnerOrder',
      '## Rule names',
    ])
      expect(doc, word).toContain(word);
    expect(read('src/harnesses/types.ts')).toContain('docs/adding-a-harness.md');
  });
});

describe('rule names: the constants, the README and what explain shows agree', () => {
  it('each harness\'s rule names are in its README\'s "Rule names" section', () => {
    for (const h of HARNESSES) {
      const stated = ruleNamesSection(h.id);
      expect(stated.length, `${h.id} has a "Rule names" section`).toBeGreaterThan(0);
      for (const name of h.ruleNames) expect(stated, `${h.id}: ${name}`).toContain(name);
    }
  });

  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('every rule an extractor names on the all-harness fixture home is one of its harness’s', async () => {
    const home = tempDir('txu-registry-');
    dirs.push(home);
    const all = buildAllHome(home);
    try {
      const warnings: string[] = [];
      const scans = await discoverAll({ home, env: cleanEnv(home), rootOverrides: {} }, warnings);
      const seen = new Map<string, Set<string>>();
      const known = new Set<string>();
      for (const { harness, sources } of scans) {
        for (const source of sources) {
          const sink = new TraceSink();
          await harness.extract(source, sink, { resume: null, tmpDir: tmpdir(), knownProjects: known });
          for (const e of sink.entries) {
            const rule = e.kind === 'event' ? e.event.rule : e.kind === 'merged' ? e.rule : undefined;
            if (e.kind === 'event' && e.event.project) known.add(e.event.project);
            if (rule === undefined) continue;
            expect(harness.ruleNames, `${harness.id} ${source.path}`).toContain(rule);
            let s = seen.get(harness.id);
            if (!s) seen.set(harness.id, (s = new Set()));
            s.add(rule);
          }
        }
      }
      // Every harness with billed usage in the home showed a rule (Cursor's chats have none).
      expect([...seen.keys()].sort()).toEqual(HARNESS_IDS.filter((id) => id !== 'cursor-agent').sort());
    } finally {
      all.close();
    }
  });
});
