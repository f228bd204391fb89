import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

// A real HTTP server standing in for the FSP's rates endpoint. By default it serves `rates`
// (keyed by peerId, '' for FSP-wide, then base); a test can take over with `respondWith`.
type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

export async function startRatesServer() {
  const rates: Record<string, Record<string, Record<string, number>>> = { '': {} };
  const requests: Array<{ base: string | null; peerId: string | null }> = [];
  const serveTable: Handler = (_req, res, url) => {
    const base = url.searchParams.get('base') ?? '';
    const table = rates[url.searchParams.get('peerId') ?? '']?.[base];
    res.writeHead(table ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(table ? { base, rates: table } : { error: 'unknown base' }));
  };
  let handler: Handler = serveTable;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push({ base: url.searchParams.get('base'), peerId: url.searchParams.get('peerId') });
    handler(req, res, url);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/rates`,
    rates,
    requests,
    respondWith(h: Handler) {
      handler = h;
    },
    reset() {
      handler = serveTable;
      requests.length = 0;
    },
    stop: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
