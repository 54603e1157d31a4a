import type { ProviderAdapter, ProviderId } from './types.ts';

/**
 * Each provider's module (and its SDK) is loaded the first time a connection of that provider
 * needs it, so an instance without payments never loads any of them.
 */
const LOADERS: Record<ProviderId, () => Promise<ProviderAdapter>> = {
  stripe: () => import('./stripe.ts').then((m) => m.stripe),
  paddle: () => import('./paddle.ts').then((m) => m.paddle),
  lemonsqueezy: () => import('./lemonsqueezy.ts').then((m) => m.lemonsqueezy),
  polar: () => import('./polar.ts').then((m) => m.polar),
  dodo: () => import('./dodo.ts').then((m) => m.dodo),
};

const loaded = new Map<ProviderId, Promise<ProviderAdapter>>();

/** The adapter of a provider, loaded once. */
export function loadProvider(id: ProviderId): Promise<ProviderAdapter> {
  let found = loaded.get(id);
  if (found === undefined) {
    found = LOADERS[id]();
    loaded.set(id, found);
    // a failed load (a broken install) is tried again next time
    found.catch(() => loaded.delete(id));
  }
  return found;
}

/** How each provider writes its name. */
export const PROVIDER_NAMES: Record<ProviderId, string> = {
  stripe: 'Stripe',
  paddle: 'Paddle',
  lemonsqueezy: 'Lemon Squeezy',
  polar: 'Polar',
  dodo: 'Dodo Payments',
};

export { cleanApiKey, emailIn, redactPersonal } from './common.ts';
export * from './types.ts';
