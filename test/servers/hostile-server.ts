import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { listen } from '../../infra/local/start/listen';

// Real servers that answer as a hostile client's or node's would, for the outbound fetch limits
// (lib/platform/net/fetch.ts): each counts the requests it took and the bytes its answers got out before the
// other side hung up.
export interface Tally {
  requests: number;
  bytesSent: number;
  hungUp: boolean; // the connection closed before the answer was complete
}

export interface HostileServer {
  url: string; // http://127.0.0.1:<port>
  port: number;
  tally: Tally;
  stop(): Promise<void>;
}

// Writes `chunk` until `total` bytes went out (Infinity: for ever) or the peer hangs up, waiting
// for the socket to drain as a well-behaved server would.
export async function pour(out: ServerResponse | Socket, tally: Tally, total: number, chunk = Buffer.alloc(16 * 1024, 0x20)): Promise<void> {
  let closed = false;
  out.once('close', () => {
    closed = true;
  });
  while (tally.bytesSent < total && !closed) {
    const drained = out.write(chunk);
    tally.bytesSent += chunk.length;
    // (not events.once: it rejects on the 'error' a reset socket emits, which is the point here)
    if (!drained)
      await new Promise<void>((go) => {
        const done = () => {
          out.off('drain', done);
          out.off('close', done);
          go();
        };
        out.on('drain', done);
        out.on('close', done);
      });
  }
  if (closed) tally.hungUp = true;
  else out.end();
}

export async function startHostileServer(handler: (req: IncomingMessage, res: ServerResponse, tally: Tally) => void): Promise<HostileServer> {
  const tally: Tally = { requests: 0, bytesSent: 0, hungUp: false };
  const server = createServer((req, res) => {
    tally.requests++;
    handler(req, res, tally);
  });
  const { port, stop } = await listen(server, 0);
  return { url: `http://127.0.0.1:${port}`, port, tally, stop };
}

// A raw TCP server, for answers Node's HTTP server will not write (a Content-Length that lies).
export async function startRawServer(onSocket: (socket: Socket, tally: Tally) => void): Promise<HostileServer> {
  const tally: Tally = { requests: 0, bytesSent: 0, hungUp: false };
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    tally.requests++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => onSocket(socket, tally));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    tally,
    stop: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}
