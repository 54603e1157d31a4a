import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, InputField, ShownOnce, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { formatDateTime } from '../i18n/format.ts';
import { t } from '../i18n/siteSettings.ts';

type Destination = Schema<'AlertDestination'>;
type Kind = Destination['kinds'][number];

/** Each kind in words, in the order the API lists them. */
const KINDS: [Kind, string][] = [
  ['tracking_stopped', t('alertTrackingStopped')],
  ['busy_day', t('alertBusyDay')],
  ['payment', t('alertPayment')],
  ['disk_filling', t('alertDiskFilling')],
  ['health', t('alertHealth')],
  ['milestone', t('alertMilestone')],
];

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
      <p class="muted">{t('alertsIntro')}</p>
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Spinner />}
      {secret && (
        <ShownOnce secret={secret} copyLabel={t('copySigningSecret')} onDone={() => setSecret(null)}>
          {t('signingSecretNote')}
        </ShownOnce>
      )}
      {list.data && list.data.destinations.length === 0 && <p>{t('noDestinationYet')}</p>}
      {list.data && list.data.destinations.length > 0 && (
        <ul class="alert-list">
          {list.data.destinations.map((d) => (
            <DestinationRow key={d.id} site={site} destination={d} onChanged={list.reload} />
          ))}
        </ul>
      )}
      {list.data && (
        <form class="form-narrow" onSubmit={add.submit} aria-label={t('newDestination')}>
          <fieldset class="row choice">
            <legend>{t('sendAlertsTo')}</legend>
            <label class="check">
              <input
                type="radio"
                name="alert-channel"
                checked={channel === 'webhook'}
                onChange={() => setChannel('webhook')}
              />
              <span>{t('aWebhook')}</span>
            </label>
            <label class="check">
              <input
                type="radio"
                name="alert-channel"
                checked={channel === 'email'}
                disabled={!emailReady}
                onChange={() => setChannel('email')}
              />
              <span>{t('anEmailAddress')}</span>
            </label>
          </fieldset>
          {!emailReady && <p class="muted small">{t('emailNeedsSmtp', { variable: 'FOOTFALL_SMTP_URL' })}</p>}
          <InputField
            label={channel === 'webhook' ? t('webhookUrl') : t('emailAddress')}
            type={channel === 'webhook' ? 'url' : 'email'}
            inputMode={channel === 'webhook' ? 'url' : 'email'}
            hint={channel === 'webhook' ? t('webhookHint') : undefined}
            value={target}
            onValue={setTarget}
            maxLength={channel === 'webhook' ? 2000 : 320}
          />
          <ErrorNote error={add.error} />
          <button class="button primary" type="submit" disabled={add.busy || !target.trim()}>
            {t('addDestination')}
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
          <span class="badge">{d.channel === 'email' ? t('badgeEmail') : t('badgeWebhook')}</span>{' '}
          <code>{name}</code>
        </span>
        <span class="row">
          <button
            type="button"
            class="button small secondary"
            disabled={test.busy}
            onClick={() => test.submit()}
          >
            {t('sendTestAlert')}
            <span class="visually-hidden">{t('sendTestAlertHidden', { name })}</span>
          </button>
          <button
            type="button"
            class="button small secondary"
            disabled={remove.busy}
            onClick={() => remove.submit()}
          >
            {t('remove')}
            <span class="visually-hidden"> {name}</span>
          </button>
        </span>
      </div>
      <fieldset class="alert-kinds">
        <legend class="visually-hidden">{t('alertsSentTo', { name })}</legend>
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
            ? t('testDelivered')
            : t('testNotDelivered', { error: String(tested.error) })
          : d.last_failure
            ? t('lastFailure', { when: formatDateTime(d.last_failure.at), message: d.last_failure.message })
            : d.last_sent_at
              ? t('lastSent', { when: formatDateTime(d.last_sent_at) })
              : t('nothingSentYet')}
      </p>
      <ErrorNote error={test.error ?? changeError ?? remove.error} />
    </li>
  );
}
