import { DescribeSecretCommand, GetResourcePolicyCommand, GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it, vi } from 'vitest';
import { createAsset, listAssets } from '../../../lib/assets';
import { createTenantSecrets, ROTATION_SCHEDULE, secret, TENANT_SECRETS } from '../../../lib/platform/secrets';
import type { TenantSettings } from '../../../lib/shared/node';
import { activeTenants, createTenant, deleteTenant, getTenant, listTenants, tenantById, tenantForWalletAddress, updateTenant } from '../../../lib/tenants';
import type { CreatedTenant } from '../../../lib/tenants/schemas';
import { createWalletAddress } from '../../../lib/wallet-addresses';
import { inMemory, refusal, testNode } from '../../harness/in-memory';
import { inMemorySecrets } from '../../harness/in-memory-secrets';

// Tenants' rules in memory: made with their secrets, which Secrets Manager keeps (in memory: the
// local emulator's rules behind the SDK's client); prefixes that never nest, suffixes kept for good,
// the operator's own fixed, changes and deletion (its secrets scheduled, its prefix freed), racing
// creations and changes, and each tenant's data its own. What only the stack shows (the Admin
// API's answers, its signatures and the 401s of a deleted tenant, validation's 400s, webhooks, the
// Secrets Manager emulator on the wire) is test/integration/tenants.test.ts's.
// How the deployment makes a tenant's secrets (on AWS, set by packaging: infra/serverless/tenant-secrets.cjs).
const KEY = 'arn:aws:kms:us-east-1:000000000000:key/00000000-0000-4000-8000-00000000da7a';
const ROTATOR = 'arn:aws:lambda:us-east-1:000000000000:function:payment-service-test-secretsRotate:live';
const READERS = ['arn:aws:iam::000000000000:role/payment-service/test/*', 'arn:aws:iam::000000000000:role/break-glass/reader'];
const mem = inMemory({ TENANT_SECRETS_KMS_KEY_ARN: KEY, TENANT_SECRETS_ROTATION_ARN: ROTATOR, TENANT_SECRETS_READERS: READERS.join(', ') });
const secrets = inMemorySecrets();

const BASE = 'https://wallet.example'; // testNode's WALLET_ADDRESS_URL
let n = 0;
const prefix = (path = `fsp-${++n}`) => `${BASE}/${path}`;
const settingsOf = (t: CreatedTenant): TenantSettings => ({ id: t.id, walletAddressPrefix: t.walletAddressPrefix, ilpAddressSuffix: t.ilpAddressSuffix! });
const secretOf = (id: string, name: string) =>
  secrets.client.send(new GetSecretValueCommand({ SecretId: `tenants/${id}/${name}` })).then((r) => r.SecretString);
const described = (id: string, name: string) => secrets.client.send(new DescribeSecretCommand({ SecretId: `tenants/${id}/${name}` }));
// What a call to Secrets Manager answered: its value, or AWS's error name.
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'found',
    (e: Error) => e.name,
  );
// The main table's items: what a refused operation must leave as it was.
const mainItems = () => mem.db.items(mem.node.tables.main).length;

// The names of the secrets the service asked Secrets Manager to make, by the running test.
function secretsMade(): string[] {
  const names: string[] = [];
  secrets.client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'CreateSecretCommand') names.push((args.input as { Name: string }).Name);
      return next(args);
    },
    { step: 'initialize', name: 'recordCreatedSecrets' },
  );
  return names;
}

