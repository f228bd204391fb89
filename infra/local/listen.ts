import type { IncomingMessage, Server } from 'node:http';

// A start that cannot go on for a reason the user can mend (a port held by another program): its
// message says what to change, and `npm start` prints it without a stack trace.
export class StartError extends Error {}

// Starts a local HTTP server on loopback (port 0: any free port) and gives its port and a stop
// that also ends kept-alive connections.
export async function listen(server: Server, port: number): Promise<{ port: number; stop(): Promise<void> }> {
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok());
  });
  return {
    port: (server.address() as { port: number }).port,
    stop: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

// A request's body, read whole unless it grows past `maxBytes` (then 'too_large', and the rest is
// not read): the local servers' one body reader.
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > maxBytes) return 'too_large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
