import { errorCatalog } from '../shared/errors';
import { MAX_ACTIVE_KEYS } from './schemas';

export const walletAddressErrors = errorCatalog({
  // `ref`: how the request named it (`with id <id>`, its URL, `at <path>`).
  notFound: { code: 'wallet_address_not_found', status: 404, title: 'No wallet address here', detail: (ref: string) => `No wallet address ${ref}` },
  // A wallet address named in a body (not the path).
  unknown: { code: 'wallet_address_not_found', status: 422, title: 'No wallet address at this URL', detail: (url: string) => `No wallet address ${url}` },
  // 422 as a body-named unknown one: the request breaks a rule of the address it names, and Open
  // Payments (which has no 422) answers it 400, as Rafiki does.
  inactive: {
    code: 'wallet_address_inactive',
    status: 422,
    title: 'The wallet address is inactive',
    detail: (address: string) => `The wallet address ${address} is inactive`,
  },
  exists: {
    code: 'wallet_address_exists',
    status: 409,
    title: 'This wallet address exists',
    detail: (address: string) => `The wallet address ${address} already exists`,
  },
  underTenant: {
    code: 'wallet_address_under_tenant',
    status: 409,
    title: "The address is under a tenant's wallet address prefix",
    detail: (address: string) => `${address} is under a tenant's wallet address prefix: only that tenant makes wallet addresses there`,
  },
  baseChanged: {
    code: 'wallet_address_url_changed',
    status: 409,
    title: 'WALLET_ADDRESS_URL differs from the one the first wallet address was created under',
    detail: (recorded: string, current: string) =>
      `WALLET_ADDRESS_URL is ${current}, but wallet addresses were first created under ${recorded}; ` +
      'the base cannot change once set, so restore WALLET_ADDRESS_URL to its first value',
  },
  keyExists: {
    code: 'key_exists',
    status: 409,
    title: 'The wallet address has a key with this kid',
    detail: (kid: string) => `This wallet address already has a key with kid ${kid}`,
  },
  tooManyKeys: {
    code: 'too_many_keys',
    status: 409,
    title: `The wallet address has ${MAX_ACTIVE_KEYS} unrevoked keys, the most it can publish`,
    detail: () => `This wallet address already has ${MAX_ACTIVE_KEYS} unrevoked keys, the most it can publish; revoke one first`,
  },
  keyNotFound: {
    code: 'key_not_found',
    status: 404,
    title: 'The wallet address has no key with this kid',
    detail: (id: string, kid: string) => `Wallet address ${id} has no key with kid ${kid}`,
  },
});
