import { readConfig } from './config-schema';

// The settings of this container, read and validated once, at cold start.
export const config = readConfig(process.env);
export type { Config } from './config-schema';
