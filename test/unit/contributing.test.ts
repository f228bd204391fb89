import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/start/serverless-config';

// CONTRIBUTING.md's TypeScript snippets compile against today's code. Each ```ts block comes after
// an HTML comment, `<!-- check: ... -->`, that a reader does not see: the imports and declarations the
// snippet takes for granted (as if it stood in a module of test/unit/). The block is type-checked
// with the project's settings in memory (no file is written), as a module body; `<!-- check
// (in a function): ... -->` puts it in an async function's body, for a snippet that returns.
const DOC = 'CONTRIBUTING.md';
const BLOCK = /(?:<!-- check( \(in a function\))?:\s*([\s\S]*?)-->[ \t]*\n)?[ \t]*```ts\n([\s\S]*?)```/g;

interface Snippet {
  line: number;
  preamble?: string;
  inFunction: boolean;
  code: string;
}

function snippetsOf(text: string): Snippet[] {
  return [...text.matchAll(BLOCK)].map((m) => ({
    line: text.slice(0, m.index).split('\n').length + (m[2] === undefined ? 0 : m[0].slice(0, m[0].indexOf('```')).split('\n').length - 1),
    preamble: m[2],
    inFunction: Boolean(m[1]),
    code: m[3],
  }));
}

function sourceOf(s: Snippet): string {
  const body = s.inFunction ? `export async function snippet() {\n${s.code}}\n` : s.code;
  return `${s.preamble}\n${body}\nexport {};\n`;
}

// Type errors of each snippet, by its line in the document; none when all compile.
function typeErrors(snippets: Snippet[]): string[] {
  const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const virtual = new Map(snippets.map((s, i) => [join(ROOT, 'test/unit', `contributing-snippet-${i}.ts`), s]));
  const host = ts.createCompilerHost(options);
  const realGet = host.getSourceFile;
  host.getSourceFile = (name, language, ...rest) => {
    const s = virtual.get(name);
    return s ? ts.createSourceFile(name, sourceOf(s), language) : realGet(name, language, ...rest);
  };
  const realExists = host.fileExists;
  host.fileExists = (name) => virtual.has(name) || realExists(name);
  const program = ts.createProgram([...virtual.keys()], { ...options, noUnusedLocals: false }, host);
  return [...virtual].flatMap(([name, s]) =>
    ts.getPreEmitDiagnostics(program, program.getSourceFile(name)).map((d) => `${DOC}:${s.line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`),
  );
}

describe(`${DOC}'s snippets`, () => {
  const snippets = snippetsOf(readFileSync(join(ROOT, DOC), 'utf8'));
  // A made-up stale snippet (line 0), checked in the same program as the document's: building one
  // loads the project's types once.
  const stale: Snippet = { line: 0, preamble: "import { commit } from '../../lib/platform/tx';", inFunction: true, code: 'await commit();\n' };
  let errors: string[];
  beforeAll(() => {
    errors = typeErrors([...snippets, stale]);
  });
  const ofStale = (e: string) => e.startsWith(`${DOC}:0:`);

  it('each says what it takes for granted', () => {
    expect(snippets.length).toBeGreaterThan(3);
    expect(snippets.filter((s) => s.preamble === undefined).map((s) => `${DOC}:${s.line}`)).toEqual([]);
  });

  it('compile against the code as it is', () => {
    expect(errors.filter((e) => !ofStale(e))).toEqual([]);
  });

  it('would show a snippet that no longer compiles', () => {
    expect(errors.filter(ofStale)).toEqual([expect.stringMatching(/Expected 2-4 arguments/)]);
  });
});