describe('tenants', () => {
  it('are made with secrets answered once and kept in Secrets Manager, never shown again', async () => {
    const walletAddressPrefix = prefix();
    const t = await createTenant(mem.node, { name: 'Acme', walletAddressPrefix: `${walletAddressPrefix}/`, webhookUrl: 'https://acme.example/hooks' });
    // (The whole answer, field by field, is test/integration/tenants.test.ts's.)
    expect(t).toMatchObject({ walletAddressPrefix, ilpAddressSuffix: `t${t.id.replace(/-/g, '').slice(0, 12)}`, state: 'active', updatedAt: t.createdAt });
    const formats = [/^[A-Za-z0-9_-]{43}$/, /^whsec_[A-Za-z0-9+/]{43}=$/, /^[A-Za-z0-9_-]{43}$/];
    expect([t.adminApiSecret, t.webhookSecret, t.idpSecret]).toEqual(formats.map((f) => expect.stringMatching(f)));
    expect(await secretOf(t.id, 'ADMIN_API_SECRET')).toBe(t.adminApiSecret);
    expect(await secretOf(t.id, 'WEBHOOK_SECRET')).toBe(t.webhookSecret);
    expect(await secretOf(t.id, 'IDP_SECRET')).toBe(t.idpSecret);
    // Each on the deployment's data key, read by its roles and the break-glass ones only, rotated on the deployment's schedule.
    for (const name of TENANT_SECRETS) {
      expect(await described(t.id, name), name).toMatchObject({
        KmsKeyId: KEY,
        RotationEnabled: true,
        RotationLambdaARN: ROTATOR,
        RotationRules: { ScheduleExpression: ROTATION_SCHEDULE },
      });
      const { ResourcePolicy } = await secrets.client.send(new GetResourcePolicyCommand({ SecretId: `tenants/${t.id}/${name}` }));
      // Every principal but those is denied reading it, and lifting the policy.
      const [denied, ...more] = JSON.parse(ResourcePolicy!).Statement;
      expect(more, name).toEqual([]);
      expect([denied.Effect, denied.Principal, denied.Resource, denied.Condition], name).toEqual([
        'Deny',
        '*',
        '*',
        { ArnNotLike: { 'aws:PrincipalArn': READERS } },
      ]);
      expect(denied.Action.sort(), name).toEqual(['GetSecretValue', 'DeleteResourcePolicy', 'PutResourcePolicy'].map((a) => `secretsmanager:${a}`).sort());
    }
    // Not rotated at once: the values answered are the ones in use.
    expect((await described(t.id, 'ADMIN_API_SECRET')).LastRotatedDate).toBeUndefined();
    // As the tenant's functions read them.
    const node = mem.tenant(settingsOf(t));
    expect([await secret(node, 'ADMIN_API_SECRET'), await secret(node, 'WEBHOOK_SECRET'), await secret(node, 'IDP_SECRET')]).toEqual([
      t.adminApiSecret,
      t.webhookSecret,
      t.idpSecret,
    ]);

    const { adminApiSecret, webhookSecret, idpSecret, ...shown } = t;
    expect(await getTenant(mem.node, t.id)).toEqual(shown);
    const listed = await listTenants(mem.node, 100);
    expect(listed.items).toEqual([shown]);
    expect(JSON.stringify(listed)).not.toContain(adminApiSecret);
    expect(JSON.stringify(mem.db.items(mem.node.tables.main))).not.toContain(adminApiSecret); // nor does the table
    expect(await tenantById(mem.node, t.id)).toEqual({ ...settingsOf(t), webhookUrl: 'https://acme.example/hooks' });
    expect(await refusal(getTenant(mem.node, '0b0c2f6e-54a8-4a3e-9a57-5a0e0a0a0a0a'))).toBe('404 tenant_not_found');
  });

  it("shows the operator's own as the deployment's settings, and refuses to change or delete it", async () => {
    expect(await getTenant(mem.node, 'operator')).toMatchObject({
      id: 'operator',
      name: 'operator',
      walletAddressPrefix: BASE,
      ilpAddressSuffix: null,
      webhookDialect: 'standard',
      state: 'active',
    });
    expect(await refusal(updateTenant(mem.node, 'operator', { name: 'x' }))).toBe('409 operator_tenant_fixed');
    expect(await refusal(deleteTenant(mem.node, 'operator'))).toBe('409 operator_tenant_fixed');
    expect(await activeTenants(mem.node)).toEqual([]);
  });

  it('take an ILP address suffix once; a refused tenant takes its secrets with it, unseen', async () => {
    const t = await createTenant(mem.node, { name: 'Suffixed', walletAddressPrefix: prefix(), ilpAddressSuffix: `sfx-${n}` });
    expect(t.ilpAddressSuffix).toBe(`sfx-${n}`);
    const made = secretsMade();
    const before = mainItems();
    expect(await refusal(createTenant(mem.node, { name: 'Again', walletAddressPrefix: prefix(), ilpAddressSuffix: t.ilpAddressSuffix! }))).toBe(
      '409 ilp_address_suffix_taken',
    );
    expect(mainItems()).toBe(before);
    expect(made).toHaveLength(TENANT_SECRETS.length);
    for (const name of made) expect(await outcome(secrets.client.send(new DescribeSecretCommand({ SecretId: name }))), name).toBe('ResourceNotFoundException');
  });

  it("refuse a prefix equal to, above or below an active tenant's with 409 naming it, writing nothing", async () => {
    const base = prefix();
    const first = await createTenant(mem.node, { name: 'Nested', walletAddressPrefix: `${base}/mid` });
    const before = mainItems();
    for (const walletAddressPrefix of [`${base}/mid`, `${base}/MID/`, base, `${base}/mid/low`]) {
      const e = await createTenant(mem.node, { name: 'Overlap', walletAddressPrefix }).catch((e) => e);
      expect([e.status, e.code], walletAddressPrefix).toEqual([409, 'wallet_address_prefix_taken']);
      expect(e.message, walletAddressPrefix).toContain(first.id);
    }
    expect(mainItems()).toBe(before);
    // Segment-wise: a sibling whose name begins alike is no overlap.
    const sibling = await createTenant(mem.node, { name: 'Sibling', walletAddressPrefix: `${base}/mid2` });
    expect(sibling.walletAddressPrefix).toBe(`${base}/mid2`);
    expect(mainItems()).toBeGreaterThan(before);
    expect((await activeTenants(mem.node)).map((t) => t.id).sort()).toEqual([first.id, sibling.id].sort());
  });

  it("find the active tenant whose prefix holds a wallet address's URL, by path segment", async () => {
    const t = await createTenant(mem.node, { name: 'Finder', walletAddressPrefix: prefix('find/deep') });
    const of = async (url: string) => (await tenantForWalletAddress(mem.node, url))?.id;
    expect(await of(`${BASE}/find/deep/alice`)).toBe(t.id);
    expect(await of(`${BASE}/find/deep`)).toBe(t.id);
    expect(await of(`${BASE}/find/deeper/alice`)).toBeUndefined();
    expect(await of(`${BASE}/find/alice`)).toBeUndefined();
    expect(await of(`${BASE}/alice`)).toBeUndefined();
    expect(await of('not a url')).toBeUndefined();
    await deleteTenant(mem.node, t.id);
    expect(await of(`${BASE}/find/deep/alice`)).toBeUndefined();
  });

  it("change a tenant's name and URLs, and nothing else", async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const t = await createTenant(mem.node, { name: 'Before', walletAddressPrefix: prefix(), ratesUrl: 'https://before.example/rates' });
      vi.advanceTimersByTime(1);
      const changed = await updateTenant(mem.node, t.id, { name: 'After', ratesUrl: null, idpConsentUrl: 'https://after.example/consent' });
      expect(changed).toMatchObject({
        name: 'After',
        ratesUrl: null,
        idpConsentUrl: 'https://after.example/consent',
        walletAddressPrefix: t.walletAddressPrefix,
        ilpAddressSuffix: t.ilpAddressSuffix,
        createdAt: t.createdAt,
      });
      expect(changed.updatedAt! > t.updatedAt!).toBe(true);
      expect(await getTenant(mem.node, t.id)).toEqual(changed);
      // What a change leaves out stays.
      expect(await updateTenant(mem.node, t.id, { webhookUrl: 'https://after.example/hooks' })).toMatchObject({
        name: 'After',
        idpConsentUrl: 'https://after.example/consent',
      });
      expect(await refusal(updateTenant(mem.node, '0b0c2f6e-54a8-4a3e-9a57-5a0e0a0a0a0a', { name: 'x' }))).toBe('404 tenant_not_found');
    } finally {
      vi.useRealTimers();
    }
  });

  it('delete a tenant: its secrets are scheduled for deletion, its prefix is free, its suffix stays its own; a retry is safe', async () => {
    const walletAddressPrefix = prefix();
    const t = await createTenant(mem.node, { name: 'Leaving', walletAddressPrefix });
    await deleteTenant(mem.node, t.id);
    for (const name of TENANT_SECRETS) {
      expect((await described(t.id, name)).DeletedDate, name).toBeInstanceOf(Date);
      expect(await outcome(secretOf(t.id, name)), name).toBe('InvalidRequestException'); // marked for deletion: unreadable
    }
    expect(await getTenant(mem.node, t.id)).toMatchObject({ state: 'deleted', deletedAt: expect.any(String) });
    expect(await tenantById(mem.node, t.id)).toBeUndefined(); // its credentials stop: no active tenant
    expect(await tenantById(mem.node, t.id, true)).toMatchObject({ id: t.id });
    expect(await activeTenants(mem.node)).toEqual([]);
    expect(await refusal(updateTenant(mem.node, t.id, { name: 'Back' }))).toBe('404 tenant_not_found');
    // Again: the secrets already scheduled are left as they are.
    await deleteTenant(mem.node, t.id);
    // The prefix is another's to take; the suffix stays the deleted tenant's.
    const next = await createTenant(mem.node, { name: 'Successor', walletAddressPrefix });
    expect(next.id).not.toBe(t.id);
    expect(await refusal(createTenant(mem.node, { name: 'Echo', walletAddressPrefix: prefix(), ilpAddressSuffix: t.ilpAddressSuffix! }))).toBe(
      '409 ilp_address_suffix_taken',
    );
    expect(await refusal(deleteTenant(mem.node, '0b0c2f6e-54a8-4a3e-9a57-5a0e0a0a0a0a'))).toBe('404 tenant_not_found');
  });

  it("keep the operator's wallet addresses and the tenants' prefixes apart, whichever comes first", async () => {
    await createAsset(mem.node, { code: 'USD', scale: 2 });
    const operatorAddress = (address: string) => createWalletAddress(mem.node, { address, assetCode: 'USD' } as never);
    // Under an active tenant's prefix the operator makes no wallet address: it would be served as the tenant's.
    const t = await createTenant(mem.node, { name: 'Zeta', walletAddressPrefix: prefix('zeta') });
    const before = mainItems();
    expect(await refusal(operatorAddress(`${prefix('zeta')}/carol`))).toBe('409 wallet_address_under_tenant');
    expect(mainItems()).toBe(before); // the operator's first creation, refused, records no base either
    // Over the operator's wallet addresses no tenant's prefix is taken: at one, or above one.
    await operatorAddress(`${prefix('omega')}/dave`);
    for (const walletAddressPrefix of [prefix('omega'), `${prefix('omega')}/dave`]) {
      expect(await refusal(createTenant(mem.node, { name: 'Omega', walletAddressPrefix })), walletAddressPrefix).toBe('409 wallet_address_prefix_in_use');
    }
    await deleteTenant(mem.node, t.id);
    await operatorAddress(`${prefix('zeta')}/carol`); // the prefix is free again
  });
});

