// The API collection in bruno/, read as Bruno reads it: a .bru file is blocks, `name {` to a line
// that is only `}`; a dictionary block holds `key: value` lines, a text block (a body, docs,
// scripts) indented text. Enough of the format to check the collection and send its requests.

import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../infra/local/start/serverless-config';

export const COLLECTION = join(ROOT, 'bruno');
const TEXT_BLOCK = /^(body(:[\w-]+)*|docs|script:[\w-]+|tests)$/;

export type Blocks = Map<string, Record<string, string> | string>;

export function parseBru(text: string): Blocks {
  const blocks: Blocks = new Map();
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    const name = /^([a-z][\w:-]*) \{$/.exec(lines[i])?.[1];
    if (!name) throw new Error(`line ${i + 1}: expected "<block> {", found ${JSON.stringify(lines[i])}`);
    if (blocks.has(name)) throw new Error(`line ${i + 1}: a second ${name} block`);
    const content: string[] = [];
    for (i++; lines[i] !== '}'; i++) {
      if (i >= lines.length) throw new Error(`the ${name} block is not closed by a line "}"`);
      content.push(lines[i]);
    }
    if (TEXT_BLOCK.test(name)) {
      blocks.set(name, content.map((l) => l.replace(/^ {2}/, '')).join('\n'));
      continue;
    }
    const dict: Record<string, string> = {};
    for (const line of content.filter((l) => l.trim())) {
      const pair = /^\s+([^\s:]+)\s*:(.*)$/.exec(line);
      if (!pair) throw new Error(`in ${name}: expected "  key: value", found ${JSON.stringify(line)}`);
      dict[pair[1]] = pair[2].trim();
    }
    blocks.set(name, dict);
  }
  return blocks;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

export interface BruRequest {
  file: string; // relative to bruno/, e.g. assets/create-an-asset.bru
  folder: { name: string; seq: number };
  meta: Record<string, string>;
  blocks: Blocks;
  method: string; // upper case
  url: string; // as written, with its {{variables}}
  headers: Record<string, string>;
  body?: string;
  // What the request keeps from its answer (vars:post-response), e.g. assetId: res.body.id
  captures: Record<string, string>;
}

const dict = (blocks: Blocks, name: string) => (blocks.get(name) ?? {}) as Record<string, string>;

function readRequest(file: string, folder: BruRequest['folder']): BruRequest {
  const blocks = parseBru(readFileSync(join(COLLECTION, file), 'utf8'));
  const methods = METHODS.filter((m) => blocks.has(m));
  if (methods.length !== 1) throw new Error(`${file}: needs one block of ${METHODS.join(', ')}, has ${methods.join(', ') || 'none'}`);
  const http = dict(blocks, methods[0]);
  const body = blocks.get('body:json') as string | undefined;
  return {
    file,
    folder,
    meta: dict(blocks, 'meta'),
    blocks,
    method: methods[0].toUpperCase(),
    url: http.url,
    headers: dict(blocks, 'headers'),
    body,
    captures: dict(blocks, 'vars:post-response'),
  };
}

// Every request, in the order Bruno shows and runs them: folders by seq, then requests by seq.
export function loadRequests(): BruRequest[] {
  const requests: BruRequest[] = [];
  for (const dir of readdirSync(COLLECTION, { withFileTypes: true })) {
    if (!dir.isDirectory() || dir.name === 'environments') continue;
    const meta = dict(parseBru(readFileSync(join(COLLECTION, dir.name, 'folder.bru'), 'utf8')), 'meta');
    const folder = { name: meta.name, seq: Number(meta.seq) };
    for (const f of readdirSync(join(COLLECTION, dir.name)).sort()) {
      if (f.endsWith('.bru') && f !== 'folder.bru') requests.push(readRequest(join(dir.name, f), folder));
    }
  }
  return requests.sort((a, b) => a.folder.seq - b.folder.seq || Number(a.meta.seq) - Number(b.meta.seq));
}

export function loadEnvironment(name: string): Record<string, string> {
  return dict(parseBru(readFileSync(join(COLLECTION, 'environments', `${name}.bru`), 'utf8')), 'vars');
}

// The variables a text uses, without Bruno's dynamic ones ({{$randomUUID}}).
export const variablesOf = (text: string) => [...text.matchAll(/\{\{([^}$]+)\}\}/g)].map((m) => m[1]);
// The OpenAPI path a request's URL stands for, its {{variable}} segments as {}: "/assets/{}".
export function routeOf(url: string): string {
  const path = url.replace(/^\{\{baseUrl\}\}/, '').split('?')[0];
  return path.replace(/\{\{[^}]+\}\}/g, '{}');
}

// `bru run <args>` in a collection folder, as a user runs it, with these environment variables
// set: its exit status, what it printed, and its JSON report (summary and one result a request).
export async function bru(dir: string, args: string[], vars: Record<string, string>) {
  const report = join(mkdtempSync(join(tmpdir(), 'bru-')), 'report.json');
  const env = Object.entries(vars).flatMap(([name, value]) => ['--env-var', `${name}=${value}`]);
  const run = await promisify(execFile)(join(ROOT, 'node_modules/.bin/bru'), ['run', ...args, ...env, '--reporter-json', report], { cwd: dir }).then(
    (r) => ({ code: 0, output: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, output: e.stdout + e.stderr }),
  );
  const [{ summary, results }] = JSON.parse(readFileSync(report, 'utf8'));
  return { ...run, summary, results: results as Array<{ test: { filename: string }; assertionResults: Array<{ status: string; error?: string }> }> };
}

// The assertions a run failed, as "<file>: <why>".
export const failures = (run: Awaited<ReturnType<typeof bru>>) =>
  run.results.flatMap((r) => r.assertionResults.filter((a) => a.status !== 'pass').map((a) => `${r.test.filename}: ${a.error}`));
