import { nodeOf, readConfig, readRuntime } from './config-schema';
import { useRuntime } from './runtime';

// The settings of this container, read and validated once, at cold start, and the node they
// describe. Only entry adapters (functions/, lib/api/http, lib/api/resource-server) import this; domain
// code gets the node. This is the one module that reads process.env (Biome's noProcessEnv).
export const config = readConfig(process.env);
export const node = nodeOf(config);
export type { Config } from './config-schema';

// The process's switches, validated now (a bad TRACES_ENABLED fails here, by name) and read again
// when used: Lambda sets each invocation's trace header, and tests switch faults in a running process.
const { LOCAL_FETCH_HTTPS_AS_HTTP, LOCAL_SECRETS_CACHE_SECS } = readRuntime(process.env);
const now = () => readRuntime(process.env);
useRuntime({
  lambdaTracing: () => {
    const r = now();
    if (!r.TRACES_ENABLED || !r.AWS_LAMBDA_FUNCTION_NAME || !r.AWS_XRAY_DAEMON_ADDRESS) return undefined;
    return { daemonAddress: r.AWS_XRAY_DAEMON_ADDRESS, functionName: r.AWS_LAMBDA_FUNCTION_NAME, handler: r._HANDLER, traceHeader: r._X_AMZN_TRACE_ID };
  },
  faults: () => process.env.PAYMENT_FAULTS?.split(',') ?? [], // on the payment path: no parse
  localSecret: (name) => process.env[name],
  httpsAsHttp: () => LOCAL_FETCH_HTTPS_AS_HTTP,
  secretsCacheSecs: () => LOCAL_SECRETS_CACHE_SECS,
});
