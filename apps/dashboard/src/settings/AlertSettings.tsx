import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, InputField, ShownOnce, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';

type Destination = Schema<'AlertDestination'>;
type Kind = Destination['kinds'][number];

/** Each kind in words, in the order the API lists them. */
const KINDS: [Kind, string][] = [
  ['tracking_stopped', 'Tracking stopped'],
  ['busy_day', 'A busy day'],
  ['payment', 'Someone paid'],
  ['disk_filling', 'Disk filling'],
  ['health', 'Health problems'],
  ['milestone', 'Milestone reached'],
];

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * A site's alert destinations (owners): each with the kinds it receives (ticked here), its last
 * delivery or failure, "Send a test alert" and removal; a form to add a webhook URL (its signing
 * secret shown once) or, when the server can send e-mail, an address.
 */
export function AlertSettings({ site }: { site: string }) {
  const list = useLoad(
    (signal) => unwrap(api.GET('/api/v1/sites/{site}/alerts', { signal, params: { path: { site } } })),
    [site],
  );
  const [channel, setChannel] = useState<'webhook' | 'email'>('webhook');
  const [target, setTarget] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const add = useSubmit(async () => {
    const body = channel === 'webhook' ? { channel, url: target.trim() } : { channel, email: target.trim() };
    const made = await unwrap(api.POST('/api/v1/sites/{site}/alerts', { params: { path: { site } }, body }));
    setTarget('');
    setSecret(made.secret);
    list.reload();
  });
  const emailReady = list.data?.email_ready ?? false;
  return (
    <div class="stack">
      <p class="muted">
        Footfall tells these destinations when tracking stops, on a busy day, when someone pays, when the disk
        is filling up and when Footfall itself has a problem; and, if you tick it, when the site reaches a
        milestone.
      </p>
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Spinner />}
      {secret && (
        <ShownOnce secret={secret} copyLabel="Copy the signing secret" onDone={() => setSecret(null)}>
          The webhook's signing secret, shown only now: each post carries Footfall-Signature, an HMAC-SHA256
          of the timestamp and the body with this secret, so the receiver can check it came from here.
        </ShownOnce>
      )}
      {list.data && list.data.destinations.length === 0 && <p>No alert destination yet.</p>}
      {list.data && list.data.destinations.length > 0 && (
        <ul class="alert-list">
          {list.data.destinations.map((d) => (
            <DestinationRow key={d.id} site={site} destination={d} onChanged={list.reload} />
          ))}
        </ul>
      )}
      {list.data && (
        <form class="form-narrow" onSubmit={add.submit} aria-label="New alert destination">
          <fieldset class="row choice">
            <legend>Send alerts to</legend>
            <label class="check">
              <input
                type="radio"
                name="alert-channel"
                checked={channel === 'webhook'}
                onChange={() => setChannel('webhook')}
              />
              <span>a webhook</span>
            </label>
            <label class="check">
              <input
                type="radio"
                name="alert-channel"
                checked={channel === 'email'}
                disabled={!emailReady}
                onChange={() => setChannel('email')}
              />
              <span>an e-mail address</span>
            </label>
          </fieldset>
          {!emailReady && <p class="muted small">E-mail needs FOOTFALL_SMTP_URL on the server.</p>}
          <InputField
            label={channel === 'webhook' ? 'Webhook URL' : 'E-mail address'}
            type={channel === 'webhook' ? 'url' : 'email'}
            inputMode={channel === 'webhook' ? 'url' : 'email'}
            hint={
              channel === 'webhook' ? 'Footfall posts JSON there; private addresses are refused.' : undefined
            }
            value={target}
            onValue={setTarget}
            maxLength={channel === 'webhook' ? 2000 : 320}
          />
          <ErrorNote error={add.error} />
          <button class="button primary" type="submit" disabled={add.busy || !target.trim()}>
            Add the destination
          </button>
        </form>
      )}
    </div>
  );
}

function DestinationRow(props: { site: string; destination: Destination; onChanged: () => void }) {
  const { site, destination: d } = props;
  const path = { params: { path: { site, id: d.id } } };
  const [tested, setTested] = useState<Schema<'AlertTestAnswer'> | null>(null);
  const test = useSubmit(async () => {
    setTested(null);
    setTested(await unwrap(api.POST('/api/v1/sites/{site}/alerts/{id}/test', path)));
    props.onChanged();
  });
  // the boxes change at once; a refused change puts them back
  const [kinds, setKinds] = useState<Kind[]>(d.kinds);
  const [changing, setChanging] = useState(false);
  const [changeError, setChangeError] = useState<unknown>();
  const change = async (next: Kind[]) => {
    const before = kinds;
    setKinds(next);
    setChanging(true);
    setChangeError(undefined);
    try {
      await unwrap(api.PATCH('/api/v1/sites/{site}/alerts/{id}', { ...path, body: { kinds: next } }));
    } catch (e) {
      setKinds(before);
      setChangeError(e);
    } finally {
      setChanging(false);
    }
  };
  const remove = useSubmit(async () => {
    await unwrap(api.DELETE('/api/v1/sites/{site}/alerts/{id}', path));
    props.onChanged();
  });
  const name = d.target ?? d.host;
  const toggle = (kind: Kind, on: boolean) =>
    change(KINDS.map(([k]) => k).filter((k) => (k === kind ? on : kinds.includes(k))));
  return (
    <li class="alert-destination stack">
      <div class="row spread">
        <span class="alert-target">
          <span class="badge">{d.channel === 'email' ? 'E-mail' : 'Webhook'}</span> <code>{name}</code>
        </span>
        <span class="row">
          <button
            type="button"
            class="button small secondary"
            disabled={test.busy}
            onClick={() => test.submit()}
          >
            Send a test alert<span class="visually-hidden"> to {name}</span>
          </button>
          <button
            type="button"
            class="button small secondary"
            disabled={remove.busy}
            onClick={() => remove.submit()}
          >
            Remove<span class="visually-hidden"> {name}</span>
          </button>
        </span>
      </div>
      <fieldset class="alert-kinds">
        <legend class="visually-hidden">Alerts sent to {name}</legend>
        {KINDS.map(([kind, label]) => (
          <label class="check" key={kind}>
            <input
              type="checkbox"
              checked={kinds.includes(kind)}
              disabled={changing}
              onChange={(e) => toggle(kind, e.currentTarget.checked)}
            />
            <span>{label}</span>
          </label>
        ))}
      </fieldset>
      <p class="muted small" role="status">
        {tested
          ? tested.delivered
            ? 'The test alert was delivered.'
            : `The test alert was not delivered: ${tested.error}.`
          : d.last_failure
            ? `Last failure ${when(d.last_failure.at)}: ${d.last_failure.message}.`
            : d.last_sent_at
              ? `Last sent ${when(d.last_sent_at)}.`
              : 'Nothing sent yet.'}
      </p>
      <ErrorNote error={test.error ?? changeError ?? remove.error} />
    </li>
  );
}
