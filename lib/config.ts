import { readConfig } from './config-schema';
import { nodeOf } from './node';

// The settings of this container, read and validated once, at cold start, and the node they
// describe. Only entry adapters (functions/, lib/http) import this; domain code gets the node.
export const config = readConfig(process.env);
export const node = nodeOf(config);
export type { Config } from './config-schema';
