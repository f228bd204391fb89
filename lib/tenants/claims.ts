import type { Write } from '../platform/tx';
import type { Node } from '../shared/node';
import * as store from './store';

// What the operator's new wallet address writes in the tenant registry: it is counted on each of
// its paths, and refused (UNDER_TENANT) under an active tenant's prefix, which would serve it as
// the tenant's. Apart from the registry's index, so that the functions that make wallet addresses
// do not carry the tenants' secrets code.
export const operatorAddressClaims = (base: Node, address: string): Write[] => store.countOperatorAddress(base, address);
export const UNDER_TENANT = store.UNDER_TENANT;
