import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/start/serverless-config';
import { webhookEvents } from '../../lib/webhooks/catalog';

// The catalog of webhook event types (lib/webhooks/catalog.ts) against the source: every type that
// code in lib/ emits through the outbox (`event(partition, '<type>', data)`) is in it, so that no new
// event is left out of the OpenAPI document's webhooks; and it lists nothing that nothing emits.
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [readFileSync(join(dir, e.name), 'utf8')] : [],
  );

// Each event(...) call's type: the first string after its opening parenthesis. A template
// (`payment.${state}`) is kept as its fixed part, "payment.".
function emittedTypes(source: string): string[] {
  return [...source.matchAll(/\bevent\(/g)].flatMap((call) => {
    const type = /(['`])([a-z_]+\.[a-z_]*)(\$\{|\1)/.exec(source.slice(call.index, call.index + 300));
    return type ? [type[2]] : [];
  });
}

const emitted = [...new Set(sources(join(ROOT, 'lib')).flatMap(emittedTypes))].sort();
const catalogued = Object.keys(webhookEvents);
const covers = (t: string) => (t.endsWith('.') ? catalogued.some((c) => c.startsWith(t)) : catalogued.includes(t));

describe('the webhook catalog', () => {
  it('finds the event types emitted in lib/, those of templates by their fixed part', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template as the source writes it
    expect(emittedTypes("[event(store.partition(node, r.id), 'payment.funded', view), event(p, `payment.${state}`, v)]")).toEqual([
      'payment.funded',
      'payment.',
    ]);
    expect(emitted).toContain('asset.updated');
    expect(emitted).toContain('liquidity_withdrawal.');
  });

  it('lists every type emitted in lib/', () => {
    expect(emitted.filter((t) => !covers(t))).toEqual([]);
  });

  it('lists no type that nothing emits', () => {
    const sent = (c: string) => emitted.some((t) => (t.endsWith('.') ? c.startsWith(t) : c === t));
    expect(catalogued.filter((c) => !sent(c))).toEqual([]);
  });
});
