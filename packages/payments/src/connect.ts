import type { ControlDb } from '@footfall/control';
import { type Connection, createConnection, deleteConnection, newConnectionId } from './connections.ts';
import { cleanApiKey } from './providers/common.ts';
import { loadProvider } from './providers/index.ts';
import { ProviderError, type ProviderId } from './providers/types.ts';

/**
 * Automatic set-up: the owner's API key is cleaned and checked, the provider's webhook endpoint is
 * created at `webhookUrl(id)` with the adapter's fixed event list, and the connection is stored with
 * the endpoint's signing secret and the key (both sealed). Throws the adapter's ProviderError (key
 * not accepted, missing permission named, provider unreachable); nothing is stored then.
 */
export async function connectProvider(
  ctl: ControlDb,
  input: {
    siteId: string;
    provider: ProviderId;
    apiKey: string;
    name?: string | undefined;
    webhookUrl: (id: string) => string;
    base: string | undefined;
  },
): Promise<Connection> {
  const apiKey = cleanApiKey(input.apiKey);
  if (apiKey === '') {
    throw new ProviderError({ reason: 'key_rejected', message: 'paste the API key: it is empty' });
  }
  const adapter = await loadProvider(input.provider);
  const id = newConnectionId();
  const made = await adapter.connect({ apiKey, base: input.base }, input.webhookUrl(id));
  return createConnection(ctl, {
    id,
    siteId: input.siteId,
    provider: input.provider,
    name: input.name,
    setup: 'automatic',
    environment: made.environment,
    signingSecret: made.signingSecret,
    apiKey,
    endpointId: made.endpointId,
  }).connection;
}

/**
 * Removes a connection and, when Footfall created its endpoint, the endpoint at the provider. The
 * connection is gone whatever the provider answers; a failure to remove the endpoint is answered
 * (for the log and the owner: they may remove it by hand).
 */
export async function disconnectProvider(
  ctl: ControlDb,
  siteId: string,
  id: string,
  base: (provider: ProviderId) => string | undefined,
): Promise<{ endpointError: string | null }> {
  const gone = deleteConnection(ctl, siteId, id);
  if (gone.provider === 'custom' || gone.apiKey === null || gone.endpointId === null)
    return { endpointError: null };
  try {
    const adapter = await loadProvider(gone.provider);
    await adapter.disconnect(
      { apiKey: gone.apiKey, base: base(gone.provider), environment: gone.environment },
      gone.endpointId,
    );
    return { endpointError: null };
  } catch (error) {
    return { endpointError: error instanceof Error ? error.message : String(error) };
  }
}
