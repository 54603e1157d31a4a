import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { CopyButton, ErrorNote } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/sites.ts';

/**
 * A site's proxy key (owners only): hidden until asked for, copyable, and rotated after a
 * confirmation (the old key stops working at once).
 */
export function ProxyKey(props: { site: Schema<'Site'>; onRotated?: (site: Schema<'Site'>) => void }) {
  const [key, setKey] = useState(props.site.proxy_key ?? '');
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const rotate = useSubmit(async () => {
    const { site } = await unwrap(
      api.POST('/api/v1/sites/{site}/proxy-key', { params: { path: { site: props.site.id } } }),
    );
    setKey(site.proxy_key ?? '');
    setShown(true);
    setConfirming(false);
    props.onRotated?.(site);
  });
  return (
    <div class="stack">
      <p class="proxy-key-line">
        <span class="visually-hidden">{t('proxyKey')}</span>
        <code class="code-box proxy-key">
          {shown ? key : <span title={t('hidden')}>{'•'.repeat(24)}</span>}
        </code>
      </p>
      <div class="row">
        <button type="button" class="button secondary" onClick={() => setShown(!shown)} aria-pressed={shown}>
          {shown ? t('hideKey') : t('showKey')}
        </button>
        <CopyButton text={key} label={t('copyKey')} />
        {!confirming ? (
          <button type="button" class="button secondary" onClick={() => setConfirming(true)}>
            {t('rotate')}
          </button>
        ) : (
          <span class="row confirm">
            <span>{t('rotateWarning')}</span>
            <button
              type="button"
              class="button danger"
              disabled={rotate.busy}
              onClick={() => rotate.submit()}
            >
              {t('rotateKey')}
            </button>
            <button type="button" class="button secondary" onClick={() => setConfirming(false)}>
              {t('keepIt')}
            </button>
          </span>
        )}
      </div>
      <ErrorNote error={rotate.error} />
    </div>
  );
}
