// What the process runs on beyond its node, read from the environment by lib/platform/config.ts, which
// every entry adapter imports at cold start and which sets it here (useRuntime): Lambda's tracing,
// the faults tests inject, and the secrets of a local run. Each is a reader, called when needed:
// Lambda sets an invocation's trace header anew each time, and tests switch faults in a running
// process. Until config is loaded (unit tests, tools that run no function) nothing is sent to a
// daemon, no fault is injected and no secret is known, so log, metrics and tracing work from the
// first import without importing config (which only adapters do).
export interface LambdaTracing {
  daemonAddress: string; // AWS_XRAY_DAEMON_ADDRESS: "host:port", or "tcp:h:p udp:h:p"
  functionName: string;
  handler: string; // _HANDLER, e.g. functions/payments/worker.handler
  traceHeader?: string; // _X_AMZN_TRACE_ID: this invocation's function segment
}

export interface Runtime {
  // On Lambda with active tracing and TRACES_ENABLED not false: where and as what to trace.
  lambdaTracing: () => LambdaTracing | undefined;
  // The crash points named in PAYMENT_FAULTS (lib/platform/faults.ts).
  faults: () => string[];
  // A secret from the environment, where SECRETS_PREFIX is empty (lib/platform/secrets.ts).
  localSecret: (name: string) => string | undefined;
  // LOCAL_FETCH_HTTPS_AS_HTTP, local runs only: outbound fetches of https URLs go over plain http
  // (./net/fetch.ts), for nodes whose ids are https but which serve plain http on one machine.
  httpsAsHttp: () => boolean;
  // How long a secret's values are kept before they are read again (lib/platform/secrets.ts): 300 s,
  // but LOCAL_SECRETS_CACHE_SECS (local runs only) shortens it; a rotation waits as long.
  secretsCacheSecs: () => number;
}

const runtime: Runtime = {
  lambdaTracing: () => undefined,
  faults: () => [],
  localSecret: () => undefined,
  httpsAsHttp: () => false,
  secretsCacheSecs: () => 300,
};

export const useRuntime = (r: Runtime) => Object.assign(runtime, r);
export const lambdaTracing = () => runtime.lambdaTracing();
export const injectedFaults = () => runtime.faults();
export const localSecret = (name: string) => runtime.localSecret(name);
export const httpsAsHttp = () => runtime.httpsAsHttp();
export const secretsCacheSecs = () => runtime.secretsCacheSecs();
