import { errorCatalog } from '../../../lib/shared/errors';

// The errors of the local tools (the console, the signing proxy, every local server), which no
// deploy serves.
export const localErrors = errorCatalog({
  consoleRefused: {
    code: 'console_refused',
    status: 403,
    title: 'A request to the console from elsewhere than this machine',
    detail: () => 'The console takes only requests to localhost from this machine',
  },
  metricsOff: { code: 'metrics_off', status: 404, title: 'This node collects no metrics', detail: () => 'This node collects no metrics (LOCAL_METRICS=false)' },
  tracesOff: { code: 'traces_off', status: 404, title: 'This node records no traces', detail: () => 'This node records no traces (LOCAL_TRACES=false)' },
  traceNotFound: {
    code: 'trace_not_found',
    status: 404,
    title: 'No such trace is kept',
    detail: (id: string) => `No trace ${id} is kept here (only the last ones are)`,
  },
  hostRefused: {
    code: 'host_refused',
    status: 403,
    title: "A Host that is not one of the local server's names",
    detail: (port: number) =>
      `This local server answers only to its own names (localhost:${port}, 127.0.0.1:${port}, and the node's public URLs' hosts), not to the Host this request names`,
  },
  proxyRefused: { code: 'proxy_refused', status: 403, title: 'A request the signing proxy does not sign', detail: (detail: string) => detail },
  nodeNotRunning: { code: 'node_not_running', status: 502, title: 'The node the proxy sends to is not running', detail: (detail: string) => detail },
  proxyFailed: {
    code: 'proxy_failed',
    status: 502,
    title: 'The signing proxy could not forward the request',
    detail: (why: string) => `The signing proxy could not forward the request: ${why}`,
  },
});
