import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { listen, readBody } from '../start/listen';
import { LOCAL_REGION } from './emulators';
import { type Journal, openJournal } from './journal';
import { sigV4Refusal } from './sigv4';

// A small Secrets Manager emulator: the calls the service makes (create, read, put a new value,
// describe, delete and restore a secret, put and read its resource policy, by name or ARN) over the AWS JSON 1.1 wire protocol, each
// signed with SigV4 by the local credentials, as AWS requires. No Secrets Manager server ships on
// npm, and the local run keeps every secret the service makes at run time (a tenant's Admin API
// secret) where AWS keeps it, so that one code path reads them on both. Given a data folder, it
// keeps its secrets there (./journal.ts): a secret's whole state after each change, the last one
// read back at the next start. Values are stored as given: a local folder is no vault.
// Rotation as AWS runs it: RotateSecret makes the new version (AWSPENDING, no value yet) and calls
// the rotation function (`rotate`: the local Lambda runtime) with each of its four steps in turn,
// after answering; the steps set the value and move the labels (PutSecretValue with VersionStages,
// UpdateSecretVersionStage). A rotation schedule is kept but not run: a local run rotates when asked.
// A secret's KMS key (KmsKeyId) and resource policy are kept and answered as given, and enforce
// nothing: locally no call is authorized but by the local credentials' signature. BlockPublicPolicy
// refuses a policy that lets anyone in (an Allow to every principal with no condition), as AWS's
// check does for the plainest case.
const STAGES = { current: 'AWSCURRENT', previous: 'AWSPREVIOUS', pending: 'AWSPENDING' } as const;
const ROTATION_STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;
const NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const TOKEN = /^[A-Za-z0-9-]{32,64}$/;
const MAX_VALUE_BYTES = 65_536;
const MAX_REQUEST_BYTES = 4 * MAX_VALUE_BYTES; // a value, JSON-escaped, and the call's other fields
const DAY_SECS = 86_400;

interface Version {
  id: string;
  value?: string; // none yet: a rotation's new version before its createSecret step
  created: number; // epoch seconds, as the API gives dates
  stages: string[];
}

interface Secret {
  arn: string;
  name: string;
  description?: string;
  kmsKeyId?: string; // none: AWS's own key (aws/secretsmanager)
  policy?: string; // the resource policy, as given
  created: number;
  changed: number;
  // Scheduled for deletion: when it was asked (at) and when the secret is gone (until); restorable
  // until then.
  deleted?: { at: number; until: number };
  versions: Version[];
  rotation?: { lambdaArn: string; rules?: unknown; rotated?: number; running?: boolean };
}

