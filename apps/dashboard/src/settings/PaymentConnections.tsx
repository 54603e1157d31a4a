import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { CopyButton, ErrorNote, InputField, ShownOnce, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';

type Connection = Schema<'PaymentConnection'>;
type Made = Schema<'PaymentConnectionWithSecret'>;

const when = (iso: string | null) =>
  iso === null ? 'no webhook yet' : `last webhook ${new Date(iso).toLocaleString('en-GB')}`;

/** One connection: its webhook URL, mode and last webhook; rotate the secret or delete it. */
function ConnectionItem(props: {
  site: string;
  connection: Connection;
  onSecret: (made: Made) => void;
  onDeleted: () => void;
}) {
  const { connection: x } = props;
  const [confirming, setConfirming] = useState<'rotate' | 'delete' | null>(null);
  const path = { site: props.site, id: x.id };
  const act = useSubmit(async () => {
    if (confirming === 'rotate') {
      props.onSecret(
        await unwrap(api.POST('/api/v1/sites/{site}/payments/connections/{id}/secret', { params: { path } })),
      );
    } else {
      await unwrap(api.DELETE('/api/v1/sites/{site}/payments/connections/{id}', { params: { path } }));
      props.onDeleted();
    }
    setConfirming(null);
  });
  return (
    <li class="connection stack">
      <p>
        <strong>{x.name}</strong>{' '}
        <span class="muted">· {x.mode === 'sandbox' ? 'sandbox (test payments)' : 'live'}</span>
        <span class="muted"> · {when(x.last_event_at)}</span>
      </p>
      <p class="row">
        <span class="visually-hidden">Webhook URL: </span>
        <code class="code-box">{x.webhook_url}</code>
        <CopyButton text={x.webhook_url} label="Copy the URL" />
      </p>
      {confirming === null ? (
        <div class="row">
          <button type="button" class="button secondary" onClick={() => setConfirming('rotate')}>
            New signing secret…
          </button>
          <button type="button" class="button secondary" onClick={() => setConfirming('delete')}>
            Disconnect…
          </button>
        </div>
      ) : (
        <div class="row confirm">
          <span>
            {confirming === 'rotate'
              ? 'Webhooks signed with the current secret will be refused until the sender has the new one.'
              : 'Its stored webhooks and its payments are removed from every report.'}
          </span>
          <button type="button" class="button danger" disabled={act.busy} onClick={() => act.submit()}>
            {confirming === 'rotate' ? 'Make a new secret' : 'Disconnect'}
          </button>
          <button type="button" class="button secondary" onClick={() => setConfirming(null)}>
            Cancel
          </button>
        </div>
      )}
      <ErrorNote error={act.error} />
    </li>
  );
}

/**
 * Settings, Payments: the site's connections (docs/payments.md). The custom webhook gets a URL and
 * a signing secret, shown once; revenue then appears in the report.
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
  const [name, setName] = useState('');
  const [sandbox, setSandbox] = useState(false);
  const create = useSubmit(async () => {
    const answer = await unwrap(
      api.POST('/api/v1/sites/{site}/payments/connections', {
        params: { path: { site: props.site } },
        body: { provider: 'custom', mode: sandbox ? 'sandbox' : 'live', ...(name.trim() ? { name } : {}) },
      }),
    );
    setMade(answer);
    setName('');
    setVersion((v) => v + 1);
  });
  const shown = (m: Made) => {
    setMade(m);
    setVersion((v) => v + 1);
  };
  return (
    <div class="stack">
      <p class="muted">
        Your checkout or billing system posts each payment, refund and dispute to a webhook URL, signed with a
        secret; the report then shows which traffic pays. The format is in the documentation (payments).
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
              onDeleted={() => setVersion((v) => v + 1)}
            />
          ))}
        </ul>
      )}
      <form class="row align-end" onSubmit={create.submit}>
        <InputField
          label="Name of a new custom webhook"
          error={create.fieldError('name')}
          maxLength={100}
          placeholder="Custom webhook"
          value={name}
          onValue={setName}
        />
        <label class="check">
          <input type="checkbox" checked={sandbox} onChange={(e) => setSandbox(e.currentTarget.checked)} />{' '}
          Sandbox (test payments only)
        </label>
        <button type="submit" class="button" disabled={create.busy}>
          Connect
        </button>
      </form>
      <ErrorNote error={create.formError('name')} />
    </div>
  );
}
