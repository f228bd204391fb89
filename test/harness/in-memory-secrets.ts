import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeEach } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { secretsManagerCalls } from '../../infra/local/emulators/secrets-manager';
import { useSecretsManager } from '../../lib/platform/secrets';

// Secrets Manager in memory, for the service tests of what keeps secrets (tenants): the SDK's own
// client, whose requests are answered in this process by the local emulator's calls
// (infra/local/emulators/secrets-manager.ts) instead of over HTTP. So the SDK serializes each
// command and reads each answer as on AWS (dates, and errors by AWS's names:
// ResourceExistsException, ResourceNotFoundException, InvalidRequestException...), and the
// secrets keep the emulator's rules (a name made once; a secret scheduled for deletion is
// unreadable and its name taken; versions and their stages), which test/tooling/secrets-manager-emulator.test.ts
// proves on the wire.
// `rotate`: what RotateSecret calls with each step (the rotation function, in this process).
export function memorySecretsManager(rotate?: (lambdaArn: string, event: unknown) => Promise<unknown>): SecretsManagerClient {
  const calls = secretsManagerCalls({ account: '000000000000', rotate });
  const requestHandler = {
    async handle(request: { headers: Record<string, string>; body?: string | Uint8Array }) {
      const text = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
      const { status, body } = calls.call(request.headers['x-amz-target'] ?? '', text);
      return { response: { statusCode: status, headers: { 'content-type': 'application/x-amz-json-1.1' }, body: Buffer.from(JSON.stringify(body)) } };
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
  return new SecretsManagerClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, requestHandler, maxAttempts: 1 });
}

// Registers, for the file it is called in, a fresh in-memory Secrets Manager before each test in
// place of AWS's (lib/platform/secrets.ts, useSecretsManager), and AWS's again after the file;
// answers the running test's client, to look at what the service kept. Beside inMemory():
//
//   const mem = inMemory();
//   const secrets = inMemorySecrets();
export function inMemorySecrets(rotate?: (lambdaArn: string, event: unknown) => Promise<unknown>): { readonly client: SecretsManagerClient } {
  let current: SecretsManagerClient | undefined;
  beforeEach(() => {
    current = memorySecretsManager(rotate);
    useSecretsManager(current);
  });
  afterAll(() => useSecretsManager(undefined));
  return {
    get client() {
      if (!current) throw new Error('inMemorySecrets(): the Secrets Manager is made before each test');
      return current;
    },
  };
}