// What a call answers when it cannot be done: AWS's error type and message, HTTP 400.
class Refusal extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}
const notFound = () => new Refusal('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
const invalidParameter = (message: string) => new Refusal('InvalidParameterException', message);
const markedForDeletion = () => new Refusal('InvalidRequestException', "You can't perform this operation on the secret because it was marked for deletion.");

const now = () => Math.floor(Date.now() / 1000);

// What a call answers: its HTTP status and JSON body, as AWS's JSON 1.1 protocol has them.
export interface SecretsReply {
  status: number;
  body: unknown;
}

// The emulator's secrets and its calls, without the server: `call` takes an operation's target
// (x-amz-target) and JSON body. The server below serves it on the wire; the service tests in
// memory (test/harness/in-memory-secrets.ts) put it behind the SDK client, in the same process.
export function secretsManagerCalls(opts: { account: string; dataDir?: string; rotate?: (lambdaArn: string, event: unknown) => Promise<unknown> }) {
  const secrets = new Map<string, Secret>(); // by name
  let journal: Journal<Secret | { gone: string }> | undefined;
  if (opts.dataDir) {
    const opened = openJournal<Secret | { gone: string }>(join(opts.dataDir, 'secretsmanager', 'journal.jsonl'));
    for (const r of opened.records) 'gone' in r ? secrets.delete(r.gone) : secrets.set(r.name, r);
    journal = opened.journal;
    journal.compact([...secrets.values()]);
  }
  const save = (s: Secret) => {
    secrets.set(s.name, s);
    journal?.append(s);
  };
  const remove = (name: string) => {
    secrets.delete(name);
    journal?.append({ gone: name });
  };

  // A secret by its name or its ARN (whole, or without the 6 random characters AWS adds to a name).
  function find(id: unknown): Secret {
    if (typeof id !== 'string' || !id) throw invalidParameter('SecretId is required');
    const s = secrets.get(id) ?? [...secrets.values()].find((s) => s.arn === id || s.arn.slice(0, -7) === id);
    if (!s) throw notFound();
    if (s.deleted && s.deleted.until <= now()) {
      remove(s.name); // its recovery window is over
      throw notFound();
    }
    return s;
  }
  const live = (id: unknown) => {
    const s = find(id);
    if (s.deleted) throw markedForDeletion();
    return s;
  };
  const versionOf = (s: Secret, by: { stage?: string; id?: unknown } = {}) => {
    // By id, by label, or both (then both must match); by neither, the current value.
    const stage = by.stage ?? (by.id === undefined ? STAGES.current : undefined);
    const v = s.versions.find((v) => (by.id === undefined || v.id === by.id) && (stage === undefined || v.stages.includes(stage)));
    if (v?.value !== undefined) return v as Version & { value: string };
    const which = by.id !== undefined ? `VersionId: ${by.id}` : `staging label: ${stage}`;
    throw new Refusal('ResourceNotFoundException', `Secrets Manager can't find the specified secret value for ${which}`);
  };
  const secretString = (input: Record<string, unknown>) => {
    if (input.SecretBinary !== undefined) throw invalidParameter('This emulator keeps SecretString values only');
    const value = input.SecretString;
    if (typeof value !== 'string' || !value) throw invalidParameter('SecretString is required');
    if (Buffer.byteLength(value) > MAX_VALUE_BYTES) throw invalidParameter(`SecretString is over ${MAX_VALUE_BYTES} bytes`);
    return value;
  };
  const tokenOf = (input: Record<string, unknown>) => {
    const token = input.ClientRequestToken ?? randomUUID();
    if (typeof token !== 'string' || !TOKEN.test(token)) throw invalidParameter('ClientRequestToken must be 32 to 64 letters, digits and hyphens');
    return token;
  };

  const operations: Record<string, (input: Record<string, unknown>) => unknown> = {
    CreateSecret(input) {
      const name = input.Name;
      if (typeof name !== 'string' || !NAME.test(name)) throw invalidParameter('Name must be 1 to 512 of A-Z a-z 0-9 / _ + = . @ -');
      const value = secretString(input);
      const versionId = tokenOf(input);
      const existing = secrets.get(name);
      if (existing?.deleted && existing.deleted.until > now()) {
        throw new Refusal('InvalidRequestException', "You can't create this secret because a secret with this name is already scheduled for deletion.");
      }
      if (existing && !existing.deleted) {
        throw new Refusal('ResourceExistsException', `The operation failed because the secret ${name} already exists.`);
      }
      const t = now();
      const arn = `arn:aws:secretsmanager:${LOCAL_REGION}:${opts.account}:secret:${name}-${randomBytes(3).toString('hex')}`;
      const description = typeof input.Description === 'string' ? input.Description : undefined;
      const kmsKeyId = typeof input.KmsKeyId === 'string' && input.KmsKeyId ? input.KmsKeyId : undefined;
      save({ arn, name, description, kmsKeyId, created: t, changed: t, versions: [{ id: versionId, value, created: t, stages: [STAGES.current] }] });
      return { ARN: arn, Name: name, VersionId: versionId };
    },
    GetSecretValue(input) {
      const s = live(input.SecretId);
      const v = versionOf(s, { id: input.VersionId, stage: typeof input.VersionStage === 'string' ? input.VersionStage : undefined });
      return { ARN: s.arn, Name: s.name, VersionId: v.id, SecretString: v.value, VersionStages: v.stages, CreatedDate: v.created };
    },
    // A new current value; the one it replaces stays readable as AWSPREVIOUS. With VersionStages
    // (a rotation's AWSPENDING), the new version takes those labels only, from whichever version had
    // them. The same token with the same value is the same call again (the SDK sends a fresh token
    // for each new call); a version a rotation made without a value takes one.
    PutSecretValue(input) {
      const s = live(input.SecretId);
      const value = secretString(input);
      const versionId = tokenOf(input);
      const same = s.versions.find((v) => v.id === versionId);
      if (same?.value !== undefined) {
        if (same.value !== value) throw new Refusal('ResourceExistsException', "You can't modify an existing version, you can only create a new version.");
        return { ARN: s.arn, Name: s.name, VersionId: same.id, VersionStages: same.stages };
      }
      const t = now();
      const labels = input.VersionStages;
      if (labels !== undefined && (!Array.isArray(labels) || !labels.every((l) => typeof l === 'string' && l)))
        throw invalidParameter('VersionStages must be labels');
      const stages = (labels as string[] | undefined) ?? [STAGES.current];
      const others = s.versions.filter((v) => v.id !== versionId);
      let versions: Version[];
      if (stages.includes(STAGES.current)) {
        const previous = versionOf(s);
        versions = others
          .filter((v) => v.id === previous.id || v.stages.some((stage) => stage !== STAGES.previous))
          .map((v) => ({
            ...v,
            stages: v.id === previous.id ? [STAGES.previous] : v.stages.filter((stage) => stage !== STAGES.previous && !stages.includes(stage)),
          }));
      } else {
        versions = others.map((v) => ({ ...v, stages: v.stages.filter((stage) => !stages.includes(stage)) })).filter((v) => v.stages.length);
      }
      save({ ...s, changed: t, versions: [...versions, { id: versionId, value, created: t, stages }] });
      return { ARN: s.arn, Name: s.name, VersionId: versionId, VersionStages: stages };
    },
    // A label moved to a version (MoveToVersionId) from the one that has it (RemoveFromVersionId,
    // required then), or taken off one. AWSCURRENT moved leaves AWSPREVIOUS on the version it left.
    UpdateSecretVersionStage(input) {
      const s = live(input.SecretId);
      const stage = input.VersionStage;
      if (typeof stage !== 'string' || !stage) throw invalidParameter('VersionStage is required');
      const { MoveToVersionId: to, RemoveFromVersionId: from } = input;
      const holder = s.versions.find((v) => v.stages.includes(stage));
      if (to !== undefined && !s.versions.some((v) => v.id === to)) throw notFound();
      if (holder && holder.id !== to && holder.id !== from) {
        throw invalidParameter(`The staging label ${stage} is attached to version ${holder.id}: name it in RemoveFromVersionId`);
      }
      if (from !== undefined && holder?.id !== from) throw invalidParameter(`Version ${from} does not have the staging label ${stage}`);
      if (stage === STAGES.current && to === undefined) throw invalidParameter('AWSCURRENT cannot be removed, only moved');
      const moved = (v: Version) => {
        let stages = v.stages.filter((x) => x !== stage);
        if (v.id === to) stages = [...stages, stage];
        if (stage === STAGES.current && holder && to !== holder.id) {
          stages = stages.filter((x) => x !== STAGES.previous);
          if (v.id === holder.id) stages.push(STAGES.previous);
        }
        return { ...v, stages };
      };
      save({ ...s, changed: now(), versions: s.versions.map(moved).filter((v) => v.stages.length) });
      return { ARN: s.arn, Name: s.name };
    },
    // A rotation, by the function given (then kept) or the one kept: a new version (AWSPENDING, no
    // value), then, after the answer, the function's four steps in turn. One at a time.
    RotateSecret(input) {
      const s = live(input.SecretId);
      const lambdaArn = typeof input.RotationLambdaARN === 'string' ? input.RotationLambdaARN : s.rotation?.lambdaArn;
      if (!lambdaArn) throw invalidParameter('No rotation function: RotationLambdaARN is required');
      if (s.rotation?.running) throw new Refusal('InvalidRequestException', "A previous rotation isn't complete. That rotation will be reattempted.");
      const token = tokenOf(input);
      const rotation = { lambdaArn, rules: input.RotationRules ?? s.rotation?.rules, rotated: s.rotation?.rotated };
      if (input.RotateImmediately === false) {
        save({ ...s, rotation });
        return { ARN: s.arn, Name: s.name };
      }
      if (!opts.rotate) throw new Refusal('InvalidRequestException', 'This emulator has no Lambda runtime to rotate with');
      const versions = s.versions.map((v) => ({ ...v, stages: v.stages.filter((x) => x !== STAGES.pending) })).filter((v) => v.stages.length);
      save({ ...s, rotation: { ...rotation, running: true }, versions: [...versions, { id: token, created: now(), stages: [STAGES.pending] }] });
      void runRotation(s.name, lambdaArn, token);
      return { ARN: s.arn, Name: s.name, VersionId: token };
    },
    DescribeSecret(input) {
      const s = find(input.SecretId);
      return {
        ARN: s.arn,
        Name: s.name,
        ...(s.description !== undefined && { Description: s.description }),
        ...(s.kmsKeyId !== undefined && { KmsKeyId: s.kmsKeyId }),
        CreatedDate: s.created,
        LastChangedDate: s.changed,
        ...(s.deleted && { DeletedDate: s.deleted.at }),
        VersionIdsToStages: Object.fromEntries(s.versions.map((v) => [v.id, v.stages])),
        ...(s.rotation && { RotationEnabled: true, RotationLambdaARN: s.rotation.lambdaArn, RotationRules: s.rotation.rules }),
        ...(s.rotation?.rotated && { LastRotatedDate: s.rotation.rotated }),
      };
    },
    PutResourcePolicy(input) {
      const s = live(input.SecretId);
      const text = input.ResourcePolicy;
      let policy: { Statement?: unknown };
      try {
        policy = JSON.parse(typeof text === 'string' ? text : '');
      } catch {
        throw new Refusal('MalformedPolicyDocumentException', 'The resource policy is not JSON');
      }
      const statements = [policy?.Statement ?? []].flat() as Array<Record<string, any>>;
      if (!statements.length) throw new Refusal('MalformedPolicyDocumentException', 'The resource policy has no statement');
      const anyone = (p: unknown) => p === '*' || (p as { AWS?: unknown })?.AWS === '*';
      if (input.BlockPublicPolicy === true && statements.some((st) => st.Effect === 'Allow' && anyone(st.Principal) && !st.Condition))
        throw new Refusal('PublicPolicyException', "You can't attach a resource-based policy that allows broad access to the secret.");
      save({ ...s, policy: text as string, changed: now() });
      return { ARN: s.arn, Name: s.name };
    },
    GetResourcePolicy(input) {
      const s = live(input.SecretId);
      return { ARN: s.arn, Name: s.name, ...(s.policy !== undefined && { ResourcePolicy: s.policy }) };
    },
    // Scheduled for deletion after a recovery window (7 to 30 days, 30 by default), or at once.
    DeleteSecret(input) {
      const s = find(input.SecretId);
      const force = input.ForceDeleteWithoutRecovery === true;
      if (force && input.RecoveryWindowInDays !== undefined) {
        throw invalidParameter("You can't use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.");
      }
      const t = now();
      if (force) {
        remove(s.name);
        return { ARN: s.arn, Name: s.name, DeletionDate: t };
      }
      const days = input.RecoveryWindowInDays ?? 30;
      if (typeof days !== 'number' || !Number.isInteger(days) || days < 7 || days > 30) throw invalidParameter('RecoveryWindowInDays must be 7 to 30');
      if (s.deleted) throw markedForDeletion();
      save({ ...s, changed: t, deleted: { at: t, until: t + days * DAY_SECS } });
      return { ARN: s.arn, Name: s.name, DeletionDate: t + days * DAY_SECS };
    },
    RestoreSecret(input) {
      const s = find(input.SecretId);
      const { deleted: _, ...restored } = s;
      save({ ...restored, changed: now() });
      return { ARN: s.arn, Name: s.name };
    },
  };

  // The steps, each awaited; a failed one ends the rotation (AWS tries again at the next schedule).
  async function runRotation(name: string, lambdaArn: string, token: string) {
    let ok = true;
    for (const step of ROTATION_STEPS) {
      const s = secrets.get(name);
      if (!s || s.deleted) return;
      ok = await opts.rotate!(lambdaArn, { Step: step, SecretId: s.arn, ClientRequestToken: token }).then(
        () => true,
        () => false,
      );
      if (!ok) break;
    }
    const s = secrets.get(name);
    if (s?.rotation) save({ ...s, rotation: { ...s.rotation, running: false, ...(ok && { rotated: now() }) } });
  }

  function call(target: string, body: string): SecretsReply {
    const operation = target.startsWith('secretsmanager.') ? operations[target.slice('secretsmanager.'.length)] : undefined;
    if (!operation) return { status: 400, body: { __type: 'UnknownOperationException', message: `Not an operation this emulator serves: ${target}` } };
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body || '{}');
    } catch (e) {
      return { status: 400, body: { __type: 'SerializationException', message: (e as Error).message } };
    }
    try {
      return { status: 200, body: operation(input) };
    } catch (e) {
      if (e instanceof Refusal) return { status: 400, body: { __type: e.type, message: e.message } };
      return { status: 500, body: { __type: 'InternalServiceError', message: (e as Error).message } };
    }
  }
  return {
    call,
    close: () => {
      journal?.close();
      journal = undefined;
    },
  };
}

export async function startSecretsManager(opts: Parameters<typeof secretsManagerCalls>[0] & { port: number }) {
  const calls = secretsManagerCalls(opts);
  const server: Server = createServer(async (req, res) => {
    const reply = ({ status, body }: SecretsReply) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(body));
    };
    const body = await readBody(req, MAX_REQUEST_BYTES);
    if (body === 'too_large')
      return reply({ status: 413, body: { __type: 'InvalidRequestException', message: `The request is over ${MAX_REQUEST_BYTES} bytes` } });
    const url = new URL(req.url ?? '/', 'http://localhost');
    const unsigned = await sigV4Refusal(req, url.pathname, url.searchParams, body, { service: 'secretsmanager' });
    if (unsigned) {
      return reply({
        status: 400,
        body: { __type: 'UnrecognizedClientException', message: `The security token included in the request is invalid: ${unsigned}` },
      });
    }
    reply(calls.call(String(req.headers['x-amz-target'] ?? ''), body.toString('utf8')));
  });
  const { port, stop } = await listen(server, opts.port);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: async () => {
      await stop();
      calls.close();
    },
  };
}
export type SecretsManagerEmulator = Awaited<ReturnType<typeof startSecretsManager>>;
