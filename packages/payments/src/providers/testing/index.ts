import type { ProviderId } from '../types.ts';
import type { FakeProviderKit } from './kit.ts';

export * from './kit.ts';

/** Every provider's fake API, for tests that run the same flows over all of them. */
export async function fakeKits(): Promise<Record<ProviderId, FakeProviderKit>> {
  return {
    stripe: (await import('./stripe.ts')).stripeKit,
  };
}
export { stripeKit } from './stripe.ts';
