import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { CopyButton, ErrorNote, InputField, ShownOnce, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';

type Connection = Schema<'PaymentConnection'>;
type Made = Schema<'PaymentConnectionWithSecret'>;
type Provider = Schema<'PaymentProvider'>;
type Choice = Exclude<Provider, 'custom'> | 'custom';

/** The providers in the order people look for them; "Anything else" is the custom webhook. */
const CHOICES: { id: Choice; name: string; key: string }[] = [
  {
    id: 'stripe',
    name: 'Stripe',
    key: 'a restricted key (rk_live_… or rk_test_…) with read access and permission to write webhook endpoints',
  },
  {
    id: 'paddle',
    name: 'Paddle',
    key: 'an API key (pdl_live_apikey_… or pdl_sdbx_apikey_…) that reads transactions and adjustments and writes notification settings',
  },
  {
    id: 'lemonsqueezy',
    name: 'Lemon Squeezy',
    key: 'an API key (Settings → API) made in live or test mode',
  },
  {
    id: 'polar',
    name: 'Polar',
    key: 'an Organization Access Token with the scopes orders:read, refunds:read and webhooks:write',
  },
  { id: 'dodo', name: 'Dodo Payments', key: 'an API key (Developer → API Keys) of live or test mode' },
  { id: 'custom', name: 'Anything else (custom webhook)', key: '' },
];
const nameOf = (p: Provider) => CHOICES.find((c) => c.id === p)?.name.replace(/ \(.*\)$/, '') ?? p;

const at = (iso: string | null) => (iso === null ? 'never' : new Date(iso).toLocaleString('en-GB'));

/** What a connection's health line says: its last webhook, deliveries waiting, its reconciliation. */
function health(x: Connection): { text: string; problem: boolean }[] {
  const lines = [{ text: `Last webhook: ${at(x.last_event_at)}`, problem: false }];
  if (!x.has_signing_secret) {
    lines.push({
      text: `Waiting for the signing secret${x.waiting > 0 ? `: ${x.waiting} deliveries answered "retry later", ${nameOf(x.provider)} sends them again` : ''}`,
      problem: true,
    });
  }
  if (x.reconciles) {
    const r = x.reconciliation;
    lines.push(
      r.error === null
        ? { text: `Reconciled: ${at(r.attempted_at)}`, problem: false }
        : { text: `Reconciliation failed (${at(r.attempted_at)}): ${r.error}`, problem: true },
    );
  }
  return lines;
}

/** Pasting a provider's signing secret (manual set-up, or after rolling it at the provider). */
function SecretForm(props: { site: string; connection: Connection; onSaved: () => void }) {
  const [secret, setSecret] = useState('');
  const save = useSubmit(async () => {
    await unwrap(
      api.PATCH('/api/v1/sites/{site}/payments/connections/{id}', {
        params: { path: { site: props.site, id: props.connection.id } },
        body: { signing_secret: secret },
      }),
    );
    setSecret('');
    props.onSaved();
  });
  return (
    <form class="row align-end" onSubmit={save.submit}>
      <InputField
        label={`Signing secret from ${nameOf(props.connection.provider)}`}
        type="password"
        autocomplete="off"
        required
        value={secret}
        onValue={setSecret}
        error={save.fieldError('signing_secret')}
      />
      <button type="submit" class="button" disabled={save.busy}>
        Save the secret
      </button>
      <ErrorNote error={save.formError('signing_secret')} />
    </form>
  );
}

/** One connection: where webhooks go, its health, and what an owner can do with it. */
function ConnectionItem(props: {
  site: string;
  connection: Connection;
  onSecret: (made: Made) => void;
  onChanged: () => void;
}) {
  const { connection: x } = props;
  const [confirming, setConfirming] = useState<'rotate' | 'delete' | null>(null);
  const [pasting, setPasting] = useState(false);
  const path = { site: props.site, id: x.id };
  const act = useSubmit(async () => {
    if (confirming === 'rotate') {
      props.onSecret(
        await unwrap(api.POST('/api/v1/sites/{site}/payments/connections/{id}/secret', { params: { path } })),
      );
    } else {
      await unwrap(api.DELETE('/api/v1/sites/{site}/payments/connections/{id}', { params: { path } }));
      props.onChanged();
    }
    setConfirming(null);
  });
  const sync = useSubmit(async () => {
    await unwrap(
      api.POST('/api/v1/sites/{site}/payments/connections/{id}/sync', { params: { path }, body: {} }),
    );
    props.onChanged();
  });
  const custom = x.provider === 'custom';
  return (
    <li class="connection stack">
      <p>
        <strong>{x.name}</strong>{' '}
        <span class="muted">
          {/* the provider is named once: a connection called by its provider's name says it already */}
          {x.name === (custom ? 'Custom webhook' : nameOf(x.provider))
            ? '· '
            : `· ${custom ? 'custom webhook' : nameOf(x.provider)} · `}
          {x.environment === 'sandbox' ? 'sandbox (test payments)' : 'live'}
          {!custom && (x.mode === 'automatic' ? ' · connected with an API key' : ' · set up by hand')}
        </span>
      </p>
      <ul class="plain">
        {health(x).map((line) => (
          <li key={line.text} class={line.problem ? 'problem' : 'muted'}>
            {line.text}
          </li>
        ))}
      </ul>
      {(custom || x.mode === 'manual') && (
        <p class="row">
          <span class="visually-hidden">Webhook URL: </span>
          <code class="code-box">{x.webhook_url}</code>
          <CopyButton text={x.webhook_url} label="Copy the URL" />
        </p>
      )}
      {!custom && (!x.has_signing_secret || pasting) && (
        <SecretForm
          site={props.site}
          connection={x}
          onSaved={() => {
            setPasting(false);
            props.onChanged();
          }}
        />
      )}
      {confirming === null ? (
        <div class="row">
          {x.reconciles && (
            <button type="button" class="button secondary" disabled={sync.busy} onClick={() => sync.submit()}>
              {sync.busy ? 'Reconciling…' : 'Reconcile now'}
            </button>
          )}
          {custom ? (
            <button type="button" class="button secondary" onClick={() => setConfirming('rotate')}>
              New signing secret…
            </button>
          ) : (
            x.has_signing_secret &&
            !pasting && (
              <button type="button" class="button secondary" onClick={() => setPasting(true)}>
                Paste a new signing secret
              </button>
            )
          )}
          <button type="button" class="button secondary" onClick={() => setConfirming('delete')}>
            Disconnect…
          </button>
        </div>
      ) : (
        <div class="row confirm">
          <span>
            {confirming === 'rotate'
              ? 'Webhooks signed with the current secret will be refused until the sender has the new one.'
              : `Its stored webhooks and its payments are removed from every report${x.mode === 'automatic' ? `, and the webhook endpoint at ${nameOf(x.provider)} is deleted` : ''}.`}
          </span>
          <button type="button" class="button danger" disabled={act.busy} onClick={() => act.submit()}>
            {confirming === 'rotate' ? 'Make a new secret' : 'Disconnect'}
          </button>
          <button type="button" class="button secondary" onClick={() => setConfirming(null)}>
            Cancel
          </button>
        </div>
      )}
      <ErrorNote error={act.error ?? sync.error} />
    </li>
  );
}

/** The form that connects a provider (with a key, or by hand) or the custom webhook. */
function ConnectForm(props: { site: string; onMade: (made: Connection | Made) => void }) {
  const [provider, setProvider] = useState<Choice>('stripe');
  const [manual, setManual] = useState(false);
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [sandbox, setSandbox] = useState(false);
  const choice = CHOICES.find((c) => c.id === provider)!;
  const create = useSubmit(async () => {
    const named = name.trim() ? { name } : {};
    const body =
      provider === 'custom'
        ? { provider, environment: sandbox ? ('sandbox' as const) : ('live' as const), ...named }
        : manual
          ? {
              provider,
              mode: 'manual' as const,
              environment: sandbox ? ('sandbox' as const) : ('live' as const),
              ...named,
            }
          : { provider, api_key: key, ...named };
    const answer = await unwrap(
      api.POST('/api/v1/sites/{site}/payments/connections', { params: { path: { site: props.site } }, body }),
    );
    setKey('');
    setName('');
    props.onMade(answer);
  });
  const withKey = provider !== 'custom' && !manual;
  return (
    <form class="stack connect-form" onSubmit={create.submit}>
      <div class="row align-end">
        <div class="field">
          <label for="payment-provider">Provider</label>
          <select
            id="payment-provider"
            value={provider}
            onChange={(e) => {
              setProvider(e.currentTarget.value as Choice);
              create.clear();
            }}
          >
            {CHOICES.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        {provider !== 'custom' && (
          <fieldset class="row choice">
            <legend class="visually-hidden">How to connect</legend>
            <label class="check">
              <input type="radio" name="setup" checked={!manual} onChange={() => setManual(false)} /> With an
              API key
            </label>
            <label class="check">
              <input type="radio" name="setup" checked={manual} onChange={() => setManual(true)} /> By hand
            </label>
          </fieldset>
        )}
      </div>
      {withKey && (
        <InputField
          label={`${choice.name} API key`}
          type="password"
          autocomplete="off"
          required
          value={key}
          onValue={setKey}
          error={create.fieldError('api_key')}
          hint={
            <>
              Paste {choice.key} (the documentation's {choice.name} page shows how to make it). Footfall
              creates the webhook itself, keeps the key sealed and reads payments back every six hours; the
              key decides live or sandbox.
            </>
          }
        />
      )}
      {!withKey && (
        <p class="muted">
          {provider === 'custom'
            ? 'Your checkout or billing system posts each payment, refund and dispute to a webhook URL, signed with a secret Footfall issues. The format is in the documentation (payments).'
            : `Footfall shows a webhook URL to add in ${choice.name}; paste the signing secret ${choice.name} then shows. Without an API key nothing is reconciled: payments come from webhooks only.`}
        </p>
      )}
      <div class="row align-end">
        <InputField
          label="Name (optional)"
          error={create.fieldError('name')}
          maxLength={100}
          placeholder={choice.name.replace(/ \(.*\)$/, '')}
          value={name}
          onValue={setName}
        />
        {!withKey && (
          <label class="check">
            <input type="checkbox" checked={sandbox} onChange={(e) => setSandbox(e.currentTarget.checked)} />{' '}
            Sandbox (test payments only)
          </label>
        )}
        <button type="submit" class="button" disabled={create.busy}>
          {create.busy && withKey ? `Checking the key with ${choice.name}…` : 'Connect'}
        </button>
      </div>
      <ErrorNote error={create.formError('api_key', 'name')} />
    </form>
  );
}

/**
 * Settings, Payments: the site's connections (docs/payments.md). A provider is connected with an
 * API key (Footfall creates the webhook and reconciles) or by hand (the URL to paste at the
 * provider, then its signing secret); the custom webhook gets a URL and a secret shown once.
 */
export function PaymentConnections(props: { site: string }) {
  const [version, setVersion] = useState(0);
  const list = useLoad(
    (signal) =>
      unwrap(
        api.GET('/api/v1/sites/{site}/payments/connections', {
          signal,
          params: { path: { site: props.site } },
        }),
      ),
    [props.site, version],
  );
  const [made, setMade] = useState<Made>();
  const refresh = () => setVersion((v) => v + 1);
  const shown = (m: Connection | Made) => {
    if ('signing_secret' in m) setMade(m);
    refresh();
  };
  return (
    <div class="stack">
      <p class="muted">
        Connect where your payments happen; the report then shows which traffic pays, credited to the visit
        that brought each buyer.
      </p>
      {made && (
        <ShownOnce secret={made.signing_secret} copyLabel="Copy the secret" onDone={() => setMade(undefined)}>
          <strong>{made.name}</strong>: copy the signing secret now, it is not shown again. Webhook URL:{' '}
          <code>{made.webhook_url}</code>
        </ShownOnce>
      )}
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Spinner />}
      {list.data && list.data.connections.length === 0 && <p>No payment connection yet.</p>}
      {list.data && list.data.connections.length > 0 && (
        <ul class="connections stack">
          {list.data.connections.map((x) => (
            <ConnectionItem
              key={x.id}
              site={props.site}
              connection={x}
              onSecret={shown}
              onChanged={refresh}
            />
          ))}
        </ul>
      )}
      <ConnectForm site={props.site} onMade={shown} />
    </div>
  );
}