describe('racing changes', () => {
  it('make one tenant of three made at once on nested prefixes; the others leave no secrets', async () => {
    const base = prefix();
    const made = secretsMade();
    const answers = await Promise.allSettled([
      createTenant(mem.node, { name: 'Upper', walletAddressPrefix: base }),
      createTenant(mem.node, { name: 'Lower', walletAddressPrefix: `${base}/lower` }),
      createTenant(mem.node, { name: 'Same', walletAddressPrefix: `${base}/lower` }),
    ]);
    const won = answers.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(won).toHaveLength(1);
    for (const r of answers) if (r.status === 'rejected') expect(await refusal(Promise.reject(r.reason))).toBe('409 wallet_address_prefix_taken');
    expect((await listTenants(mem.node, 100)).items.map((t) => t.id)).toEqual([won[0].id]);
    const kept = await Promise.all(made.map((name) => outcome(secrets.client.send(new DescribeSecretCommand({ SecretId: name })))));
    expect(kept.filter((o) => o === 'found')).toHaveLength(TENANT_SECRETS.length);
    expect(made.filter((name) => name.includes(won[0].id))).toHaveLength(TENANT_SECRETS.length);
  });

  it("make exactly one of a tenant and an operator's wallet address under its prefix, made at once", async () => {
    await createAsset(mem.node, { code: 'USD', scale: 2 });
    for (let i = 0; i < 3; i++) {
      const [tenant, address] = await Promise.allSettled([
        createTenant(mem.node, { name: `Race ${i}`, walletAddressPrefix: prefix(`race-${i}`) }),
        createWalletAddress(mem.node, { address: `${prefix(`race-${i}`)}/x`, assetCode: 'USD' } as never),
      ]);
      expect([tenant.status, address.status].sort(), `race ${i}`).toEqual(['fulfilled', 'rejected']);
      const lost = tenant.status === 'rejected' ? tenant.reason : (address as PromiseRejectedResult).reason;
      expect(await refusal(Promise.reject(lost))).toMatch(/^409 (wallet_address_prefix_in_use|wallet_address_under_tenant)$/);
    }
  });

  it('let one of racing changes to a tenant win; the others are 409 tenant_changed', async () => {
    const t = await createTenant(mem.node, { name: 'Raced', walletAddressPrefix: prefix() });
    const names = ['One', 'Two', 'Three', 'Four'];
    const answers = await Promise.allSettled(names.map((name) => updateTenant(mem.node, t.id, { name })));
    const won = answers.flatMap((r, i) => (r.status === 'fulfilled' ? [names[i]] : []));
    expect(won).toHaveLength(1);
    for (const r of answers) if (r.status === 'rejected') expect(await refusal(Promise.reject(r.reason))).toBe('409 tenant_changed');
    expect((await getTenant(mem.node, t.id)).name).toBe(won[0]);
    // A deletion that read the tenant before a change committed is refused too, and deletes nothing.
    const [renamed, deleted] = await Promise.allSettled([updateTenant(mem.node, t.id, { name: 'Late' }), deleteTenant(mem.node, t.id)]);
    expect([renamed.status, deleted.status]).toEqual(['fulfilled', 'rejected']);
    expect(await refusal(Promise.reject((deleted as PromiseRejectedResult).reason))).toBe('409 tenant_changed');
    expect(await getTenant(mem.node, t.id)).toMatchObject({ name: 'Late', state: 'active' });
    expect(await secretOf(t.id, 'ADMIN_API_SECRET')).toBe(t.adminApiSecret);
  });
});

