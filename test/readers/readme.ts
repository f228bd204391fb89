import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NODES } from '../../infra/local/start/defaults';
import { ROOT } from '../../infra/local/start/serverless-config';
import { type NpmNode as Node, NPM_NODE_SECRET as SECRET } from '../harness/node';

// The walkthroughs of the README (and of docs/) as a user runs them: their shell blocks, pasted
// into bash against nodes that `npm start` runs on free ports.

const shellBlocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);

// The README's shell blocks of a section ("## <heading>"), as written.
export function readmeBlocks(heading: string): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return shellBlocks(readme.slice(readme.indexOf(`\n## ${heading}\n`)).split(/\n## /)[1]);
}

// The shell blocks of a page of docs/ (e.g. 'three-nodes.md'), as written.
export const docBlocks = (page: string) => shellBlocks(readFileSync(join(ROOT, 'docs', page), 'utf8'));

// A README block pasted whole into bash, against nodes on free ports: the only change is the
// ports (each default one the README names, and the port `a`, `b` and `c` send to). Returns what it
// printed and every answer `a`/`b`/`c` printed, in order ("<status> <text>" and a JSON body).
export async function paste(script: string, nodes: { a: Node; b?: Node; c?: Node }) {
  let text = script;
  for (const name of ['a', 'b', 'c'] as const) {
    text = text.replace(`${name}() { npm run -s admin --`, `${name}() { ADMIN_PORT=${nodes[name]?.ports.ADMIN_PORT} npm run -s admin --`);
  }
  // One pass over the text, each whole port once: a free port may begin with a default one
  // (40021 with 4002), which replacing one port after another would corrupt.
  const ports = new Map<string, number>();
  for (const name of ['a', 'b', 'c'] as const) {
    const node = nodes[name];
    if (!node) continue;
    const { admin, openPayments, fsp, connector, authServer } = NODES[name].ports;
    ports.set(String(admin), node.ports.ADMIN_PORT);
    ports.set(String(openPayments), node.ports.OPEN_PAYMENTS_PORT);
    ports.set(String(fsp), node.ports.FSP_PORT);
    ports.set(String(connector), node.ports.CONNECTOR_PORT);
    ports.set(String(authServer), node.ports.AUTH_SERVER_PORT);
  }
  text = text.replace(/localhost:(\d+)/g, (whole, port: string) => (ports.has(port) ? `localhost:${ports.get(port)}` : whole));
  const run = await promisify(execFile)('bash', ['-c', text], { cwd: ROOT, env: { ...process.env, ADMIN_API_SECRET: SECRET } }).catch((e) => e);
  const answers = [...run.stdout.matchAll(/(\d{3}) [A-Z][^\n]*\n(\{\n[\s\S]*?\n\})\n/g)].map((m) => ({ status: Number(m[1]), body: JSON.parse(m[2]) }));
  return { stdout: run.stdout as string, stderr: run.stderr as string, answers };
}
