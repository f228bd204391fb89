import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { type SecretsManagerEmulator, startSecretsManager } from '../../infra/local/emulators/secrets-manager';
import { secretVersion, useSecretsManager } from '../../lib/platform/secrets';

// The local Secrets Manager emulator, driven by the AWS SDK over its wire protocol (and by the
// service's own reader), as the service drives it.
const ACCOUNT = '000000000000';
let server: SecretsManagerEmulator;
let client: SecretsManagerClient;
let n = 0;
const clientOf = (endpoint: string, credentials = LOCAL_CREDENTIALS) => new SecretsManagerClient({ endpoint, region: LOCAL_REGION, credentials });
const name = () => `test/secret-${++n}`;
// What a refused call threw: AWS's error type and message.
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'no refusal',
    (e: Error) => `${e.name}: ${e.message}`,
  );
const value = (SecretId: string, extra = {}) => client.send(new GetSecretValueCommand({ SecretId, ...extra })).then((r) => r.SecretString);

beforeAll(async () => {
  server = await startSecretsManager({ port: 0, account: ACCOUNT });
  client = clientOf(server.endpoint);
});
afterAll(async () => {
  client.destroy();
  await server.stop();
});

describe('the local Secrets Manager', () => {
  it('keeps a secret it is given, read by its name, its ARN and its ARN without the random suffix', async () => {
    const Name = name();
    const made = await client.send(new CreateSecretCommand({ Name, SecretString: 'first value', Description: 'a test' }));
    expect(made.ARN).toMatch(new RegExp(`^arn:aws:secretsmanager:${LOCAL_REGION}:${ACCOUNT}:secret:${Name}-[0-9a-f]{6}$`));
    expect(made.VersionId).toMatch(/^[0-9a-f-]{36}$/);
    expect([await value(Name), await value(made.ARN!), await value(made.ARN!.slice(0, -7))]).toEqual(['first value', 'first value', 'first value']);
    const described = await client.send(new DescribeSecretCommand({ SecretId: Name }));
    expect(described).toMatchObject({ Name, Description: 'a test', VersionIdsToStages: { [made.VersionId!]: ['AWSCURRENT'] } });
    expect(described.CreatedDate).toBeInstanceOf(Date);
  });

  it('refuses a second secret of a name, an unknown one, and a name AWS would refuse', async () => {
    const Name = name();
    await client.send(new CreateSecretCommand({ Name, SecretString: 'x' }));
    expect(await refusal(client.send(new CreateSecretCommand({ Name, SecretString: 'y' })))).toBe(
      `ResourceExistsException: The operation failed because the secret ${Name} already exists.`,
    );
    expect(await value(Name)).toBe('x');
    expect(await refusal(value('no/such/secret'))).toBe("ResourceNotFoundException: Secrets Manager can't find the specified secret.");
    expect(await refusal(client.send(new CreateSecretCommand({ Name: 'a name with spaces', SecretString: 'x' })))).toMatch(/^InvalidParameterException/);
    expect(await refusal(client.send(new CreateSecretCommand({ Name: name() })))).toBe('InvalidParameterException: SecretString is required');
  });

  it('puts a new current value and keeps the one before as AWSPREVIOUS; the same call again changes nothing', async () => {
    const Name = name();
    const first = await client.send(new CreateSecretCommand({ Name, SecretString: 'v1' }));
    const token = 'a'.repeat(40);
    const second = await client.send(new PutSecretValueCommand({ SecretId: Name, SecretString: 'v2', ClientRequestToken: token }));
    expect(second).toMatchObject({ VersionId: token, VersionStages: ['AWSCURRENT'] });
    expect(await client.send(new PutSecretValueCommand({ SecretId: Name, SecretString: 'v2', ClientRequestToken: token }))).toMatchObject({ VersionId: token });
    expect(await refusal(client.send(new PutSecretValueCommand({ SecretId: Name, SecretString: 'other', ClientRequestToken: token })))).toBe(
      "ResourceExistsException: You can't modify an existing version, you can only create a new version.",
    );
    expect([await value(Name), await value(Name, { VersionStage: 'AWSPREVIOUS' }), await value(Name, { VersionId: first.VersionId })]).toEqual([
      'v2',
      'v1',
      'v1',
    ]);
    await client.send(new PutSecretValueCommand({ SecretId: Name, SecretString: 'v3' }));
    const { VersionIdsToStages } = await client.send(new DescribeSecretCommand({ SecretId: Name }));
    // v1 has no stage left: AWS deprecates such a version and may delete it; the emulator drops it.
    expect(Object.values(VersionIdsToStages!).sort()).toEqual([['AWSCURRENT'], ['AWSPREVIOUS']]);
    expect(await value(Name, { VersionStage: 'AWSPREVIOUS' })).toBe('v2');
  });

  it('deletes after a recovery window, readable by nobody meanwhile and restorable; or at once when forced', async () => {
    const Name = name();
    await client.send(new CreateSecretCommand({ Name, SecretString: 'kept' }));
    const deleted = await client.send(new DeleteSecretCommand({ SecretId: Name, RecoveryWindowInDays: 7 }));
    expect(deleted.DeletionDate!.getTime() - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    expect(await refusal(value(Name))).toBe("InvalidRequestException: You can't perform this operation on the secret because it was marked for deletion.");
    expect(await refusal(client.send(new CreateSecretCommand({ Name, SecretString: 'again' })))).toMatch(/^InvalidRequestException: .*scheduled for deletion/);
    await client.send(new RestoreSecretCommand({ SecretId: Name }));
    expect(await value(Name)).toBe('kept');

    expect(await refusal(client.send(new DeleteSecretCommand({ SecretId: Name, RecoveryWindowInDays: 3 })))).toBe(
      'InvalidParameterException: RecoveryWindowInDays must be 7 to 30',
    );
    await client.send(new DeleteSecretCommand({ SecretId: Name, ForceDeleteWithoutRecovery: true }));
    expect(await refusal(value(Name))).toMatch(/^ResourceNotFoundException/);
    await client.send(new CreateSecretCommand({ Name, SecretString: 'new' }));
    expect(await value(Name)).toBe('new');
  });

  it("moves staging labels as a rotation's steps do: a pending value beside the current one, then made current", async () => {
    const SecretId = name();
    const { VersionId: first } = await client.send(new CreateSecretCommand({ Name: SecretId, SecretString: 'first' }));
    const pending = '0f0e0d0c-0b0a-4909-8807-060504030201';
    await client.send(new PutSecretValueCommand({ SecretId, SecretString: 'second', ClientRequestToken: pending, VersionStages: ['AWSPENDING'] }));
    expect([await value(SecretId), await value(SecretId, { VersionStage: 'AWSPENDING' })]).toEqual(['first', 'second']);
    expect(await refusal(value(SecretId, { VersionId: pending, VersionStage: 'AWSCURRENT' }))).toMatch(/^ResourceNotFoundException/);
    // AWSCURRENT moves only from the version named as having it.
    expect(await refusal(client.send(new UpdateSecretVersionStageCommand({ SecretId, VersionStage: 'AWSCURRENT', MoveToVersionId: pending })))).toMatch(
      /^InvalidParameterException: The staging label AWSCURRENT is attached to version/,
    );
    const move = { SecretId, VersionStage: 'AWSCURRENT', MoveToVersionId: pending, RemoveFromVersionId: first };
    await client.send(new UpdateSecretVersionStageCommand(move));
    await client.send(new UpdateSecretVersionStageCommand({ SecretId, VersionStage: 'AWSPENDING', RemoveFromVersionId: pending }));
    expect((await client.send(new DescribeSecretCommand({ SecretId }))).VersionIdsToStages).toEqual({ [first!]: ['AWSPREVIOUS'], [pending]: ['AWSCURRENT'] });
    expect([await value(SecretId), await value(SecretId, { VersionStage: 'AWSPREVIOUS' })]).toEqual(['second', 'first']);
  });

  it('answers only requests signed with SigV4 by the local credentials', async () => {
    const Name = name();
    await client.send(new CreateSecretCommand({ Name, SecretString: 'private' }));
    const stranger = clientOf(server.endpoint, { ...LOCAL_CREDENTIALS, secretAccessKey: 'not the local one' });
    expect(await refusal(stranger.send(new GetSecretValueCommand({ SecretId: Name })))).toBe(
      'UnrecognizedClientException: The security token included in the request is invalid: the signature does not match',
    );
    stranger.destroy();
    const unsigned = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' },
      body: JSON.stringify({ SecretId: Name }),
    });
    expect([unsigned.status, ((await unsigned.json()) as { __type: string }).__type]).toEqual([400, 'UnrecognizedClientException']);
  });

  it('is read by the service, by staging label (lib/platform/secrets.ts)', async () => {
    const Name = name();
    await client.send(new CreateSecretCommand({ Name, SecretString: 'read by the service' }));
    useSecretsManager(client);
    try {
      expect(await secretVersion(Name, 'AWSCURRENT')).toMatchObject({ value: 'read by the service' });
      expect(await secretVersion(Name, 'AWSPENDING')).toBeUndefined();
    } finally {
      useSecretsManager(undefined);
    }
  });

  it('keeps its secrets in a data folder across a restart, deletions too', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'secrets-'));
    const first = await startSecretsManager({ port: 0, account: ACCOUNT, dataDir });
    const a = clientOf(first.endpoint);
    await a.send(new CreateSecretCommand({ Name: 'kept', SecretString: 'v1' }));
    await a.send(new PutSecretValueCommand({ SecretId: 'kept', SecretString: 'v2' }));
    await a.send(new CreateSecretCommand({ Name: 'dropped', SecretString: 'x' }));
    await a.send(new DeleteSecretCommand({ SecretId: 'dropped', ForceDeleteWithoutRecovery: true }));
    a.destroy();
    await first.stop();

    const second = await startSecretsManager({ port: 0, account: ACCOUNT, dataDir });
    const b = clientOf(second.endpoint);
    try {
      expect(await b.send(new GetSecretValueCommand({ SecretId: 'kept' })).then((r) => r.SecretString)).toBe('v2');
      expect(await b.send(new GetSecretValueCommand({ SecretId: 'kept', VersionStage: 'AWSPREVIOUS' })).then((r) => r.SecretString)).toBe('v1');
      expect(await refusal(b.send(new GetSecretValueCommand({ SecretId: 'dropped' })))).toMatch(/^ResourceNotFoundException/);
    } finally {
      b.destroy();
      await second.stop();
    }
  });
});