describe("a tenant's data", () => {
  it('is its own: the operator lists none of it, and another tenant may use the same asset code', async () => {
    const a = await createTenant(mem.node, { name: 'A', walletAddressPrefix: prefix() });
    const b = await createTenant(mem.node, { name: 'B', walletAddressPrefix: prefix() });
    const [nodeA, nodeB] = [mem.tenant(settingsOf(a)), mem.tenant(settingsOf(b))];
    await createAsset(nodeA, { code: 'TNA', scale: 2 });
    await createAsset(nodeB, { code: 'TNA', scale: 3 });
    const codes = async (node: typeof mem.node) => (await listAssets(node, 100)).items.map((x) => `${x.code}/${x.scale}`);
    expect([await codes(nodeA), await codes(nodeB), await codes(mem.node)]).toEqual([['TNA/2'], ['TNA/3'], []]);
    // Its wallet addresses are under its prefix only.
    const outside = await createWalletAddress(nodeA, { address: `${BASE}/bob`, assetCode: 'TNA' } as never).catch((e) => e);
    expect([outside.status, outside.code]).toEqual([400, 'invalid_request']);
    expect(outside.message).toContain(a.walletAddressPrefix);
  });

  it("records its wallet addresses' base with its first one, once, even when two are made at once", async () => {
    // The operator's base checked in this container just now: the tenant's is checked on its own.
    await createAsset(mem.node, { code: 'USD', scale: 2 });
    await createWalletAddress(mem.node, { address: prefix('operators'), assetCode: 'USD' } as never);
    const t = await createTenant(mem.node, { name: 'Based', walletAddressPrefix: prefix() });
    const node = mem.tenant(settingsOf(t));
    await createAsset(node, { code: 'BAS', scale: 2 });
    const base = () => mem.db.items(mem.node.tables.main).filter((i) => i.pk === `T#${t.id}#CONFIG` && i.sk === 'WALLET_ADDRESS_URL');
    const made = await Promise.all(
      ['a', 'b'].map((name) => createWalletAddress(node, { address: `${t.walletAddressPrefix}/${name}`, assetCode: 'BAS' } as never)),
    );
    expect(made.map((w) => w.address)).toEqual([`${t.walletAddressPrefix}/a`, `${t.walletAddressPrefix}/b`]);
    expect(base().map((i) => i.base)).toEqual([t.walletAddressPrefix]); // under the tenant's own key: its prefix
  });

  // (Its policy or its rotation too: a secret made but open to any reader, or never rotated, is not kept.)
  it.each(['CreateSecretCommand', 'PutResourcePolicyCommand', 'RotateSecretCommand'])(
    'a tenant whose secrets cannot all be made is not made, and takes those made with it: %s fails',
    async (failing) => {
      const made = secretsMade();
      secrets.client.middlewareStack.add(
        (next, context) => async (args) => {
          const { Name, SecretId } = args.input as { Name?: string; SecretId?: string };
          if (context.commandName === failing && (Name ?? SecretId ?? '').endsWith('/IDP_SECRET'))
            throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
          return next(args);
        },
        { step: 'initialize', name: 'refuseIdpSecret' },
      );
      const before = mainItems();
      await expect(createTenant(mem.node, { name: 'Unlucky', walletAddressPrefix: prefix() })).rejects.toThrow('Rate exceeded');
      expect(mainItems()).toBe(before);
      expect(made.length).toBeGreaterThan(0);
      for (const name of made)
        expect(await outcome(secrets.client.send(new DescribeSecretCommand({ SecretId: name }))), name).toBe('ResourceNotFoundException');
      expect((await listTenants(mem.node, 100)).items).toEqual([]);
    },
  );

  it('on AWS (a SECRETS_PREFIX), makes none without the data key, the rotation function and the readers', async () => {
    const made = secretsMade();
    const aws = testNode({ SECRETS_PREFIX: 'payment-service/test/', TENANT_SECRETS_KMS_KEY_ARN: KEY, TENANT_SECRETS_READERS: READERS.join(',') });
    await expect(createTenantSecrets(aws, '6f1c1a64-3c5a-4a43-9a1e-6c0d1f1a2b3c')).rejects.toThrow('TENANT_SECRETS_ROTATION_ARN');
    expect(made).toEqual([]);
  });
});
