import { money, units } from '../amounts';
import { type Asset, admin } from '../api';
import { changedOnly, changes, edited, type FormSpec, minorUnits, numberOr, text, type Values } from '../forms';
import { assetAccounts, created, ListPage, liquidityActions, withDetails } from '../list';
import type { PageProps } from '../pages';
import { aboutLinks, RecordPage } from '../record';

// #/assets: the assets, with their liquidity, low-liquidity threshold and fees; an admin creates and
// changes one, and deposits, withdraws or holds its liquidity.

// A fee as the FSP set it (PATCH /assets/{id}): "0.10 + 50 bps".
const feeText = (fee: Asset['sendingFee'], scale: number) => (fee ? `${units(fee.fixed, scale)} + ${fee.basisPoints} bps` : '–');

const newAsset: FormSpec<Asset> = {
  title: 'New asset',
  fields: [
    { name: 'code', label: 'Code', hint: 'e.g. USD' },
    { name: 'scale', label: 'Scale', hint: 'decimal places, e.g. 2' },
    { name: 'liquidityThreshold', label: 'Low liquidity below', hint: 'optional, at that scale' },
  ],
  initial: { code: '', scale: '2', liquidityThreshold: '' },
  send: (v, key) => {
    const scale = numberOr(text(v, 'scale'));
    const threshold = minorUnits(text(v, 'liquidityThreshold'), typeof scale === 'number' ? scale : 0);
    return admin('POST', '/assets', { code: text(v, 'code'), scale, ...(threshold !== undefined && { liquidityThreshold: threshold }) }, key);
  },
  done: (a) => `Created ${a.code} (scale ${a.scale})`,
};

// PATCH /assets/{id}: the threshold and the fees, each a fixed amount at the asset's scale and basis points.
function changeAsset(a: Asset): FormSpec<Asset> {
  const fixed = (f: Asset['sendingFee']) => (f ? units(f.fixed, a.scale) : '');
  const bps = (f: Asset['sendingFee']) => (f ? String(f.basisPoints) : '');
  const was: Values = {
    liquidityThreshold: a.liquidityThreshold ? units(a.liquidityThreshold, a.scale) : '',
    'sendingFee.fixed': fixed(a.sendingFee),
    'sendingFee.basisPoints': bps(a.sendingFee),
    'receivingFee.fixed': fixed(a.receivingFee),
    'receivingFee.basisPoints': bps(a.receivingFee),
  };
  const feeOf = (v: Values, name: string) => {
    const [fixed, bps] = [`${name}.fixed`, `${name}.basisPoints`];
    if (text(v, fixed) === text(was, fixed) && text(v, bps) === text(was, bps)) return undefined;
    if (!text(v, fixed) && !text(v, bps)) return null;
    return { fixed: minorUnits(text(v, fixed), a.scale) ?? '0', basisPoints: numberOr(text(v, bps) || '0') };
  };
  const feeFields = (name: string, label: string) => [
    { name: `${name}.fixed`, label: `${label}, fixed`, hint: a.code },
    { name: `${name}.basisPoints`, label: `${label}, basis points`, hint: 'of the amount, 0 to 10000' },
  ];
  return {
    title: `Change ${a.code}`,
    fields: [
      { name: 'liquidityThreshold', label: 'Low liquidity below', hint: `${a.code}; empty: none` },
      ...feeFields('sendingFee', 'Sending fee'),
      ...feeFields('receivingFee', 'Receiving fee'),
    ],
    initial: was,
    send: (v) =>
      admin(
        'PATCH',
        `/assets/${a.id}`,
        changedOnly({
          liquidityThreshold: edited(v, was, 'liquidityThreshold', (t) => minorUnits(t, a.scale)),
          sendingFee: feeOf(v, 'sendingFee'),
          receivingFee: feeOf(v, 'receivingFee'),
        }),
      ),
    done: (after) =>
      `Changed ${a.code}: ${changes(a, after, [
        ['low below', (x) => (x.liquidityThreshold ? units(x.liquidityThreshold, x.scale) : '–')],
        ['sending fee', (x) => feeText(x.sendingFee, x.scale)],
        ['receiving fee', (x) => feeText(x.receivingFee, x.scale)],
      ])}`,
  };
}

const AssetsList = () => (
  <ListPage<Asset>
    route="/assets"
    label="Assets"
    create={newAsset}
    change={changeAsset}
    complete={withDetails('/assets')}
    columns={[
      { label: 'Code', cell: (a) => <strong>{a.code}</strong> },
      { label: 'Scale', cell: (a) => a.scale, numeric: true },
      { label: 'Liquidity', cell: (a) => money(a.liquidity), numeric: true },
      { label: 'Low below', cell: (a) => (a.liquidityThreshold ? units(a.liquidityThreshold, a.scale) : '–'), numeric: true },
      { label: 'Sending fee', cell: (a) => feeText(a.sendingFee, a.scale), numeric: true },
      { label: 'Receiving fee', cell: (a) => feeText(a.receivingFee, a.scale), numeric: true },
      created,
      { label: 'Id', cell: (a) => <code>{a.id}</code> },
      {
        label: 'Transfers',
        cell: (a) => assetAccounts(a.id),
      },
    ]}
    actions={(a) => liquidityActions('/assets', a.id, a.code, a.code, a.scale)}
  />
);

// #/assets, or one asset's page: #/assets/<id>.
export const AssetsPage = ({ args }: PageProps) =>
  args[0] ? (
    <RecordPage
      route={`/assets/${args[0]}`}
      label="Asset"
      back={{ href: '#/assets', text: 'All assets' }}
      more={(a) => (
        <p>
          {assetAccounts(String(a.id))} · {aboutLinks(String(a.id))}
        </p>
      )}
    />
  ) : (
    <AssetsList />
  );
