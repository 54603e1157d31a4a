import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { CopyButton, ErrorNote, InputField, ShownOnce, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/connections.ts';
import { formatDateTime } from '../i18n/format.ts';

type Connection = Schema<'PaymentConnection'>;
type Made = Schema<'PaymentConnectionWithSecret'>;
type Provider = Schema<'PaymentProvider'>;
type Choice = Exclude<Provider, 'custom'> | 'custom';

/**
 * The providers in the order people look for them; "Anything else" is the custom webhook. `name`
 * is what a connection's line calls it, `option` its line in the list, `paste` the key to paste.
 */
const CHOICES: { id: Choice; name: string; option?: string; paste: string }[] = [
  { id: 'stripe', name: 'Stripe', paste: t('pasteStripe') },
  { id: 'paddle', name: 'Paddle', paste: t('pastePaddle') },
  { id: 'lemonsqueezy', name: 'Lemon Squeezy', paste: t('pasteLemonSqueezy') },
  { id: 'polar', name: 'Polar', paste: t('pastePolar') }, // not text
  { id: 'dodo', name: 'Dodo Payments', paste: t('pasteDodo') }, // not text
  { id: 'custom', name: t('anythingElse'), option: t('anythingElseOption'), paste: '' },
];
const nameOf = (p: Provider) => CHOICES.find((c) => c.id === p)?.name ?? p;

const at = (iso: string | null) => (iso === null ? t('never') : formatDateTime(iso));

/** What a connection's health line says: its last webhook, deliveries waiting, its reconciliation. */
function health(x: Connection): { text: string; problem: boolean }[] {
  const lines = [{ text: t('lastWebhook', { when: at(x.last_event_at) }), problem: false }];
  if (!x.has_signing_secret) {
    lines.push({
      text:
        x.waiting > 0
          ? t('waitingDeliveries', { count: x.waiting, provider: nameOf(x.provider) })
          : t('waitingForSecret'),
      problem: true,
    });
  }
  if (x.reconciles) {
    const r = x.reconciliation;
    lines.push(
      r.error === null
        ? { text: t('reconciled', { when: at(r.attempted_at) }), problem: false }
        : { text: t('reconciliationFailed', { when: at(r.attempted_at), error: r.error }), problem: true },
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
        label={t('signingSecretFrom', { provider: nameOf(props.connection.provider) })}
        type="password"
        autocomplete="off"
        required
        value={secret}
        onValue={setSecret}
        error={save.fieldError('signing_secret')}
      />
      <button type="submit" class="button" disabled={save.busy}>
        {t('saveSecret')}
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
            : `· ${custom ? t('customWebhook') : nameOf(x.provider)} · `}
          {x.environment === 'sandbox' ? t('sandboxTest') : t('live')}
          {!custom && ` · ${x.mode === 'automatic' ? t('connectedWithKey') : t('setUpByHand')}`}
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
          <span class="visually-hidden">{t('webhookUrl')}</span>
          <code class="code-box">{x.webhook_url}</code>
          <CopyButton text={x.webhook_url} label={t('copyUrl')} />
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
              {sync.busy ? t('reconciling') : t('reconcileNow')}
            </button>
          )}
          {custom ? (
            <button type="button" class="button secondary" onClick={() => setConfirming('rotate')}>
              {t('newSecretAsk')}
            </button>
          ) : (
            x.has_signing_secret &&
            !pasting && (
              <button type="button" class="button secondary" onClick={() => setPasting(true)}>
                {t('pasteNewSecret')}
              </button>
            )
          )}
          <button type="button" class="button secondary" onClick={() => setConfirming('delete')}>
            {t('disconnectAsk')}
          </button>
        </div>
      ) : (
        <div class="row confirm">
          <span>
            {confirming === 'rotate'
              ? t('rotateWarning')
              : x.mode === 'automatic'
                ? t('disconnectWarningEndpoint', { provider: nameOf(x.provider) })
                : t('disconnectWarning')}
          </span>
          <button type="button" class="button danger" disabled={act.busy} onClick={() => act.submit()}>
            {confirming === 'rotate' ? t('makeNewSecret') : t('disconnect')}
          </button>
          <button type="button" class="button secondary" onClick={() => setConfirming(null)}>
            {t('cancel')}
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
          <label for="payment-provider">{t('provider')}</label>
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
                {c.option ?? c.name}
              </option>
            ))}
          </select>
        </div>
        {provider !== 'custom' && (
          <fieldset class="row choice">
            <legend class="visually-hidden">{t('howToConnect')}</legend>
            <label class="check">
              <input type="radio" name="setup" checked={!manual} onChange={() => setManual(false)} />{' '}
              {t('withApiKey')}
            </label>
            <label class="check">
              <input type="radio" name="setup" checked={manual} onChange={() => setManual(true)} />{' '}
              {t('byHand')}
            </label>
          </fieldset>
        )}
      </div>
      {withKey && (
        <InputField
          label={t('providerApiKey', { provider: choice.name })}
          type="password"
          autocomplete="off"
          required
          value={key}
          onValue={setKey}
          error={create.fieldError('api_key')}
          hint={t('keyHint', { paste: choice.paste })}
        />
      )}
      {!withKey && (
        <p class="muted">
          {provider === 'custom' ? t('customNote') : t('manualNote', { provider: choice.name })}
        </p>
      )}
      <div class="row align-end">
        <InputField
          label={t('nameOptional')}
          error={create.fieldError('name')}
          maxLength={100}
          placeholder={choice.name}
          value={name}
          onValue={setName}
        />
        {!withKey && (
          <label class="check">
            <input type="checkbox" checked={sandbox} onChange={(e) => setSandbox(e.currentTarget.checked)} />{' '}
            {t('sandboxOnly')}
          </label>
        )}
        <button type="submit" class="button" disabled={create.busy}>
          {create.busy && withKey ? t('checkingKey', { provider: choice.name }) : t('connect')}
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
      <p class="muted">{t('paymentsIntro')}</p>
      {made && (
        <ShownOnce secret={made.signing_secret} copyLabel={t('copySecret')} onDone={() => setMade(undefined)}>
          {t.rich('secretShownOnce', {
            name: <strong>{made.name}</strong>,
            url: <code>{made.webhook_url}</code>,
          })}
        </ShownOnce>
      )}
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Spinner />}
      {list.data && list.data.connections.length === 0 && <p>{t('noPaymentConnection')}</p>}
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
