import type { ProviderId } from '../types.ts';
import type { FakeProviderKit } from './kit.ts';

export * from './kit.ts';

/** Every provider's fake API, for tests that run the same flows over all of them. */
export async function fakeKits(): Promise<Record<ProviderId, FakeProviderKit>> {
  return {
    stripe: (await import('./stripe.ts')).stripeKit,
    paddle: (await import('./paddle.ts')).paddleKit,
    lemonsqueezy: (await import('./lemonsqueezy.ts')).lemonsqueezyKit,
    polar: (await import('./polar.ts')).polarKit,
    dodo: (await import('./dodo.ts')).dodoKit,
  };
}
export { dodoKit } from './dodo.ts';
export { lemonsqueezyKit } from './lemonsqueezy.ts';
export { paddleKit } from './paddle.ts';
export { polarKit } from './polar.ts';
export { stripeKit } from './stripe.ts';
