import * as z from 'zod';

// Every setting the Lambda functions read, validated once at cold start. A bad or missing value
// fails here with the variable's name, not later inside a request.
const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));

const schema = z.object({
  MAIN_TABLE: z.string().min(1),
  IDEMPOTENCY_TABLE: z.string().min(1),
  ADMIN_API_SECRET: z.string().min(16, 'must be at least 16 characters'),
  WALLET_ADDRESS_URL: url,
  AUTH_SERVER_URL: url,
});

export type Config = z.infer<typeof schema>;

export function readConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return parsed.data;
}

export const config = readConfig(process.env);
