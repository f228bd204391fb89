// The API collection in bruno/, read as Bruno reads it: a .bru file is blocks, `name {` to a line
// that is only `}`; a dictionary block holds `key: value` lines, a text block (a body, docs,
// scripts) indented text. Enough of the format to check the collection, add to it (./bruno.ts) and
// send its requests.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../start/serverless-config';

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

// A route as the collection and the OpenAPI document both name it, its path variables as {}: "GET /assets/{}".
export const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}')}`;

// The signed operations of the Admin API's OpenAPI document (those a request of the collection is
// for; GET /openapi.json, unsigned, has none): method, path, tag, and the operation itself.
export function signedOperations(doc: { paths: Record<string, Record<string, any>> }) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method, op]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method) && !(Array.isArray(op.security) && op.security.length === 0))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, tag: op.tags[0] as string, op })),
  );
}
