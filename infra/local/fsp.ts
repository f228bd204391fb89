import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';

// The local FSP simulator that `npm start` runs: it serves the pull model's rates endpoint
// (GET /rates?base=USD[&peerId=P]) from an editable JSON file, read afresh on every request.
interface RatesFile {
  rates?: Record<string, Record<string, number>>;
  peerRates?: Record<string, Record<string, Record<string, number>>>;
}

export async function startFsp(opts: { port: number; ratesFile: string; log?: (line: string) => void }) {
  const log = opts.log ?? (() => undefined);
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
      log(`[fsp] ${req.method} ${url.pathname}${url.search} -> ${status}`);
    };
    if (req.method !== 'GET' || url.pathname !== '/rates') return reply(404, { error: 'not found' });
    const base = url.searchParams.get('base');
    const peerId = url.searchParams.get('peerId');
    if (!base) return reply(400, { error: 'base is required' });
    let file: RatesFile;
    try {
      file = JSON.parse(await readFile(opts.ratesFile, 'utf8'));
    } catch (e) {
      return reply(500, { error: `cannot read ${opts.ratesFile}: ${(e as Error).message}` });
    }
    const table = peerId ? file.peerRates?.[peerId] : file.rates;
    const rates = table?.[base];
    if (!rates) return reply(404, { error: `no rates for base ${base}${peerId ? ` and peer ${peerId}` : ''}` });
    reply(200, { base, rates });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port, '127.0.0.1', () => ok());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://localhost:${port}`,
    stop: () => new Promise<void>((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    }),
  };
}
