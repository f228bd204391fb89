import { setTimeout as sleep } from 'node:timers/promises';
import { DescribeSecretCommand, PutSecretValueCommand, UpdateSecretVersionStageCommand } from '@aws-sdk/client-secrets-manager';
import { logger } from './log';
import { secretsCacheSecs } from './runtime';
import { isRotated, newSecretValue, type RotatedSecret, STAGES, secretsManager, secretVersion, validSecretValue } from './secrets';

// Secrets Manager's rotation of the secrets another party holds (the Admin API's, the webhooks' and
// the consent page's: a tenant's and the deployment's), the four steps AWS's rotation function
// takes (docs.aws.amazon.com/secretsmanager/latest/userguide/rotate-secrets_lambda-functions.html),
// each a call of Secrets Manager's to functions/secrets/rotate.ts, each safe to run again:
// - createSecret: a new random value, as the version Secrets Manager named (the token), AWSPENDING;
// - setSecret: nothing: the service is the one that checks the value (no database to tell);
// - testSecret: the new value has the form the service takes (./secrets.ts, validSecretValue);
//   alone on a version with no value, AWS's test of the configuration, which passes;
// - finishSecret: the new value becomes AWSCURRENT (the old one AWSPREVIOUS), once every function
//   has read the new one: the values functions accept are cached secretsCacheSecs, and include
//   AWSPENDING, so waiting that long after createSecret means that no function refuses a party that
//   switches at once to the new value, while the old one is still accepted for a day
//   (PREVIOUS_ACCEPTED_SECS). STREAM_SECRET and OPEN_PAYMENTS_CLIENT_SECRET are not rotated (what
//   derives from them outlives a value: docs/deploy.md, "Secrets and their rotation").
export type RotationStep = 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';
export interface RotationEvent {
  Step: RotationStep;
  SecretId: string;
  ClientRequestToken: string;
}

// A second beyond the cache's age: a value read at the very end of it is still replaced.
const MARGIN_MS = 1000;

export async function rotationStep(event: RotationEvent, wait: (ms: number) => Promise<unknown> = sleep): Promise<void> {
  const { Step: step, SecretId: id, ClientRequestToken: token } = event;
  const described = await secretsManager().send(new DescribeSecretCommand({ SecretId: id }));
  const name = described.Name?.split('/').pop() ?? '';
  if (!isRotated(name)) throw new Error(`Secret ${described.Name} is not one this function rotates`);
  const versions = described.VersionIdsToStages ?? {};
  const stages = versions[token];
  if (!stages) throw new Error(`Secret ${described.Name} has no version ${token} to rotate to`);
  if (stages.includes(STAGES.current)) return; // this rotation is done
  if (!stages.includes(STAGES.pending)) throw new Error(`Secret ${described.Name}'s version ${token} is not AWSPENDING`);
  logger.info('Rotating a secret', { step, secret: described.Name, version: token });
  if (step === 'createSecret') return createSecret(id, token, name);
  if (step === 'testSecret') return testSecret(id, token, name);
  if (step === 'finishSecret') {
    const current = Object.keys(versions).find((v) => versions[v].includes(STAGES.current));
    return finishSecret(id, token, current, wait);
  }
}

async function pendingValue(id: string, token: string) {
  const pending = await secretVersion(id, STAGES.pending);
  return pending?.id === token ? pending : undefined;
}

async function createSecret(id: string, token: string, name: RotatedSecret): Promise<void> {
  if (await pendingValue(id, token)) return; // made by an earlier try of this step
  await secretsManager().send(
    new PutSecretValueCommand({ SecretId: id, ClientRequestToken: token, SecretString: newSecretValue(name), VersionStages: [STAGES.pending] }),
  );
}

// A version with no value is AWS's test of a rotation's configuration (RotateSecret without
// rotating at once runs this step alone): nothing to test, and finishSecret refuses such a version.
async function testSecret(id: string, token: string, name: RotatedSecret): Promise<void> {
  const pending = await pendingValue(id, token);
  if (pending && !validSecretValue(name, pending.value)) throw new Error(`The new value of ${name} (${token}) is not of its form`);
}

async function finishSecret(id: string, token: string, current: string | undefined, wait: (ms: number) => Promise<unknown>): Promise<void> {
  const pending = await pendingValue(id, token);
  if (!pending) throw new Error(`Secret ${id} has no value for ${token}`);
  await wait(Math.max(0, pending.created + secretsCacheSecs() * 1000 + MARGIN_MS - Date.now()));
  const send = (stage: string, move: { MoveToVersionId?: string; RemoveFromVersionId?: string }) =>
    secretsManager().send(new UpdateSecretVersionStageCommand({ SecretId: id, VersionStage: stage, ...move }));
  await send(STAGES.current, { MoveToVersionId: token, RemoveFromVersionId: current });
  await send(STAGES.pending, { RemoveFromVersionId: token });
}
