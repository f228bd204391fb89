import { nodeOf, readConfig, readRuntime } from './config-schema';
import { useRuntime } from './runtime';

// The settings of this container, read and validated once, at cold start, and the node they
// describe. Only entry adapters (functions/, lib/api/http, lib/api/resource-server) import this; domain
// code gets the node. This is the one module that reads process.env (Biome's noProcessEnv).
export const config = readConfig(process.env);
export const node = nodeOf(config);
export type { Config } from './config-schema';

// The process's switches, validated now (a bad TRACES_ENABLED fails here, by name). Lambda's own
// variables are read again when used, as they are (no parse: every invocation asks): Lambda sets each
// invocation's trace header, and tests switch them, and faults, in a running process.
const { LOCAL_FETCH_HTTPS_AS_HTTP, LOCAL_SECRETS_CACHE_SECS, TRACES_ENABLED } = readRuntime(process.env);
useRuntime({
  lambdaTracing: () => {
    const { AWS_LAMBDA_FUNCTION_NAME: functionName, AWS_XRAY_DAEMON_ADDRESS: daemonAddress } = process.env;
    if (!TRACES_ENABLED || !functionName || !daemonAddress) return undefined;
    return { daemonAddress, functionName, handler: process.env._HANDLER ?? 'handler', traceHeader: process.env._X_AMZN_TRACE_ID };
  },
  faults: () => process.env.PAYMENT_FAULTS?.split(',') ?? [], // on the payment path: no parse
  localSecret: (name) => process.env[name],
  httpsAsHttp: () => LOCAL_FETCH_HTTPS_AS_HTTP,
  secretsCacheSecs: () => LOCAL_SECRETS_CACHE_SECS,
});
